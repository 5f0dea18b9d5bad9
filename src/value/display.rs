//! `Display` for `Variant`: Godot 3's `var2str` text, quirks included (checked against
//! the engine's own output in the golden fixtures).

use std::cmp::Ordering;
use std::fmt::{self, Write};

use super::{Dictionary, Variant};
use crate::types::Floats;

/// C's `%lg`: six significant digits, exponent form below 1e-4 and from 1e6.
fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_owned()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Godot 3's `rtosfix`: `%lg`, but zero is always `0`.
fn rtosfix(v: f32) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        fmt_g(v.into())
    }
}

/// A `float` Variant: narrowed to `real_t` (f32), `.0` added to plain integers (and,
/// as the engine does, to `-inf`).
fn float_text(v: f64) -> String {
    let s = rtosfix(v as f32);
    if s == "inf" || s == "nan" || s.contains('.') || s.contains('e') {
        s
    } else {
        s + ".0"
    }
}

/// `String::c_escape_multiline`: only backslashes and quotes.
fn quote(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '"' => f.write_str("\\\"")?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// `String::c_escape`, used for NodePath text.
fn c_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\'' => out.push_str("\\'"),
            '?' => out.push_str("\\?"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}

/// `Name( a, b, ... )` with each item written by `item`; empty gives `Name(  )`.
fn list<I, F>(f: &mut fmt::Formatter<'_>, name: &str, items: I, mut item: F) -> fmt::Result
where
    I: IntoIterator,
    F: FnMut(&mut fmt::Formatter<'_>, I::Item) -> fmt::Result,
{
    write!(f, "{name}( ")?;
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item(f, x)?;
    }
    f.write_str(" )")
}

fn floats<T: Floats>(f: &mut fmt::Formatter<'_>, name: &str, v: &[T]) -> fmt::Result {
    list(f, name, v.iter().flat_map(|x| x.floats()), |f, x| f.write_str(&rtosfix(x)))
}

/// Godot's `Variant::operator<` as far as `var2str` sorts dictionary keys: by type,
/// then by value for the types that have an order.
fn key_order(a: &Variant, b: &Variant) -> Ordering {
    use Variant::*;
    let (ta, tb) = (a.get_type() as u32, b.get_type() as u32);
    if ta != tb {
        return ta.cmp(&tb);
    }
    match (a, b) {
        (Bool(x), Bool(y)) => x.cmp(y),
        (Int(x), Int(y)) => x.cmp(y),
        (Float(x), Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (String(x), String(y)) => x.cmp(y),
        (Vector2(x), Vector2(y)) => (x.x, x.y).partial_cmp(&(y.x, y.y)).unwrap_or(Ordering::Equal),
        (Vector3(x), Vector3(y)) => (x.x, x.y, x.z).partial_cmp(&(y.x, y.y, y.z)).unwrap_or(Ordering::Equal),
        _ => Ordering::Equal,
    }
}

fn dictionary(f: &mut fmt::Formatter<'_>, d: &Dictionary) -> fmt::Result {
    let mut entries: Vec<_> = d.iter().collect();
    entries.sort_by(|a, b| key_order(a.0, b.0));
    f.write_str("{\n")?;
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            f.write_str(",\n")?;
        }
        write!(f, "{k}: {v}")?;
    }
    f.write_str("\n}")
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Variant::Nil => f.write_str("null"),
            Variant::Bool(b) => write!(f, "{b}"),
            Variant::Int(i) => write!(f, "{i}"),
            Variant::Float(v) => f.write_str(&float_text(*v)),
            Variant::String(s) => quote(f, s),
            Variant::Vector2(v) => floats(f, "Vector2", std::slice::from_ref(v)),
            Variant::Rect2(v) => floats(f, "Rect2", std::slice::from_ref(v)),
            Variant::Vector3(v) => floats(f, "Vector3", std::slice::from_ref(v)),
            Variant::Transform2D(v) => floats(f, "Transform2D", std::slice::from_ref(v)),
            Variant::Plane(v) => floats(f, "Plane", std::slice::from_ref(v)),
            Variant::Quat(v) => floats(f, "Quat", std::slice::from_ref(v)),
            Variant::Aabb(v) => floats(f, "AABB", std::slice::from_ref(v)),
            Variant::Basis(v) => floats(f, "Basis", std::slice::from_ref(v)),
            Variant::Transform(v) => floats(f, "Transform", std::slice::from_ref(v)),
            Variant::Color(v) => floats(f, "Color", std::slice::from_ref(v)),
            Variant::NodePath(p) => write!(f, "NodePath(\"{}\")", c_escape(&p.to_string())),
            // The engine prints RIDs as nothing at all.
            Variant::Rid(_) => Ok(()),
            Variant::Object(o) => {
                write!(f, "Object({},", o.class)?;
                for (i, (k, v)) in o.properties.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "\"{k}\":{v}")?;
                }
                f.write_str(")\n")
            }
            Variant::ObjectId(id) => write!(f, "Object(EncodedObjectAsID,\"object_id\":{id})\n"),
            Variant::Dictionary(d) => dictionary(f, d),
            Variant::Array(a) => {
                f.write_str("[ ")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(" ]")
            }
            Variant::PoolByteArray(a) => list(f, "PoolByteArray", a.iter(), |f, x| write!(f, "{x}")),
            Variant::PoolIntArray(a) => list(f, "PoolIntArray", a.iter(), |f, x| write!(f, "{x}")),
            Variant::PoolRealArray(a) => list(f, "PoolRealArray", a.iter(), |f, x| f.write_str(&rtosfix(*x))),
            Variant::PoolStringArray(a) => list(f, "PoolStringArray", a.iter(), |f, x| quote(f, x)),
            Variant::PoolVector2Array(a) => floats(f, "PoolVector2Array", a),
            Variant::PoolVector3Array(a) => floats(f, "PoolVector3Array", a),
            Variant::PoolColorArray(a) => floats(f, "PoolColorArray", a),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn percent_lg_matches_c() {
        // Expected strings are what C's printf("%lg") gives for these doubles.
        for (v, s) in [
            (0.1, "0.1"),
            (1.0 / 3.0, "0.333333"),
            (123456789.0, "1.23457e+08"),
            (1e20, "1e+20"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (100000.0, "100000"),
            (999999.0, "999999"),
            (999999.5, "1e+06"),
            (1234567.0, "1.23457e+06"),
            (0.00001234, "1.234e-05"),
            (-0.0001, "-0.0001"),
            (2.5e-10, "2.5e-10"),
            (1.5, "1.5"),
        ] {
            assert_eq!(fmt_g(v), s, "{v}");
        }
    }
}
