//! What Godot 4 does with a typed container's elements that are not of its type:
//! it converts the ones its strict conversion allows and drops the rest (measured on
//! Godot 4.6 with `bytes_to_var`, see `tests/typed_conform.rs`).
//!
//! Arrays: every element. Dictionaries: the keys only (values are kept as they are);
//! a key that converts onto an existing key replaces that entry's value.

use super::{ContainerType, Variant};
use crate::dialect::VariantType;
use crate::{Color, NodePath, StringName, Transform, Vector2, Vector2i, Vector3};
use crate::{Projection, Rect2, Rect2i, Vector3i, Vector4, Vector4i};

/// The element as the engine stores it in a container of type `ty`: `Ok(None)` when the
/// engine drops it, `Err` (a description) when the engine converts it in a way this
/// crate does not reproduce.
pub(crate) fn conform(ty: &ContainerType, v: Variant) -> Result<Option<Variant>, String> {
    let want = match ty {
        ContainerType::Builtin(VariantType::Nil) => return Ok(Some(v)),
        ContainerType::Builtin(VariantType::Object) => return Ok(object(v, true)),
        // Without the class table, any object is taken to be of the class.
        ContainerType::Class(c) => return Ok(object(v, c == "Object" || c == ENCODED_ID)),
        ContainerType::Script(_) => return Ok(object(v, false)),
        ContainerType::Builtin(t) => *t,
    };
    let from = v.get_type();
    if from == want {
        return Ok(Some(v));
    }
    use Variant as V;
    use VariantType as T;
    Ok(Some(match (want, v) {
        (T::Int, V::Float(f)) => V::Int(c_int64(f)),
        (T::Int, V::Bool(b)) => V::Int(b.into()),
        (T::Float, V::Int(i)) => V::Float(i as f64),
        (T::Float, V::Bool(b)) => V::Float(u8::from(b).into()),
        (T::Bool, V::Int(i)) => V::Bool(i != 0),
        (T::Bool, V::Float(f)) => V::Bool(f != 0.0),
        (T::String, V::StringName(s)) => V::String(s.0),
        (T::String, V::NodePath(p)) => V::String(p.to_string()),
        (T::StringName, V::String(s)) => V::StringName(StringName(s)),
        (T::NodePath, V::String(s)) => V::NodePath(NodePath::from(s.as_str())),
        (T::Vector2, V::Vector2i(p)) => V::Vector2(Vector2::new(p.x as f32, p.y as f32)),
        (T::Vector2i, V::Vector2(p)) => {
            V::Vector2i(Vector2i::new(c_int32(p.x.into()), c_int32(p.y.into())))
        }
        (T::Vector3, V::Vector3i(p)) => {
            V::Vector3(Vector3::new(p.x as f32, p.y as f32, p.z as f32))
        }
        (T::Vector3i, V::Vector3(p)) => V::Vector3i(Vector3i::new(
            c_int32(p.x.into()),
            c_int32(p.y.into()),
            c_int32(p.z.into()),
        )),
        (T::Vector4, V::Vector4i(p)) => {
            V::Vector4(Vector4::new(p.x as f32, p.y as f32, p.z as f32, p.w as f32))
        }
        (T::Vector4i, V::Vector4(p)) => V::Vector4i(Vector4i::new(
            c_int32(p.x.into()),
            c_int32(p.y.into()),
            c_int32(p.z.into()),
            c_int32(p.w.into()),
        )),
        (T::Rect2, V::Rect2i(r)) => V::Rect2(Rect2::new(
            r.position.x as f32,
            r.position.y as f32,
            r.size.x as f32,
            r.size.y as f32,
        )),
        (T::Rect2i, V::Rect2(r)) => V::Rect2i(Rect2i::new(
            c_int32(r.position.x.into()),
            c_int32(r.position.y.into()),
            c_int32(r.size.x.into()),
            c_int32(r.size.y.into()),
        )),
        (T::Transform, V::Basis(b)) => {
            V::Transform(Box::new(Transform::new(*b, Vector3::new(0.0, 0.0, 0.0))))
        }
        (T::Projection, V::Transform(t)) => {
            // `Projection(Transform3D)`: the basis columns, then the origin, w = 1.
            let r = t.basis.rows();
            let col = |i: usize| Vector4::new(r[0][i], r[1][i], r[2][i], 0.0);
            let o = t.origin;
            V::Projection(Box::new(Projection::from_columns(
                col(0),
                col(1),
                col(2),
                Vector4::new(o.x, o.y, o.z, 1.0),
            )))
        }
        (T::Color, V::Int(i)) => V::Color(color_hex(i as u32)),
        (T::Transform2D, V::Transform(_))
        | (T::Transform, V::Transform2D(_) | V::Quat(_) | V::Projection(_))
        | (T::Quat, V::Basis(_))
        | (T::Basis, V::Quat(_))
        | (T::Color, V::String(_))
        | (T::Rid, V::Object(_) | V::ObjectId(_)) => return Err(unsupported(from, want)),
        _ if (packed(want) && from == T::Array) || (packed(from) && want == T::Array) => {
            return Err(unsupported(from, want))
        }
        _ => return Ok(None),
    }))
}

/// `Array::assign`, as the text parser builds a typed container: every element
/// converts, or the container ends up empty.
pub(crate) fn conform_all(ty: &ContainerType, items: Vec<Variant>) -> Result<Vec<Variant>, String> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match conform(ty, item)? {
            Some(v) => out.push(v),
            None => return Ok(Vec::new()),
        }
    }
    Ok(out)
}

fn unsupported(from: VariantType, to: VariantType) -> String {
    let name = |t: VariantType| t.name_in(crate::Dialect::Godot4);
    format!(
        "Godot converts a {} element of an Array[{}] (or Dictionary key) to {1}; godot_bin does not reproduce that conversion",
        name(from),
        name(to)
    )
}

const ENCODED_ID: &str = "EncodedObjectAsID";

/// An Object container keeps objects and nulls; an object sent as its id is an
/// `EncodedObjectAsID`, which only `Object` (and its own class) takes.
fn object(v: Variant, takes_ids: bool) -> Option<Variant> {
    match v {
        Variant::Nil | Variant::Object(_) | Variant::ResourceRef(_) => Some(v),
        Variant::ObjectId(_) if takes_ids => Some(v),
        _ => None,
    }
}

fn packed(t: VariantType) -> bool {
    matches!(
        t,
        VariantType::PoolByteArray
            | VariantType::PoolIntArray
            | VariantType::PackedInt64Array
            | VariantType::PoolRealArray
            | VariantType::PackedFloat64Array
            | VariantType::PoolStringArray
            | VariantType::PoolVector2Array
            | VariantType::PoolVector3Array
            | VariantType::PoolColorArray
            | VariantType::PackedVector4Array
    )
}

/// C++'s `(int64_t)double` on x86-64: truncation; NaN and out-of-range give `INT64_MIN`.
pub(crate) fn c_int64(f: f64) -> i64 {
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

/// C++'s `(uint64_t)double` as GCC compiles it for x86-64 (the engines' `RID(1e19)`):
/// below 2^63 (NaN too) as `(int64_t)`, so negatives wrap; from 2^63 the same of the
/// value less 2^63 with the top bit set, which makes 0 from 2^64 up.
pub(crate) fn c_uint64(f: f64) -> u64 {
    const TWO_63: f64 = 9.223_372_036_854_776e18;
    if f.is_nan() || f < TWO_63 {
        c_int64(f) as u64
    } else {
        c_int64(f - TWO_63) as u64 ^ 1 << 63
    }
}

/// C++'s `(int32_t)double` (or float) on x86-64: truncation; NaN and out-of-range give
/// `INT32_MIN`.
pub(crate) fn c_int32(f: f64) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&f) {
        f as i32
    } else {
        i32::MIN
    }
}

/// `Color::hex`: `0xRRGGBBAA`.
fn color_hex(c: u32) -> Color {
    let channel = |shift: u32| ((c >> shift) & 0xFF) as f32 / 255.0;
    Color::new(channel(24), channel(16), channel(8), channel(0))
}
