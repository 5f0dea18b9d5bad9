//! The serde access types: containers, pool array elements, enums and the `Variant`
//! type-tag handshake.

use std::sync::Arc;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::keys::Key;
use super::{Deserializer, Header, Read};
use crate::dialect::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::marker;
use crate::types::NodePath;

/// A container's end: an error when `left` of its items were not read.
fn all_read(left: usize) -> Result<()> {
    match left {
        0 => Ok(()),
        n => Err(unconsumed(n)),
    }
}

pub(crate) fn unconsumed(left: usize) -> Error {
    Error::new(ErrorKind::InvalidLength {
        len: left as u64,
        what: "a container with more items than the target type takes",
    })
}

/// Elements of an Array, or entries of a Dictionary.
pub(crate) struct SeqAccess<'a, R> {
    de: &'a mut Deserializer<R>,
    left: usize,
    /// Element (key) and value types every item must have (strict typed containers).
    declared: [Option<Declared>; 2],
}

/// A typed container's declared element type, as far as a header can be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Declared {
    Builtin(VariantType),
    /// A class or script: any Object, or null.
    Object,
}

impl Declared {
    pub(crate) fn of(t: &ContainerType) -> Option<Declared> {
        match t.kind {
            1 => VariantType::from_godot4_name(&t.name)
                .filter(|ty| *ty != VariantType::Nil)
                .map(|ty| match ty {
                    VariantType::Object => Declared::Object,
                    ty => Declared::Builtin(ty),
                }),
            2 | 3 => Some(Declared::Object),
            _ => None,
        }
    }

    fn admits(self, ty: VariantType) -> bool {
        match self {
            Declared::Builtin(want) => ty == want,
            Declared::Object => matches!(ty, VariantType::Object | VariantType::Nil),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Declared::Builtin(ty) => ty.name_in(crate::Dialect::Godot4),
            Declared::Object => "Object",
        }
    }
}

impl<'a, 'de, R: Read<'de>> SeqAccess<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>, left: usize) -> Self {
        SeqAccess {
            de,
            left,
            declared: [None, None],
        }
    }

    pub(crate) fn declared(mut self, declared: [Option<Declared>; 2]) -> Self {
        self.declared = declared;
        self
    }

    /// Refuses an item whose header is not of the declared type.
    #[inline]
    fn check(&mut self, which: usize) -> Result<()> {
        match self.declared[which] {
            None => Ok(()),
            Some(want) => self.check_declared(which, want),
        }
    }

    fn check_declared(&mut self, which: usize, want: Declared) -> Result<()> {
        let h = self.de.peek()?;
        if want.admits(h.ty) {
            return Ok(());
        }
        let role = if which == 0 { "element" } else { "value" };
        Err(Error::at(
            ErrorKind::InvalidType {
                found: format!("a {} {role}", h.ty.name_in(crate::Dialect::Godot4)),
                expected: format!("the declared {role} type {}", want.name()),
            },
            h.at,
        ))
    }

    pub(crate) fn finish(&self) -> Result<()> {
        all_read(self.left)
    }
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for SeqAccess<'_, R> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.check(0)?;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(self.left, 4))
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for SeqAccess<'_, R> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.check(0)?;
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.check(1)?;
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(self.left, 8))
    }
}

/// A struct's entries from a plain Dictionary. A key that is one of the struct's own
/// field names goes to the field visitor as that name, compared with the input's bytes
/// instead of read as text; any other key is read the general way.
pub(crate) struct StructAccess<'a, R> {
    de: &'a mut Deserializer<R>,
    left: usize,
    keys: Arc<[Key]>,
    /// The field expected next: the one after the last key found.
    next: usize,
}

impl<'a, 'de, R: Read<'de>> StructAccess<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>, left: usize, keys: Arc<[Key]>) -> Self {
        StructAccess {
            de,
            left,
            keys,
            next: 0,
        }
    }

    /// Checks that every entry was read, and gives the keys back for the next struct.
    pub(crate) fn finish(self) -> Result<Arc<[Key]>> {
        all_read(self.left)?;
        Ok(self.keys)
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for StructAccess<'_, R> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let expected = match self.keys.get(self.next) {
            Some(key) => self
                .de
                .struct_key(key)
                .map(|size| (self.next, key.name, size)),
            None => None,
        };
        match expected.or_else(|| self.de.any_field_key(&self.keys)) {
            Some((i, name, size)) => {
                self.next = i + 1;
                seed.deserialize(FieldKey {
                    de: &mut *self.de,
                    name,
                    size,
                })
                .map(Some)
            }
            None => seed.deserialize(&mut *self.de).map(Some),
        }
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(self.left, 8))
    }
}

/// A key whose `size` bytes ahead are the String `name`: asked for as text, it is
/// `name`; asked for as anything else, it is read the general way.
struct FieldKey<'a, R> {
    de: &'a mut Deserializer<R>,
    name: &'static str,
    size: usize,
}

impl<'de, R: Read<'de>> FieldKey<'_, R> {
    #[inline]
    fn name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.de.read.pos();
        self.de.read.take_if(self.size, |_| true);
        visitor
            .visit_borrowed_str::<Error>(self.name)
            .map_err(|e| e.or_at(at))
    }
}

/// `FieldKey`'s methods that read the key the general way.
macro_rules! general {
    ($($m:ident)*) => {$(
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            de::Deserializer::$m(&mut *self.de, visitor)
        }
    )*};
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for FieldKey<'_, R> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.name(visitor)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.name(visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.name(visitor)
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.name(visitor)
    }

    general! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes
        deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq
        deserialize_map deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_unit_struct(&mut *self.de, name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_newtype_struct(&mut *self.de, name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple(&mut *self.de, len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple_struct(&mut *self.de, name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(&mut *self.de, name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_enum(&mut *self.de, name, variants, visitor)
    }
}

/// The headerless strings of a PoolStringArray.
pub(crate) struct StrSeq<'a, R> {
    de: &'a mut Deserializer<R>,
    left: usize,
}

impl<'a, 'de, R: Read<'de>> StrSeq<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>, count: usize) -> Self {
        StrSeq { de, left: count }
    }

    /// Checks that every element was read.
    pub(crate) fn finish(&mut self) -> Result<()> {
        all_read(self.left)
    }
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for StrSeq<'_, R> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(StrDeserializer { de: &mut *self.de })
            .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(self.left, 4))
    }
}

/// One headerless string: a PoolStringArray element or an Object property name.
pub(crate) struct StrDeserializer<'a, R> {
    pub(crate) de: &'a mut Deserializer<R>,
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for StrDeserializer<'_, R> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.de.read.pos();
        self.de.visit_str(visitor).map_err(|e| e.or_at(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == marker::VARIANT {
            return visitor.visit_enum(StrEnum(self));
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Hands the `Variant` visitor the String type, then the string.
struct StrEnum<'a, R>(StrDeserializer<'a, R>);

impl<'a, 'de, R: Read<'de>> de::EnumAccess<'de> for StrEnum<'a, R> {
    type Error = Error;
    type Variant = StrDeserializer<'a, R>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant)> {
        let ty = VariantType::String as u32;
        let tag = seed.deserialize(de::value::U32Deserializer::<Error>::new(ty))?;
        Ok((tag, self.0))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for StrDeserializer<'_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Err(de::Error::custom("a pool element is not a unit"))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _f: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }
}

/// The `Variant` handshake: the type tag first, then the value with its header.
pub(crate) struct VariantEnum<'a, R> {
    de: &'a mut Deserializer<R>,
    h: Header,
}

impl<'a, R> VariantEnum<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>, h: Header) -> Self {
        VariantEnum { de, h }
    }
}

impl<'a, 'de, R: Read<'de>> de::EnumAccess<'de> for VariantEnum<'a, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self)> {
        let tag = seed.deserialize(de::value::U32Deserializer::<Error>::new(self.h.ty as u32))?;
        Ok((tag, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for VariantEnum<'_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Err(de::Error::custom("a Variant carries a value"))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        // Put the header back: the value reads it again as its own.
        self.de.pending = Some(self.h);
        seed.deserialize(&mut *self.de)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.de.pending = Some(self.h);
        de::Deserializer::deserialize_any(&mut *self.de, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _f: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.de.pending = Some(self.h);
        de::Deserializer::deserialize_any(&mut *self.de, visitor)
    }
}

/// An enum written as `{variant: value}`.
pub(crate) struct DictEnum<'a, R> {
    de: &'a mut Deserializer<R>,
}

impl<'a, R> DictEnum<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>) -> Self {
        DictEnum { de }
    }
}

impl<'a, 'de, R: Read<'de>> de::EnumAccess<'de> for DictEnum<'a, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self)> {
        let tag = seed.deserialize(&mut *self.de)?;
        Ok((tag, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for DictEnum<'_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de)
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(&mut *self.de)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple(&mut *self.de, len, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

/// A full Object: as a sequence `(class, properties)`, or as the property map alone.
pub(crate) struct ObjectAccess<'a, R> {
    de: &'a mut Deserializer<R>,
    class: Option<String>,
    /// Properties left to read.
    left: usize,
    /// In sequence form: whether the property map was handed out.
    props_done: bool,
}

impl<'a, 'de, R: Read<'de>> ObjectAccess<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>, class: String, n: usize) -> Self {
        ObjectAccess {
            de,
            class: Some(class),
            left: n,
            props_done: false,
        }
    }

    pub(crate) fn props(de: &'a mut Deserializer<R>, n: usize) -> Self {
        ObjectAccess {
            de,
            class: None,
            left: n,
            props_done: true,
        }
    }

    pub(crate) fn finish(&self) -> Result<()> {
        all_read(self.left)
    }
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for ObjectAccess<'_, R> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if let Some(class) = self.class.take() {
            return seed.deserialize(class.into_deserializer()).map(Some);
        }
        if self.props_done {
            return Ok(None);
        }
        self.props_done = true;
        seed.deserialize(PropsDeserializer(self)).map(Some)
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for ObjectAccess<'_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(StrDeserializer { de: &mut *self.de })
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(self.left, 8))
    }
}

/// Presents an Object's properties as a map.
struct PropsDeserializer<'a, 'b, R>(&'a mut ObjectAccess<'b, R>);

impl<'de, R: Read<'de>> de::Deserializer<'de> for PropsDeserializer<'_, '_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Reads a NodePath payload (after its header).
pub(crate) fn read_node_path<'de, R: Read<'de>>(de: &mut Deserializer<R>) -> Result<NodePath> {
    let at = de.read.pos();
    let names = de.u32("a NodePath name count")?;
    if names & 0x8000_0000 == 0 {
        // The pre-3.1 form (a plain string) that Godot 3.1+ refuses too.
        return Err(Error::at(
            ErrorKind::Malformed("a NodePath in the pre-3.1 format (name count without bit 31)"),
            at,
        ));
    }
    let names = (names & 0x7FFF_FFFF) as usize;
    let sub_at = de.read.pos();
    let subnames = de.u32("a NodePath subname count")?;
    let flags = de.u32("NodePath flags")?;
    if subnames > 0x7FFF_FFFF {
        return Err(Error::at(
            ErrorKind::InvalidLength {
                len: subnames.into(),
                what: "NodePath subnames",
            },
            sub_at,
        ));
    }
    // Bit 1 is an old "property" flag: one more subname.
    let subnames = subnames as usize + ((flags >> 1) & 1) as usize;
    let total = names.saturating_add(subnames);
    if let Some(left) = de.read.remaining() {
        if total.saturating_mul(4) > left {
            return Err(de.read.truncated("NodePath names", total, left, at));
        }
    }
    let mut read_list = |n: usize| -> Result<Vec<String>> {
        let mut v = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            v.push(de.str()?.to_owned());
        }
        Ok(v)
    };
    let names = read_list(names)?;
    let subnames = read_list(subnames)?;
    // As Godot 3: a path with no names and no subnames is the empty path, whatever the
    // absolute flag says (it writes the flag for `NodePath("/")` but reads those bytes
    // as `NodePath("")`). Godot 4 keeps `NodePath("/")`.
    let absolute = flags & 1 != 0
        && (de.cfg.dialect == crate::Dialect::Godot4 || !names.is_empty() || !subnames.is_empty());
    Ok(NodePath::from_parts(absolute, names, subnames))
}

/// A NodePath as the sequence `(absolute, names, subnames)`.
pub(crate) struct NodePathAccess {
    path: Option<NodePath>,
    field: u8,
}

impl NodePathAccess {
    pub(crate) fn new(path: NodePath) -> Self {
        NodePathAccess {
            path: Some(path),
            field: 0,
        }
    }
}

impl<'de> de::SeqAccess<'de> for NodePathAccess {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.field += 1;
        let Some(path) = self.path.as_mut() else {
            return Ok(None);
        };
        match self.field {
            1 => seed
                .deserialize(path.is_absolute().into_deserializer())
                .map(Some),
            2 => seed
                .deserialize(std::mem::take(path.names_mut()).into_deserializer())
                .map(Some),
            3 => {
                let subnames = std::mem::take(path.subnames_mut());
                self.path = None;
                seed.deserialize(subnames.into_deserializer()).map(Some)
            }
            _ => Ok(None),
        }
    }
}

/// The element type of a typed container, as the wire gives it: kind (0 untyped,
/// 1 builtin, 2 class, 3 script) and the builtin's Godot 4 name, the class name or
/// the script path.
#[derive(Debug, Default, Clone)]
pub(crate) struct ContainerType {
    pub(crate) kind: u32,
    pub(crate) name: String,
}

/// A typed container marker read as `(kind, name, [kind, name,] items)`.
pub(crate) struct TypedAccess<'a, R> {
    de: &'a mut Deserializer<R>,
    h: Header,
    fields: std::vec::IntoIter<FieldValue>,
    done: bool,
}

enum FieldValue {
    U32(u32),
    Str(String),
}

impl<'a, 'de, R: Read<'de>> TypedAccess<'a, R> {
    pub(crate) fn new(de: &'a mut Deserializer<R>, h: Header, types: [ContainerType; 2]) -> Self {
        let n = if h.ty == VariantType::Dictionary {
            2
        } else {
            1
        };
        let fields: Vec<FieldValue> = types
            .into_iter()
            .take(n)
            .flat_map(|t| [FieldValue::U32(t.kind), FieldValue::Str(t.name)])
            .collect();
        TypedAccess {
            de,
            h,
            fields: fields.into_iter(),
            done: false,
        }
    }
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for TypedAccess<'_, R> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.fields.next() {
            Some(FieldValue::U32(v)) => seed.deserialize(v.into_deserializer()).map(Some),
            Some(FieldValue::Str(v)) => seed.deserialize(v.into_deserializer()).map(Some),
            None if self.done => Ok(None),
            None => {
                self.done = true;
                seed.deserialize(ItemsDeserializer {
                    de: &mut *self.de,
                    h: self.h,
                })
                .map(Some)
            }
        }
    }
}

/// The items of an Array or Dictionary whose type info was already read.
struct ItemsDeserializer<'a, R> {
    de: &'a mut Deserializer<R>,
    h: Header,
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for ItemsDeserializer<'_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.items(self.h, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Pre-read fields of a Signal or an Image, as a sequence.
pub(crate) enum Fields {
    Signal(Option<String>, Option<u64>),
    Image([u32; 4], usize, Option<Vec<u8>>),
}

impl Fields {
    pub(crate) fn signal(name: String, id: u64) -> Self {
        Fields::Signal(Some(name), Some(id))
    }

    pub(crate) fn image(words: [u32; 4], data: Vec<u8>) -> Self {
        Fields::Image(words, 0, Some(data))
    }
}

impl<'de> de::SeqAccess<'de> for Fields {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self {
            Fields::Signal(name, id) => {
                if let Some(name) = name.take() {
                    return seed.deserialize(name.into_deserializer()).map(Some);
                }
                match id.take() {
                    Some(id) => seed.deserialize(id.into_deserializer()).map(Some),
                    None => Ok(None),
                }
            }
            Fields::Image(words, i, data) => {
                if let Some(w) = words.get(*i) {
                    *i += 1;
                    return seed.deserialize((*w).into_deserializer()).map(Some);
                }
                match data.take() {
                    Some(d) => seed
                        .deserialize(de::value::BytesDeserializer::new(&d))
                        .map(Some),
                    None => Ok(None),
                }
            }
        }
    }
}
