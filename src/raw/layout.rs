//! A raw packet's layout given as text (`u8 str0 vec3 quat`): fields read and written
//! without a Rust type, each with its byte offset. For tools (the CLI's `--layout`) and
//! for checking a protocol against the engine field by field.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::config::Config;
use super::de::Deserializer;
use super::ser::Serializer;
use super::{Half, Var};
use crate::error::{Error, ErrorKind, Result};
use crate::{Color, Quat, Variant, Vector2, Vector3};

/// One field of a layout, by the `StreamPeer` call that writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `u8`: `put_u8`.
    U8,
    /// `i8`: `put_8`.
    I8,
    /// `u16`: `put_u16`.
    U16,
    /// `i16`: `put_16`.
    I16,
    /// `u32`: `put_u32`.
    U32,
    /// `i32`: `put_32`.
    I32,
    /// `u64`: `put_u64`.
    U64,
    /// `i64`: `put_64`.
    I64,
    /// `half`: `put_half`.
    Half,
    /// `f32`: `put_float`.
    F32,
    /// `f64`: `put_double`.
    F64,
    /// `bool`: `put_u8` of 0 or 1.
    Bool,
    /// `str0`: NUL-terminated UTF-8.
    Str0,
    /// `utf8`: `put_utf8_string`.
    Utf8,
    /// `str3`: Godot 3's `put_string` (Latin-1).
    String3,
    /// `str4`: Godot 4's `put_string` (ASCII).
    String4,
    /// `var`: `put_var`.
    Var,
    /// `vec2`: two `put_float`.
    Vector2,
    /// `vec3`: three `put_float`.
    Vector3,
    /// `quat`: four `put_float`, x y z w.
    Quat,
    /// `color`: four `put_float`, r g b a.
    Color,
    /// `bytes`: a count (the configured width), then that many bytes.
    Bytes,
    /// `rest`: every byte to the end of the packet.
    Rest,
}

const NAMES: [(&str, Field); 23] = [
    ("u8", Field::U8),
    ("i8", Field::I8),
    ("u16", Field::U16),
    ("i16", Field::I16),
    ("u32", Field::U32),
    ("i32", Field::I32),
    ("u64", Field::U64),
    ("i64", Field::I64),
    ("half", Field::Half),
    ("f32", Field::F32),
    ("f64", Field::F64),
    ("bool", Field::Bool),
    ("str0", Field::Str0),
    ("utf8", Field::Utf8),
    ("str3", Field::String3),
    ("str4", Field::String4),
    ("var", Field::Var),
    ("vec2", Field::Vector2),
    ("vec3", Field::Vector3),
    ("quat", Field::Quat),
    ("color", Field::Color),
    ("bytes", Field::Bytes),
    ("rest", Field::Rest),
];

impl Field {
    /// Its name in a layout string.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("", |(n, _)| n)
    }

    /// Reads this field at the deserializer's position.
    pub fn read(self, de: &mut Deserializer<'_>) -> Result<Value> {
        Ok(match self {
            Field::U8 => Value::Uint(u8::deserialize(de)?.into()),
            Field::I8 => Value::Int(i8::deserialize(de)?.into()),
            Field::U16 => Value::Uint(u16::deserialize(de)?.into()),
            Field::I16 => Value::Int(i16::deserialize(de)?.into()),
            Field::U32 => Value::Uint(u32::deserialize(de)?.into()),
            Field::I32 => Value::Int(i32::deserialize(de)?.into()),
            Field::U64 => Value::Uint(u64::deserialize(de)?),
            Field::I64 => Value::Int(i64::deserialize(de)?),
            Field::Half => Value::Half(Half::deserialize(de)?),
            Field::F32 => Value::F32(f32::deserialize(de)?),
            Field::F64 => Value::F64(f64::deserialize(de)?),
            Field::Bool => Value::Bool(bool::deserialize(de)?),
            Field::Str0 => Value::Str(super::str0::deserialize(de)?),
            Field::Utf8 => Value::Str(super::utf8::deserialize(de)?),
            Field::String3 => Value::Str(super::string3::deserialize(de)?),
            Field::String4 => Value::Str(super::string4::deserialize(de)?),
            Field::Var => Value::Var(Var::<Variant>::deserialize(de)?.0),
            Field::Vector2 => Value::Vector2(Vector2::deserialize(de)?),
            Field::Vector3 => Value::Vector3(Vector3::deserialize(de)?),
            Field::Quat => Value::Quat(Quat::deserialize(de)?),
            Field::Color => Value::Color(Color::deserialize(de)?),
            Field::Bytes => Value::Bytes(serde_bytes::ByteBuf::deserialize(de)?.into_vec()),
            Field::Rest => {
                Value::Bytes(super::rest::deserialize::<serde_bytes::ByteBuf, _>(de)?.into_vec())
            }
        })
    }

    /// Writes `value` as this field; a value of another kind is refused.
    pub fn write<W: std::io::Write>(self, value: &Value, ser: &mut Serializer<W>) -> Result<()> {
        let bytes = |b: &Vec<u8>| serde_bytes::Bytes::new(b).to_owned();
        match (self, value) {
            (Field::U8, Value::Uint(v)) => narrow::<u8, _>(*v, ser),
            (Field::U16, Value::Uint(v)) => narrow::<u16, _>(*v, ser),
            (Field::U32, Value::Uint(v)) => narrow::<u32, _>(*v, ser),
            (Field::U64, Value::Uint(v)) => v.serialize(ser),
            (Field::I8, Value::Int(v)) => narrow::<i8, _>(*v, ser),
            (Field::I16, Value::Int(v)) => narrow::<i16, _>(*v, ser),
            (Field::I32, Value::Int(v)) => narrow::<i32, _>(*v, ser),
            (Field::I64, Value::Int(v)) => v.serialize(ser),
            (Field::Half, Value::Half(v)) => v.serialize(ser),
            (Field::F32, Value::F32(v)) => v.serialize(ser),
            (Field::F64, Value::F64(v)) => v.serialize(ser),
            (Field::Bool, Value::Bool(v)) => v.serialize(ser),
            (Field::Str0, Value::Str(v)) => super::str0::serialize(v, ser),
            (Field::Utf8, Value::Str(v)) => super::utf8::serialize(v, ser),
            (Field::String3, Value::Str(v)) => super::string3::serialize(v, ser),
            (Field::String4, Value::Str(v)) => super::string4::serialize(v, ser),
            (Field::Var, Value::Var(v)) => Var(v).serialize(ser),
            (Field::Vector2, Value::Vector2(v)) => v.serialize(ser),
            (Field::Vector3, Value::Vector3(v)) => v.serialize(ser),
            (Field::Quat, Value::Quat(v)) => v.serialize(ser),
            (Field::Color, Value::Color(v)) => v.serialize(ser),
            (Field::Bytes, Value::Bytes(v)) => bytes(v).serialize(ser),
            (Field::Rest, Value::Bytes(v)) => super::rest::serialize(&bytes(v), ser),
            (field, value) => Err(Error::new(ErrorKind::Message(format!(
                "a {} field cannot hold {value}",
                field.name()
            )))),
        }
    }
}

/// `v` as a narrower integer, refused when it does not fit.
fn narrow<T, W>(v: impl Copy + fmt::Display + TryInto<T>, ser: &mut Serializer<W>) -> Result<()>
where
    T: Serialize,
    W: std::io::Write,
{
    match v.try_into() {
        Ok(n) => n.serialize(ser),
        Err(_) => Err(Error::new(ErrorKind::Unrepresentable(format!(
            "{v} does not fit a {}",
            std::any::type_name::<T>()
        )))),
    }
}

impl FromStr for Field {
    type Err = Error;
    fn from_str(s: &str) -> Result<Field> {
        NAMES
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
                Error::new(ErrorKind::Message(format!(
                    "unknown layout field {s:?} (one of {})",
                    names.join(" ")
                )))
            })
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `u8` … `u64`.
    Uint(u64),
    /// `i8` … `i64`.
    Int(i64),
    /// `half`.
    Half(Half),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// `bool`.
    Bool(bool),
    /// Any string field.
    Str(String),
    /// `var`.
    Var(Variant),
    /// `vec2`.
    Vector2(Vector2),
    /// `vec3`.
    Vector3(Vector3),
    /// `quat`.
    Quat(Quat),
    /// `color`.
    Color(Color),
    /// `bytes` or `rest`.
    Bytes(Vec<u8>),
}

impl fmt::Display for Value {
    /// Numbers as numbers, strings quoted, math types and `var` in Godot's text form,
    /// bytes in hex.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Uint(v) => write!(f, "{v}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Half(v) => write!(f, "{:?}", v.to_f32()),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Str(v) => write!(f, "{v:?}"),
            Value::Var(v) => write!(f, "{v}"),
            Value::Vector2(v) => write!(f, "{}", Variant::Vector2(*v)),
            Value::Vector3(v) => write!(f, "{}", Variant::Vector3(*v)),
            Value::Quat(v) => write!(f, "{}", Variant::Quat(*v)),
            Value::Color(v) => write!(f, "{}", Variant::Color(*v)),
            Value::Bytes(v) => {
                for b in v {
                    write!(f, "{b:02x}")?;
                }
                Ok(())
            }
        }
    }
}

/// A packet layout: fields in order, parsed from names separated by spaces or commas.
///
/// ```
/// use godot_bin::raw::{Config, Layout, Value};
/// let layout: Layout = "u8 str0 vec3".parse()?;
/// let bytes = [8, b'a', 0, 0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 0, 0];
/// let fields = layout.decode(&bytes, &Config::new())?;
/// assert_eq!(fields[0], (0, Value::Uint(8)));
/// assert_eq!(fields[1], (1, Value::Str("a".into())));
/// assert_eq!(fields[2].0, 3);
/// assert_eq!(fields[2].1.to_string(), "Vector3( 1, 0, 0 )");
/// assert_eq!(layout.encode(&[fields[0].1.clone(), fields[1].1.clone(), fields[2].1.clone()], &Config::new())?, bytes);
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout(pub Vec<Field>);

impl Layout {
    /// Reads every field of `bytes`, which must hold exactly them: each value with
    /// the byte offset where it starts.
    pub fn decode(&self, bytes: &[u8], cfg: &Config) -> Result<Vec<(usize, Value)>> {
        let mut de = Deserializer::from_slice(bytes, *cfg);
        let mut out = Vec::with_capacity(self.0.len());
        for field in &self.0 {
            let at = de.position();
            let value = field.read(&mut de).map_err(|e| e.or_at(at))?;
            out.push((at, value));
        }
        de.end()?;
        Ok(out)
    }

    /// Writes `values`, one per field.
    pub fn encode(&self, values: &[Value], cfg: &Config) -> Result<Vec<u8>> {
        if values.len() != self.0.len() {
            return Err(Error::new(ErrorKind::Message(format!(
                "{} values for a layout of {} fields",
                values.len(),
                self.0.len()
            ))));
        }
        let mut out = Vec::new();
        let mut ser = Serializer::new(&mut out, *cfg);
        for (field, value) in self.0.iter().zip(values) {
            field.write(value, &mut ser)?;
        }
        Ok(out)
    }
}

impl FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Layout> {
        s.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(str::parse)
            .collect::<Result<Vec<Field>>>()
            .map(Layout)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, field) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(field.name())?;
        }
        Ok(())
    }
}
