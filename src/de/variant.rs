//! `Variant` read straight from the bytes for the common types, without serde's
//! visitor handshake (a wire-type tag through an enum access, then each Array and
//! Dictionary through the typed-container fields and serde's collection visitors):
//! 13.8 M instructions to 12.2 M per decode of `benches/world.rs`'s snapshot when it
//! came in, and with 32-bit math values and PoolStringArrays read here too, 8.9 M to
//! 8.4 M (the rest is mostly the allocator). Everything else (typed containers,
//! Objects, other pools, 64-bit math...) goes the general way, which gives the same
//! values and errors: a quickcheck test (`de/tests.rs`) holds the two to the same
//! answers on any bytes.

use serde::de::Visitor;

use super::access::VariantEnum;
use super::{fast_paths, Deserializer, Header, Read, MAX_LEN};
use crate::dialect::{Dialect, VariantType, INT_ID};
use crate::error::Result;
use crate::table::PoolElem;
use crate::types::{Color, Floats, PoolStringArray, Quat, Rect2, Transform2D, Vector2, Vector3};
use crate::value::{Dictionary, Variant, VariantVisitor};
use crate::words::le;

/// The value whose header `h` was just read, when the visitor's value is a `Variant`
/// (the `Variant` marker's only user); `None` leaves it to the visitor.
#[inline]
pub(crate) fn read_directly<'de, R: Read<'de>, T>(
    de: &mut Deserializer<R>,
    h: Header,
) -> Option<Result<T>> {
    if !fast_paths() {
        return None;
    }
    crate::cast::try_make_plain(|| de.variant(h))
}

/// What serde's `Vec` visitor reserves at most up front (its "cautious" hint), kept
/// so that an Array's count costs no more memory here than through serde.
const MAX_PREALLOC: usize = (1 << 20) / std::mem::size_of::<Variant>();

/// The same bound for a PoolStringArray's `Vec<String>`.
const MAX_STRINGS_PREALLOC: usize = (1 << 20) / std::mem::size_of::<String>();

/// `DictVisitor`'s bound on what a Dictionary reserves up front.
const MAX_DICT_PREALLOC: usize = 4096;

impl<'de, R: Read<'de>> Deserializer<R> {
    /// The next value as a `Variant`: what `Variant::deserialize` reads.
    #[inline]
    fn next_variant(&mut self) -> Result<Variant> {
        // Most keys and many values: a String's or an int's header read with its word.
        if let Some((at, s)) = self.plain_str() {
            return Ok(Variant::String(s.map_err(|e| e.or_at(at))?.to_owned()));
        }
        if let Some((_, v)) = self.word_of(INT_ID, |_| true) {
            return Ok(Variant::Int((v as i32).into()));
        }
        let at = self.value_start();
        let h = self.header()?;
        self.variant(h).map_err(|e| e.or_at(at))
    }

    /// The value whose header `h` was just read, as a `Variant`.
    fn variant(&mut self, h: Header) -> Result<Variant> {
        Ok(match h.ty {
            VariantType::Nil => Variant::Nil,
            VariantType::Bool => Variant::Bool(self.u32("a bool")? != 0),
            VariantType::Int => Variant::Int(self.int(h)?),
            VariantType::Float if h.is_64() => {
                Variant::Float(f64::from_bits(self.u64("a 64-bit float")?))
            }
            VariantType::Float => Variant::Float(f32::from_bits(self.u32("a float")?).into()),
            VariantType::String => Variant::String(self.str()?.to_owned()),
            VariantType::Vector2 if !self.wide(h) => Variant::Vector2(self.floats_of()?),
            VariantType::Vector3 if !self.wide(h) => Variant::Vector3(self.floats_of()?),
            VariantType::Quat if !self.wide(h) => Variant::Quat(self.floats_of()?),
            VariantType::Rect2 if !self.wide(h) => Variant::Rect2(self.floats_of()?),
            VariantType::Transform2D if !self.wide(h) => Variant::Transform2D(self.floats_of()?),
            VariantType::Color => Variant::Color(self.floats_of()?),
            VariantType::PoolStringArray => Variant::PoolStringArray(self.strings()?),
            VariantType::Array if self.untyped(h, 3) => Variant::Array(self.array(h)?),
            VariantType::Dictionary if self.untyped(h, 0xF) => {
                Variant::Dictionary(self.dictionary(h)?)
            }
            _ => {
                let access = VariantEnum::new(self, h);
                VariantVisitor.visit_enum(access)?
            }
        })
    }

    /// A whole value checked as `Variant::deserialize` reads it (its header, then
    /// [`variant`](Self::variant)), for `Config::skip_variant`.
    pub(crate) fn skip_top_variant(&mut self) -> Result<()> {
        let at = self.value_start();
        let h = self.header()?;
        self.skip(h).map_err(|e| e.or_at(at))
    }

    /// The next value checked as [`next_variant`](Self::next_variant) reads it, with
    /// the same errors, without making it where that is cheaper (the general way's
    /// types are made and dropped).
    pub(crate) fn skip_variant(&mut self) -> Result<()> {
        if let Some((at, s)) = self.plain_str() {
            return s.map(|_| ()).map_err(|e| e.or_at(at));
        }
        if self.word_of(INT_ID, |_| true).is_some() {
            return Ok(());
        }
        let at = self.value_start();
        let h = self.header()?;
        self.skip(h).map_err(|e| e.or_at(at))
    }

    /// The value whose header `h` was just read, checked as [`variant`](Self::variant)
    /// reads it.
    fn skip(&mut self, h: Header) -> Result<()> {
        match h.ty {
            VariantType::Nil => {}
            VariantType::Bool => _ = self.u32("a bool")?,
            VariantType::Int => _ = self.int(h)?,
            VariantType::Float if h.is_64() => _ = self.u64("a 64-bit float")?,
            VariantType::Float => _ = self.u32("a float")?,
            VariantType::String => _ = self.str()?,
            VariantType::Vector2 if !self.wide(h) => _ = self.floats_of::<Vector2>()?,
            VariantType::Vector3 if !self.wide(h) => _ = self.floats_of::<Vector3>()?,
            VariantType::Quat if !self.wide(h) => _ = self.floats_of::<Quat>()?,
            VariantType::Rect2 if !self.wide(h) => _ = self.floats_of::<Rect2>()?,
            VariantType::Transform2D if !self.wide(h) => _ = self.floats_of::<Transform2D>()?,
            VariantType::Color => _ = self.floats_of::<Color>()?,
            VariantType::PoolStringArray => {
                for _ in 0..self.strings_count()? {
                    self.str()?;
                }
            }
            VariantType::Array if self.untyped(h, 3) => {
                let n = self.count("an Array count", 4, MAX_LEN)?;
                self.nested(n, h.at, |de| (0..n).try_for_each(|_| de.skip_variant()))?;
            }
            VariantType::Dictionary if self.untyped(h, 0xF) => {
                let n = self.count("a Dictionary count", 8, MAX_LEN)?;
                self.nested(n, h.at, |de| {
                    (0..n).try_for_each(|_| {
                        de.skip_variant()?;
                        de.skip_variant()
                    })
                })?;
            }
            _ => drop(self.variant(h)?),
        }
        Ok(())
    }

    /// Whether a container header announces no element types (`kinds`: the mask of
    /// its kind bits above bit 16); only Godot 4 has typed containers.
    #[inline]
    fn untyped(&self, h: Header, kinds: u32) -> bool {
        self.cfg.dialect != Dialect::Godot4 || (h.raw >> 16) & kinds == 0
    }

    /// A math value of 32-bit floats, read at once.
    #[inline]
    fn floats_of<T: Floats>(&mut self) -> Result<T> {
        let mut buf = T::Buf::default();
        let floats = buf.as_mut();
        let bytes = self.item_bytes(floats.len(), 4, "a math value")?;
        for (f, c) in floats.iter_mut().zip(bytes.chunks_exact(4)) {
            *f = f32::from_le_bytes(le(c));
        }
        Ok(T::read(buf.as_ref()))
    }

    /// A PoolStringArray's count and strings.
    fn strings(&mut self) -> Result<PoolStringArray> {
        let n = self.strings_count()?;
        let mut items = Vec::with_capacity(self.hint(n, 4).min(MAX_STRINGS_PREALLOC));
        for _ in 0..n {
            items.push(self.str()?.to_owned());
        }
        Ok(PoolStringArray(items))
    }

    /// A PoolStringArray's count.
    fn strings_count(&mut self) -> Result<usize> {
        self.count(
            "a pool array count",
            PoolElem::String.min_size(false),
            u32::MAX,
        )
    }

    /// An untyped Array's count and elements (what `items` gives serde's `Vec`).
    fn array(&mut self, h: Header) -> Result<Vec<Variant>> {
        let n = self.count("an Array count", 4, MAX_LEN)?;
        let mut items = Vec::with_capacity(self.hint(n, 4).min(MAX_PREALLOC));
        self.nested(n, h.at, |de| {
            for _ in 0..n {
                items.push(de.next_variant()?);
            }
            Ok(())
        })?;
        Ok(items)
    }

    /// An untyped Dictionary's count and entries; a repeated key keeps the last value
    /// at the first key's place, as in the engine.
    fn dictionary(&mut self, h: Header) -> Result<Dictionary> {
        let n = self.count("a Dictionary count", 8, MAX_LEN)?;
        let mut d = Dictionary::with_capacity(self.hint(n, 8).min(MAX_DICT_PREALLOC));
        self.nested(n, h.at, |de| {
            for _ in 0..n {
                let key = de.next_variant()?;
                let value = de.next_variant()?;
                d.set(key, value);
            }
            Ok(())
        })?;
        Ok(d)
    }
}
