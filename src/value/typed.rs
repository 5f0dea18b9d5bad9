//! Godot 4 typed containers: `Array[int]` (4.3+) and `Dictionary[String, int]` (4.4+).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTupleStruct, Serializer};

use super::conform::conform;
use super::{Dictionary, Variant};
use crate::dialect::VariantType;
use crate::marker;

/// The element (or key, or value) type of a typed container.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ContainerType {
    /// A built-in type: `Array[int]`.
    Builtin(VariantType),
    /// A class: `Array[Node]`. Without full objects Godot writes `"EncodedObjectAsID"`.
    Class(String),
    /// A script: `Array[MyClass]`, by its `res://` path.
    Script(String),
}

impl ContainerType {
    /// The wire kind (0 untyped, 1 builtin, 2 class, 3 script) and the name: the Godot 4
    /// type name of a builtin, the class name, or the script path.
    pub(crate) fn parts_of(t: Option<&ContainerType>) -> (u32, &str) {
        match t {
            None => (0, ""),
            Some(ContainerType::Builtin(ty)) => (1, ty.name_in(crate::Dialect::Godot4)),
            Some(ContainerType::Class(c)) => (2, c),
            Some(ContainerType::Script(s)) => (3, s),
        }
    }

    /// The wire kind and name of this element type.
    pub(crate) fn parts(&self) -> (u32, &str) {
        Self::parts_of(Some(self))
    }

    fn from_parts<E: de::Error>(kind: u32, name: String) -> Result<Option<Self>, E> {
        Ok(match kind {
            0 => None,
            1 => Some(ContainerType::Builtin(
                VariantType::from_godot4_name(&name)
                    .ok_or_else(|| E::custom(format_args!("{name:?} is not a Godot 4 type")))?,
            )),
            2 => Some(ContainerType::Class(name)),
            3 => Some(ContainerType::Script(name)),
            k => return Err(E::custom(format_args!("unknown container kind {k}"))),
        })
    }

    /// GDScript's spelling: `int`, `Node`, or the script path.
    pub(crate) fn gdscript_name(t: Option<&ContainerType>) -> String {
        match t {
            None => "Variant".into(),
            Some(ContainerType::Builtin(ty)) => ty.name_in(crate::Dialect::Godot4).into(),
            Some(ContainerType::Class(c)) => c.clone(),
            Some(ContainerType::Script(s)) => format!("Resource(\"{s}\")"),
        }
    }
}

/// A typed Array, `Array[T]` (Godot 4.3+).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypedArray {
    /// The element type.
    pub element: ContainerType,
    /// The elements.
    pub items: Vec<Variant>,
}

/// A typed Dictionary, `Dictionary[K, V]` (Godot 4.4+); `None` is `Variant`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypedDictionary {
    /// The key type.
    pub key: Option<ContainerType>,
    /// The value type.
    pub value: Option<ContainerType>,
    /// The entries.
    pub entries: Dictionary,
}

struct Items<'a>(&'a [Variant]);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0)
    }
}

fn fields<T: SerializeTupleStruct>(t: &mut T, ty: Option<&ContainerType>) -> Result<(), T::Error> {
    let (kind, name) = ContainerType::parts_of(ty);
    t.serialize_field(&kind)?;
    t.serialize_field(name)
}

impl Serialize for TypedArray {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(marker::TYPED_ARRAY, 3)?;
        fields(&mut t, Some(&self.element))?;
        t.serialize_field(&Items(&self.items))?;
        t.end()
    }
}

impl Serialize for TypedDictionary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(marker::TYPED_DICTIONARY, 5)?;
        fields(&mut t, self.key.as_ref())?;
        fields(&mut t, self.value.as_ref())?;
        t.serialize_field(&self.entries)?;
        t.end()
    }
}

fn next<'de, A: SeqAccess<'de>, T: Deserialize<'de>>(
    seq: &mut A,
    i: usize,
    exp: &dyn de::Expected,
) -> Result<T, A::Error> {
    seq.next_element()?
        .ok_or_else(|| de::Error::invalid_length(i, exp))
}

fn element_type<'de, A: SeqAccess<'de>>(
    seq: &mut A,
    i: usize,
    exp: &dyn de::Expected,
) -> Result<Option<ContainerType>, A::Error> {
    let kind = next(seq, i, exp)?;
    let name = next(seq, i + 1, exp)?;
    ContainerType::from_parts(kind, name)
}

/// Reads an Array Variant: typed or not.
pub(crate) struct ArrayValue(pub(crate) Variant);

impl<'de> Deserialize<'de> for ArrayValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ArrayValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an Array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ArrayValue, A::Error> {
                let element = element_type(&mut seq, 0, &self)?;
                let items: Vec<Variant> = next(&mut seq, 2, &self)?;
                Ok(ArrayValue(match element {
                    // Godot 4 reads `Array[Nil]` as an untyped Array.
                    None | Some(ContainerType::Builtin(VariantType::Nil)) => Variant::Array(items),
                    Some(element) => {
                        let mut kept = Vec::with_capacity(items.len());
                        for item in items {
                            if let Some(v) = conform(&element, item).map_err(de::Error::custom)? {
                                kept.push(v);
                            }
                        }
                        Variant::TypedArray(Box::new(TypedArray {
                            element,
                            items: kept,
                        }))
                    }
                }))
            }
        }
        d.deserialize_tuple_struct(marker::TYPED_ARRAY, 3, V)
    }
}

/// Reads a Dictionary Variant: typed or not.
pub(crate) struct DictionaryValue(pub(crate) Variant);

impl<'de> Deserialize<'de> for DictionaryValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DictionaryValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Dictionary")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DictionaryValue, A::Error> {
                let key = element_type(&mut seq, 0, &self)?;
                let value = element_type(&mut seq, 2, &self)?;
                let mut entries: Dictionary = next(&mut seq, 4, &self)?;
                if let Some(ty) = &key {
                    let mut kept = Dictionary::with_capacity(entries.len());
                    for (k, v) in entries {
                        if let Some(k) = conform(ty, k).map_err(de::Error::custom)? {
                            kept.insert(k, v);
                        }
                    }
                    entries = kept;
                }
                Ok(DictionaryValue(if key.is_none() && value.is_none() {
                    Variant::Dictionary(entries)
                } else {
                    Variant::TypedDictionary(Box::new(TypedDictionary {
                        key,
                        value,
                        entries,
                    }))
                }))
            }
        }
        d.deserialize_tuple_struct(marker::TYPED_DICTIONARY, 5, V)
    }
}

impl<'de> Deserialize<'de> for TypedArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match ArrayValue::deserialize(d)?.0 {
            Variant::TypedArray(a) => Ok(*a),
            _ => Err(de::Error::custom(
                "expected a typed Array, found an untyped one",
            )),
        }
    }
}

impl<'de> Deserialize<'de> for TypedDictionary {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match DictionaryValue::deserialize(d)?.0 {
            Variant::TypedDictionary(t) => Ok(*t),
            _ => Err(de::Error::custom(
                "expected a typed Dictionary, found an untyped one",
            )),
        }
    }
}
