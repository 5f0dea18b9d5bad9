//! Types that only Godot 4 has: integer vectors, Vector4, Projection, StringName,
//! Callable and Signal.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTupleStruct, Serializer};

use crate::VariantType;

/// An integer vector type with a fixed number of `i32` on the wire.
pub(crate) trait Ints: Sized {
    const N: usize;
    const MARKER: &'static str;
    const NAME: &'static str;
    fn write(&self, out: &mut [i32]);
    fn read(v: &[i32]) -> Self;

    fn ints(&self) -> [i32; 4] {
        let mut v = [0; 4];
        self.write(&mut v[..Self::N]);
        v
    }
}

struct IntsVisitor<T>(PhantomData<T>);

impl<'de, T: Ints> Visitor<'de> for IntsVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} ({} ints)", T::NAME, T::N)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut buf = [0i32; 4];
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
}

macro_rules! int_type {
    ($ty:ident, $name:literal, $n:literal, [$($f:ident),*], $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $ty {
            $(#[doc = stringify!($f)] pub $f: i32,)*
        }

        impl $ty {
            #[doc = concat!("`", $name, "(", $(stringify!($f), ", ",)* ")`.")]
            pub const fn new($($f: i32),*) -> Self {
                $ty { $($f),* }
            }
        }

        impl Ints for $ty {
            const N: usize = $n;
            const MARKER: &'static str = VariantType::$ty.marker();
            const NAME: &'static str = $name;
            fn write(&self, out: &mut [i32]) {
                out.copy_from_slice(&[$(self.$f),*]);
            }
            fn read(v: &[i32]) -> Self {
                let mut it = v.iter().copied();
                $ty { $($f: it.next().unwrap_or_default()),* }
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut t = s.serialize_tuple_struct(Self::MARKER, $n)?;
                $(t.serialize_field(&self.$f)?;)*
                t.end()
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_tuple_struct(Self::MARKER, $n, IntsVisitor(PhantomData))
            }
        }
    };
}

int_type!(
    Vector2i,
    "Vector2i",
    2,
    [x, y],
    "`Vector2i(x, y)` (Godot 4)."
);
int_type!(
    Vector3i,
    "Vector3i",
    3,
    [x, y, z],
    "`Vector3i(x, y, z)` (Godot 4)."
);
int_type!(
    Vector4i,
    "Vector4i",
    4,
    [x, y, z, w],
    "`Vector4i(x, y, z, w)` (Godot 4)."
);

/// `Rect2i(position, size)` (Godot 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rect2i {
    /// Top-left corner.
    pub position: Vector2i,
    /// Width and height.
    pub size: Vector2i,
}

impl Rect2i {
    /// `Rect2i(x, y, width, height)`.
    pub const fn new(x: i32, y: i32, width: i32, height: i32) -> Self {
        Rect2i {
            position: Vector2i::new(x, y),
            size: Vector2i::new(width, height),
        }
    }
}

impl Ints for Rect2i {
    const N: usize = 4;
    const MARKER: &'static str = VariantType::Rect2i.marker();
    const NAME: &'static str = "Rect2i";
    fn write(&self, out: &mut [i32]) {
        out.copy_from_slice(&[self.position.x, self.position.y, self.size.x, self.size.y]);
    }
    fn read(v: &[i32]) -> Self {
        Rect2i::new(v[0], v[1], v[2], v[3])
    }
}

impl Serialize for Rect2i {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(Self::MARKER, 4)?;
        for v in &self.ints() {
            t.serialize_field(v)?;
        }
        t.end()
    }
}

impl<'de> Deserialize<'de> for Rect2i {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_tuple_struct(Self::MARKER, 4, IntsVisitor(PhantomData))
    }
}

/// `Vector4(x, y, z, w)` (Godot 4).
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::NoUninit)]
// C layout: a slice of them is the floats of a pool array, in order.
#[repr(C)]
pub struct Vector4 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
    /// w.
    pub w: f32,
}

impl Vector4 {
    /// `Vector4(x, y, z, w)`.
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
        Vector4 { x, y, z, w }
    }
}

/// `Projection(x, y, z, w)`: a 4×4 matrix as its four column vectors (Godot 4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    /// Column 0.
    pub x: Vector4,
    /// Column 1.
    pub y: Vector4,
    /// Column 2.
    pub z: Vector4,
    /// Column 3.
    pub w: Vector4,
}

impl Projection {
    /// From the four columns.
    pub const fn from_columns(x: Vector4, y: Vector4, z: Vector4, w: Vector4) -> Self {
        Projection { x, y, z, w }
    }

    /// The identity matrix.
    pub const IDENTITY: Projection = Projection::from_columns(
        Vector4::new(1.0, 0.0, 0.0, 0.0),
        Vector4::new(0.0, 1.0, 0.0, 0.0),
        Vector4::new(0.0, 0.0, 1.0, 0.0),
        Vector4::new(0.0, 0.0, 0.0, 1.0),
    );
}

impl Default for Projection {
    fn default() -> Self {
        Projection::IDENTITY
    }
}

crate::types::math::math_type!(
    Vector4,
    "Vector4",
    4,
    |s, o| { o.copy_from_slice(&[s.x, s.y, s.z, s.w]) },
    |v| Vector4::new(v[0], v[1], v[2], v[3])
);
crate::types::math::math_type!(
    Projection,
    "Projection",
    16,
    |s, o| {
        // Column-major on the wire.
        for (i, c) in [s.x, s.y, s.z, s.w].iter().enumerate() {
            c.write(&mut o[4 * i..4 * i + 4]);
        }
    },
    |v| Projection::from_columns(
        Vector4::read(&v[0..4]),
        Vector4::read(&v[4..8]),
        Vector4::read(&v[8..12]),
        Vector4::read(&v[12..16])
    )
);

/// `StringName` (Godot 4): an interned string, `&"name"` in GDScript. Same payload as
/// a String under its own type id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct StringName(pub String);

impl From<&str> for StringName {
    fn from(s: &str) -> Self {
        StringName(s.to_owned())
    }
}

impl fmt::Display for StringName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for StringName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(VariantType::StringName.marker(), &self.0)
    }
}

impl<'de> Deserialize<'de> for StringName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StringName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a StringName")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StringName, E> {
                Ok(StringName(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<StringName, E> {
                Ok(StringName(v))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<StringName, D::Error> {
                String::deserialize(d).map(StringName)
            }
        }
        d.deserialize_newtype_struct(VariantType::StringName.marker(), V)
    }
}

/// `Callable` (Godot 4). The engine writes only the type: target and method are not
/// sent, and a decoded Callable is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Callable;

impl Serialize for Callable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(VariantType::Callable.marker(), &())
    }
}

impl<'de> Deserialize<'de> for Callable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Callable;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Callable")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Callable, E> {
                Ok(Callable)
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Callable, D::Error> {
                <()>::deserialize(d).map(|_| Callable)
            }
        }
        d.deserialize_newtype_struct(VariantType::Callable.marker(), V)
    }
}

/// `Signal` (Godot 4): the signal name and the emitting object's instance id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Signal {
    /// The signal's name (empty for `Signal()`).
    pub name: String,
    /// The object's instance id (0 for none).
    pub object: u64,
}

impl Serialize for Signal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(VariantType::Signal.marker(), 2)?;
        t.serialize_field(&self.name)?;
        t.serialize_field(&self.object)?;
        t.end()
    }
}

impl<'de> Deserialize<'de> for Signal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Signal;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Signal (name, object id)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Signal, A::Error> {
                let name = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let object = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                Ok(Signal { name, object })
            }
        }
        d.deserialize_tuple_struct(VariantType::Signal.marker(), 2, V)
    }
}
