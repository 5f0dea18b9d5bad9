//! Godot's math types: plain `f32` structs that travel through serde as tuples of
//! floats behind a marker name (so serde_json or bincode see an ordinary tuple).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{self, Serialize, SerializeTupleStruct, Serializer};

use crate::error::{Error, ErrorKind};

/// A math type with a fixed number of `f32` on the wire, in wire order.
pub(crate) trait Floats: Sized {
    const N: usize;
    /// `[f32; N]`: a buffer of exactly the wire floats (no 16-float scratch to clear).
    type Buf: Default + AsRef<[f32]> + AsMut<[f32]>;
    const MARKER: &'static str;
    const NAME: &'static str;
    fn write(&self, out: &mut [f32]);
    fn read(v: &[f32]) -> Self;

    /// The wire floats (the first `N` of 16).
    fn floats(&self) -> impl Iterator<Item = f32> {
        let mut v = [0.0; 16];
        self.write(&mut v[..Self::N]);
        v.into_iter().take(Self::N)
    }
}

#[inline]
pub(crate) fn ser_floats<T: Floats, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = T::Buf::default();
    v.write(buf.as_mut());
    let buf = buf.as_ref();
    if cfg!(target_endian = "little")
        && (crate::ser::is_serializer::<S>()
            || crate::raw::is_vec_serializer::<S>()
            || crate::value::is_variant_serializer::<S>())
    {
        // Ours (bytes, raw or `to_variant`): the floats in one piece, not a field at
        // a time.
        return s.serialize_newtype_struct(T::MARKER, &WireFloats(buf));
    }
    let mut t = s.serialize_tuple_struct(T::MARKER, T::N)?;
    for f in buf {
        t.serialize_field(f)?;
    }
    t.end()
}

/// A math value's wire floats, which serialize as their little-endian bytes.
struct WireFloats<'a>(&'a [f32]);

impl Serialize for WireFloats<'_> {
    #[inline(always)]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytemuck::cast_slice(self.0))
    }
}

/// Takes a math value's floats, given as their little-endian bytes (`WireFloats`), to
/// `F`, and refuses anything else: the serializer of a math type's marker in the
/// serializers that take the floats in one piece.
pub(crate) struct FloatBytes<F>(pub(crate) F);

#[cold]
fn not_float_bytes() -> Error {
    Error::new(ErrorKind::Message(
        "a math value's newtype holds its floats' bytes".into(),
    ))
}

/// The methods of [`FloatBytes`] that refuse what they are given.
macro_rules! refuse {
    ($($m:ident($($t:ty),*) -> $ok:ty;)*) => {$(
        fn $m(self, $(_: $t),*) -> Result<$ok, Error> {
            Err(not_float_bytes())
        }
    )*};
}

impl<R, F: FnOnce(&[u8]) -> Result<R, Error>> Serializer for FloatBytes<F> {
    type Ok = R;
    type Error = Error;
    type SerializeSeq = ser::Impossible<R, Error>;
    type SerializeTuple = ser::Impossible<R, Error>;
    type SerializeTupleStruct = ser::Impossible<R, Error>;
    type SerializeTupleVariant = ser::Impossible<R, Error>;
    type SerializeMap = ser::Impossible<R, Error>;
    type SerializeStruct = ser::Impossible<R, Error>;
    type SerializeStructVariant = ser::Impossible<R, Error>;

    #[inline(always)]
    fn serialize_bytes(self, v: &[u8]) -> Result<R, Error> {
        (self.0)(v)
    }
    refuse! {
        serialize_bool(bool) -> R;
        serialize_i8(i8) -> R;
        serialize_i16(i16) -> R;
        serialize_i32(i32) -> R;
        serialize_i64(i64) -> R;
        serialize_u8(u8) -> R;
        serialize_u16(u16) -> R;
        serialize_u32(u32) -> R;
        serialize_u64(u64) -> R;
        serialize_f32(f32) -> R;
        serialize_f64(f64) -> R;
        serialize_char(char) -> R;
        serialize_str(&str) -> R;
        serialize_none() -> R;
        serialize_unit() -> R;
        serialize_unit_struct(&'static str) -> R;
        serialize_unit_variant(&'static str, u32, &'static str) -> R;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<R, Error> {
        Err(not_float_bytes())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<R, Error> {
        Err(not_float_bytes())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<R, Error> {
        Err(not_float_bytes())
    }
}

/// A math value from its floats' little-endian bytes (`WireFloats`).
#[inline]
pub(crate) fn from_wire<T: Floats>(bytes: &[u8]) -> Result<T, Error> {
    FloatsVisitor(PhantomData).visit_bytes(bytes)
}

struct FloatsVisitor<T>(PhantomData<T>);

impl<'de, T: Floats> Visitor<'de> for FloatsVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} ({} floats)", T::NAME, T::N)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut buf = [0f32; 16];
        for (i, slot) in buf[..T::N].iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(T::N + 1, &self));
        }
        Ok(T::read(&buf[..T::N]))
    }

    /// The floats in one piece, little endian: what the crate's own decoders give
    /// (for `f32` reals), lighter than a sequence of `N` elements.
    #[inline]
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<T, E> {
        let mut buf = T::Buf::default();
        let floats = buf.as_mut();
        if v.len() != 4 * floats.len() {
            return Err(E::invalid_length(v.len() / 4, &self));
        }
        bytemuck::cast_slice_mut::<f32, u8>(floats).copy_from_slice(v);
        for f in floats.iter_mut() {
            *f = f32::from_bits(u32::from_le(f.to_bits()));
        }
        Ok(T::read(buf.as_ref()))
    }
}

#[inline]
pub(crate) fn de_floats<'de, T: Floats, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_tuple_struct(T::MARKER, T::N, FloatsVisitor(PhantomData))
}

macro_rules! math_type {
    ($ty:ident, $name:literal, $n:literal, |$s:ident, $o:ident| $write:block, |$v:ident| $read:expr) => {
        impl $crate::types::math::Floats for $ty {
            const N: usize = $n;
            type Buf = [f32; $n];
            const MARKER: &'static str = $crate::VariantType::$ty.marker();
            const NAME: &'static str = $name;
            #[inline]
            fn write(&self, $o: &mut [f32]) {
                let $s = self;
                $write
            }
            #[inline]
            fn read($v: &[f32]) -> Self {
                $read
            }
        }

        impl serde::Serialize for $ty {
            #[inline]
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::types::math::ser_floats(self, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::types::math::de_floats(d)
            }
        }
    };
}
pub(crate) use math_type;

/// `Vector2(x, y)`.
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::NoUninit)]
// C layout: a slice of them is the floats of a pool array, in order.
#[repr(C)]
pub struct Vector2 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
}

/// `Vector3(x, y, z)`.
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::NoUninit)]
// C layout: a slice of them is the floats of a pool array, in order.
#[repr(C)]
pub struct Vector3 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
}

/// `Rect2(position, size)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect2 {
    /// Top-left corner.
    pub position: Vector2,
    /// Width and height.
    pub size: Vector2,
}

/// `Transform2D(x, y, origin)`: two axis columns and the origin.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Transform2D {
    /// The X axis column.
    pub x: Vector2,
    /// The Y axis column.
    pub y: Vector2,
    /// The translation.
    pub origin: Vector2,
}

/// `Plane(normal, d)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Plane {
    /// The normal.
    pub normal: Vector3,
    /// Distance from the origin.
    pub d: f32,
}

/// `Quat(x, y, z, w)` (Godot 4: `Quaternion`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
    /// w.
    pub w: f32,
}

/// `AABB(position, size)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Aabb {
    /// The minimum corner.
    pub position: Vector3,
    /// The extent.
    pub size: Vector3,
}

/// `Basis(x, y, z)`: the three axis columns, as `basis.x` in GDScript.
///
/// On the wire Godot writes its internal rows: `x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Basis {
    /// The X axis column.
    pub x: Vector3,
    /// The Y axis column.
    pub y: Vector3,
    /// The Z axis column.
    pub z: Vector3,
}

/// `Transform(basis, origin)` (Godot 4: `Transform3D`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Transform {
    /// Rotation, scale and shear.
    pub basis: Basis,
    /// The translation.
    pub origin: Vector3,
}

/// `Color(r, g, b, a)`, components usually in 0..1.
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::NoUninit)]
// C layout: a slice of them is the floats of a pool array, in order.
#[repr(C)]
pub struct Color {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Alpha.
    pub a: f32,
}

impl Vector2 {
    /// `Vector2(x, y)`.
    pub const fn new(x: f32, y: f32) -> Self {
        Vector2 { x, y }
    }
}

impl Vector3 {
    /// `Vector3(x, y, z)`.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Vector3 { x, y, z }
    }
}

impl Rect2 {
    /// `Rect2(x, y, width, height)`.
    pub const fn new(x: f32, y: f32, width: f32, height: f32) -> Self {
        Rect2 {
            position: Vector2::new(x, y),
            size: Vector2::new(width, height),
        }
    }
}

impl Transform2D {
    /// `Transform2D(x_axis, y_axis, origin)`.
    pub const fn new(x: Vector2, y: Vector2, origin: Vector2) -> Self {
        Transform2D { x, y, origin }
    }

    /// The identity transform.
    pub const IDENTITY: Transform2D = Transform2D::new(
        Vector2::new(1.0, 0.0),
        Vector2::new(0.0, 1.0),
        Vector2::new(0.0, 0.0),
    );
}

impl Plane {
    /// `Plane(a, b, c, d)`: normal `(a, b, c)` and distance `d`.
    pub const fn new(a: f32, b: f32, c: f32, d: f32) -> Self {
        Plane {
            normal: Vector3::new(a, b, c),
            d,
        }
    }
}

impl Quat {
    /// `Quat(x, y, z, w)`.
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
        Quat { x, y, z, w }
    }

    /// The identity rotation `Quat(0, 0, 0, 1)`.
    pub const IDENTITY: Quat = Quat::new(0.0, 0.0, 0.0, 1.0);
}

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Aabb {
    /// `AABB(position, size)`.
    pub const fn new(position: Vector3, size: Vector3) -> Self {
        Aabb { position, size }
    }
}

impl Basis {
    /// `Basis(x_axis, y_axis, z_axis)` from its columns.
    pub const fn from_columns(x: Vector3, y: Vector3, z: Vector3) -> Self {
        Basis { x, y, z }
    }

    /// The identity basis.
    pub const IDENTITY: Basis = Basis::from_columns(
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(0.0, 1.0, 0.0),
        Vector3::new(0.0, 0.0, 1.0),
    );

    /// Godot's internal row-major order, as on the wire.
    pub fn rows(&self) -> [[f32; 3]; 3] {
        [
            [self.x.x, self.y.x, self.z.x],
            [self.x.y, self.y.y, self.z.y],
            [self.x.z, self.y.z, self.z.z],
        ]
    }

    /// From Godot's internal rows.
    pub fn from_rows(r: [[f32; 3]; 3]) -> Self {
        Basis::from_columns(
            Vector3::new(r[0][0], r[1][0], r[2][0]),
            Vector3::new(r[0][1], r[1][1], r[2][1]),
            Vector3::new(r[0][2], r[1][2], r[2][2]),
        )
    }
}

impl Default for Basis {
    fn default() -> Self {
        Basis::IDENTITY
    }
}

impl Transform {
    /// `Transform(basis, origin)`.
    pub const fn new(basis: Basis, origin: Vector3) -> Self {
        Transform { basis, origin }
    }
}

impl Color {
    /// `Color(r, g, b, a)`.
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Self {
        Color { r, g, b, a }
    }

    /// `Color(r, g, b)`, opaque.
    pub const fn rgb(r: f32, g: f32, b: f32) -> Self {
        Color { r, g, b, a: 1.0 }
    }
}

impl Default for Color {
    /// Godot's default: opaque black.
    fn default() -> Self {
        Color::new(0.0, 0.0, 0.0, 1.0)
    }
}

math_type!(
    Vector2,
    "Vector2",
    2,
    |s, o| { o.copy_from_slice(&[s.x, s.y]) },
    |v| Vector2::new(v[0], v[1])
);
math_type!(
    Vector3,
    "Vector3",
    3,
    |s, o| { o.copy_from_slice(&[s.x, s.y, s.z]) },
    |v| Vector3::new(v[0], v[1], v[2])
);
math_type!(
    Rect2,
    "Rect2",
    4,
    |s, o| { o.copy_from_slice(&[s.position.x, s.position.y, s.size.x, s.size.y]) },
    |v| Rect2::new(v[0], v[1], v[2], v[3])
);
math_type!(
    Transform2D,
    "Transform2D",
    6,
    |s, o| { o.copy_from_slice(&[s.x.x, s.x.y, s.y.x, s.y.y, s.origin.x, s.origin.y]) },
    |v| Transform2D::new(
        Vector2::new(v[0], v[1]),
        Vector2::new(v[2], v[3]),
        Vector2::new(v[4], v[5])
    )
);
math_type!(
    Plane,
    "Plane",
    4,
    |s, o| { o.copy_from_slice(&[s.normal.x, s.normal.y, s.normal.z, s.d]) },
    |v| Plane::new(v[0], v[1], v[2], v[3])
);
math_type!(
    Quat,
    "Quat",
    4,
    |s, o| { o.copy_from_slice(&[s.x, s.y, s.z, s.w]) },
    |v| Quat::new(v[0], v[1], v[2], v[3])
);
math_type!(
    Aabb,
    "AABB",
    6,
    |s, o| {
        o.copy_from_slice(&[
            s.position.x,
            s.position.y,
            s.position.z,
            s.size.x,
            s.size.y,
            s.size.z,
        ])
    },
    |v| Aabb::new(
        Vector3::new(v[0], v[1], v[2]),
        Vector3::new(v[3], v[4], v[5])
    )
);
math_type!(
    Basis,
    "Basis",
    9,
    |s, o| {
        let r = s.rows();
        o.copy_from_slice(&[
            r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[2][0], r[2][1], r[2][2],
        ])
    },
    |v| Basis::from_rows([[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]])
);
math_type!(
    Transform,
    "Transform",
    12,
    |s, o| {
        s.basis.write(&mut o[..9]);
        o[9..].copy_from_slice(&[s.origin.x, s.origin.y, s.origin.z]);
    },
    |v| Transform::new(Basis::read(&v[..9]), Vector3::new(v[9], v[10], v[11]))
);
math_type!(
    Color,
    "Color",
    4,
    |s, o| { o.copy_from_slice(&[s.r, s.g, s.b, s.a]) },
    |v| Color::new(v[0], v[1], v[2], v[3])
);

#[cfg(test)]
mod tests {
    use serde::de::value::{BytesDeserializer, Error};
    use serde::Deserialize;

    use super::*;

    /// The crate's decoders hand a math value's floats over as little-endian bytes: all
    /// of them, in wire order, or an error.
    #[test]
    fn floats_as_bytes_are_read_in_wire_order() {
        let bytes: Vec<u8> = [1.5f32, -2.0, 0.25, 8.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let q = Quat::deserialize(BytesDeserializer::<Error>::new(&bytes)).unwrap();
        assert_eq!(q, Quat::new(1.5, -2.0, 0.25, 8.0));
        for n in [0, 12, 15, 17, 20] {
            let e = Quat::deserialize(BytesDeserializer::<Error>::new(&bytes.repeat(2)[..n]))
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("invalid length {}, expected a Quat (4 floats)", n / 4)
            );
        }
    }
}
