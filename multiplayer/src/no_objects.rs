//! A serializer around another that refuses full Objects: a container argument goes
//! through it straight to godot_bin's serializer, and the receiving engine decodes
//! arguments without full Objects (the `Variant` route refuses them, `args.rs`).

use std::fmt::Display;

use godot_bin::VariantType;
use serde::ser::{self, Serialize, Serializer};

/// `S`, failing at a full Object anywhere in the value.
pub(crate) struct NoObjects<S>(pub(crate) S);

/// A value whose serializer is wrapped in [`NoObjects`]: what a container argument
/// is written as, and each value inside it.
pub(crate) struct Guarded<'a, T: ?Sized>(pub(crate) &'a T);

impl<T: ?Sized + Serialize> Serialize for Guarded<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(NoObjects(s))
    }
}

fn full_object<E: ser::Error>() -> E {
    E::custom("a full Object")
}

/// Scalars, passed on as they are.
macro_rules! scalars {
    ($($m:ident($t:ty);)*) => {$(
        #[inline]
        fn $m(self, v: $t) -> Result<S::Ok, S::Error> {
            self.0.$m(v)
        }
    )*};
}

impl<S: Serializer> Serializer for NoObjects<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = NoObjects<S::SerializeSeq>;
    type SerializeTuple = NoObjects<S::SerializeTuple>;
    type SerializeTupleStruct = NoObjects<S::SerializeTupleStruct>;
    type SerializeTupleVariant = NoObjects<S::SerializeTupleVariant>;
    type SerializeMap = NoObjects<S::SerializeMap>;
    type SerializeStruct = NoObjects<S::SerializeStruct>;
    type SerializeStructVariant = NoObjects<S::SerializeStructVariant>;

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }

    scalars! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_unit_struct(&'static str);
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_none()
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_variant(name, index, variant)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Guarded(v))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Guarded(v))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Guarded(v))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(NoObjects)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(NoObjects)
    }
    /// A full Object is godot_bin's `Object` (a `Variant::Object` too): its class and
    /// properties under the Object type's serde name.
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        if name == VariantType::Object.serde_name() {
            return Err(full_object());
        }
        self.0.serialize_tuple_struct(name, len).map(NoObjects)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(NoObjects)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(NoObjects)
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(NoObjects)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(NoObjects)
    }
    fn collect_str<T: ?Sized + Display>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.0.collect_str(v)
    }
}

/// The compound serializers: each element or field wrapped as the value was.
macro_rules! compound {
    ($($tr:ident :: $m:ident;)*) => {$(
        impl<S: ser::$tr> ser::$tr for NoObjects<S> {
            type Ok = S::Ok;
            type Error = S::Error;
            #[inline]
            fn $m<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), S::Error> {
                self.0.$m(&Guarded(v))
            }
            fn end(self) -> Result<S::Ok, S::Error> {
                self.0.end()
            }
        }
    )*};
}
compound! {
    SerializeSeq::serialize_element;
    SerializeTuple::serialize_element;
    SerializeTupleStruct::serialize_field;
    SerializeTupleVariant::serialize_field;
}

impl<S: ser::SerializeMap> ser::SerializeMap for NoObjects<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), S::Error> {
        self.0.serialize_key(&Guarded(k))
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), S::Error> {
        self.0.serialize_value(&Guarded(v))
    }
    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

/// Structs and struct variants: each field wrapped.
macro_rules! fields {
    ($($tr:ident;)*) => {$(
        impl<S: ser::$tr> ser::$tr for NoObjects<S> {
            type Ok = S::Ok;
            type Error = S::Error;
            #[inline]
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), S::Error> {
                self.0.serialize_field(key, &Guarded(v))
            }
            fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
                self.0.skip_field(key)
            }
            fn end(self) -> Result<S::Ok, S::Error> {
                self.0.end()
            }
        }
    )*};
}
fields! {
    SerializeStruct;
    SerializeStructVariant;
}
