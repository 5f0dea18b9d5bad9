//! Godot's `Variant::operator<`, per dialect, as the engines' text writers use it to
//! order dictionary keys.
//!
//! The engine's `<` is first by type id, then by the type's `OP_LESS` where one exists
//! (every other pair is "not less"). It is not a strict weak order, and it is
//! reproduced as it is, quirks included, because the key order of the text follows
//! from it (see `sort.rs`).

use super::Variant;
use crate::Dialect;

/// The comparator of the dialect's text writer: Godot 3's `List<Variant>::sort()`, or
/// Godot 4's `StringLikeVariantOrder` (a String and a StringName compare as strings).
/// `godot32`: Godot 3.2's vector `<`, which takes nearly equal components as equal.
pub(crate) fn key_less(a: &Variant, b: &Variant, dialect: Dialect, godot32: bool) -> bool {
    if dialect == Dialect::Godot4 {
        if let (Some(x), Some(y)) = (a.as_str_like(), b.as_str_like()) {
            return str_less(x, y);
        }
    }
    less(a, b, dialect, godot32)
}

/// The type id the engine gives the decoded value; types the dialect lacks (a Godot 4
/// value printed as Godot 3 text) come after all others, by type.
fn type_rank(v: &Variant, dialect: Dialect) -> (u32, crate::VariantType) {
    let ty = v.get_type();
    (dialect.id_of(ty).unwrap_or(u32::MAX), ty)
}

/// `Variant::operator<` of the dialect.
fn less(a: &Variant, b: &Variant, dialect: Dialect, godot32: bool) -> bool {
    let (ta, tb) = (type_rank(a, dialect), type_rank(b, dialect));
    if ta != tb {
        return ta < tb;
    }
    if dialect == Dialect::Godot4 {
        less4(a, b)
    } else {
        less3(a, b, godot32)
    }
}

/// Godot's `String::operator<`: by code point, the string ending at its first NUL.
fn str_less(a: &str, b: &str) -> bool {
    fn cut(s: &str) -> &str {
        s.split('\0').next().unwrap_or("")
    }
    cut(a) < cut(b)
}

/// `(x == y) ? (next) : (x < y)`: the shape of every Godot vector `<`.
macro_rules! lexicographic {
    ($a:expr, $b:expr; $last:ident) => { $a.$last < $b.$last };
    ($a:expr, $b:expr; $first:ident $(, $rest:ident)+) => {
        if $a.$first == $b.$first {
            lexicographic!($a, $b; $($rest),+)
        } else {
            $a.$first < $b.$first
        }
    };
}

fn less4(a: &Variant, b: &Variant) -> bool {
    use Variant as V;
    match (a, b) {
        (V::Bool(x), V::Bool(y)) => !x & y,
        (V::Int(x), V::Int(y)) => x < y,
        (V::Float(x), V::Float(y)) => x < y,
        (V::String(x), V::String(y)) => str_less(x, y),
        (V::StringName(x), V::StringName(y)) => str_less(&x.0, &y.0),
        (V::Vector2(x), V::Vector2(y)) => lexicographic!(x, y; x, y),
        (V::Vector2i(x), V::Vector2i(y)) => lexicographic!(x, y; x, y),
        (V::Vector3(x), V::Vector3(y)) => lexicographic!(x, y; x, y, z),
        (V::Vector3i(x), V::Vector3i(y)) => lexicographic!(x, y; x, y, z),
        (V::Vector4(x), V::Vector4(y)) => lexicographic!(x, y; x, y, z, w),
        (V::Vector4i(x), V::Vector4i(y)) => lexicographic!(x, y; x, y, z, w),
        (V::Rid(x), V::Rid(y)) => x.0 < y.0,
        _ => match (a.as_array(), b.as_array()) {
            // `Array::operator<`: element by element, then the shorter first.
            (Some(x), Some(y)) => {
                for (p, q) in x.iter().zip(y) {
                    if less(p, q, Dialect::Godot4, false) {
                        return true;
                    }
                    if less(q, p, Dialect::Godot4, false) {
                        return false;
                    }
                }
                x.len() < y.len()
            }
            _ => false,
        },
    }
}

fn less3(a: &Variant, b: &Variant, godot32: bool) -> bool {
    use Variant as V;
    let same = |x: f32, y: f32| if godot32 { equal_approx(x, y) } else { x == y };
    match (a, b) {
        (V::Bool(x), V::Bool(y)) => !x & y,
        (V::Int(x), V::Int(y)) => x < y,
        (V::Float(x), V::Float(y)) => x < y,
        (V::String(x), V::String(y)) => str_less(x, y),
        (V::Vector2(x), V::Vector2(y)) => {
            if same(x.x, y.x) {
                x.y < y.y
            } else {
                x.x < y.x
            }
        }
        (V::Vector3(x), V::Vector3(y)) => {
            if !same(x.x, y.x) {
                x.x < y.x
            } else if !same(x.y, y.y) {
                x.y < y.y
            } else {
                x.z < y.z
            }
        }
        // Godot 3's Array `<` is true as soon as one element is not less.
        (V::Array(x), V::Array(y)) => {
            y.len() >= x.len()
                && x.iter()
                    .zip(y)
                    .any(|(p, q)| !less(p, q, Dialect::Godot3, godot32))
        }
        (V::PoolByteArray(x), V::PoolByteArray(y)) => pool_less(x, y),
        (V::PoolIntArray(x), V::PoolIntArray(y)) => pool_less(x, y),
        (V::PoolRealArray(x), V::PoolRealArray(y)) => pool_less(x, y),
        (V::PoolStringArray(x), V::PoolStringArray(y)) => pool_less(x, y),
        // The engine reads a PoolVector2Array's memory as Vector3s here.
        (V::PoolVector2Array(x), V::PoolVector2Array(y)) => {
            let flat = |p: &[crate::Vector2]| -> Vec<[f32; 3]> {
                let f: Vec<f32> = p.iter().flat_map(|v| [v.x, v.y]).collect();
                f.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
            };
            pool_less(&flat(x), &flat(y))
        }
        (V::PoolVector3Array(x), V::PoolVector3Array(y)) => {
            let raw = |p: &[crate::Vector3]| -> Vec<[f32; 3]> {
                p.iter().map(|v| [v.x, v.y, v.z]).collect()
            };
            pool_less(&raw(x), &raw(y))
        }
        (V::PoolColorArray(x), V::PoolColorArray(y)) => {
            let raw = |p: &[crate::Color]| -> Vec<[f32; 4]> {
                p.iter().map(|c| [c.r, c.g, c.b, c.a]).collect()
            };
            pool_less(&raw(x), &raw(y))
        }
        _ => false,
    }
}

/// Godot 3.2's `Math::is_equal_approx`, in single precision as there.
fn equal_approx(a: f32, b: f32) -> bool {
    a == b || (a - b).abs() < (1e-5 * a.abs()).max(1e-5)
}

/// Godot 3's pool array `<`: shorter is less; otherwise less as soon as an element
/// differs. Where `a` is longer and `b` is a prefix of it, the engine reads past `b`'s
/// end; that garbage almost surely differs, which is taken as its result.
fn pool_less<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() != b.len() || a.iter().zip(b).any(|(p, q)| p != q)
}
