//! `Variant` read straight from the bytes for the common types, without serde's
//! visitor handshake (a wire-type tag through an enum access, then each Array and
//! Dictionary through the typed-container fields and serde's collection visitors):
//! 13.8 M instructions to 12.2 M per decode of `benches/world.rs`'s snapshot, the rest
//! being mostly the allocator. Everything else (typed containers, Objects, pools, math
//! types...) goes the general way, which gives the same values and errors: a
//! quickcheck test holds the two to the same answers on any bytes.

use serde::de::Visitor;

use super::access::{hint, VariantEnum};
use super::{Deserializer, Header, Read, MAX_LEN};
use crate::dialect::{Dialect, VariantType, INT_ID, STRING_ID};
use crate::error::Result;
use crate::value::{Dictionary, Variant, VariantVisitor};

#[cfg(test)]
thread_local! {
    /// Unit tests: every `Variant` read the general way, the reference for this one.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The value whose header `h` was just read, when the visitor's value is a `Variant`
/// (the `Variant` marker's only user); `None` leaves it to the visitor.
#[inline]
pub(crate) fn read_directly<'de, R: Read<'de>, T>(
    de: &mut Deserializer<R>,
    h: Header,
) -> Option<Result<T>> {
    #[cfg(test)]
    if GENERAL_ONLY.with(|g| g.get()) {
        return None;
    }
    crate::cast::try_make_plain(|| de.variant(h))
}

/// What serde's `Vec` visitor reserves at most up front (its "cautious" hint), kept
/// so that an Array's count costs no more memory here than through serde.
const MAX_PREALLOC: usize = (1 << 20) / std::mem::size_of::<Variant>();

/// `DictVisitor`'s bound on what a Dictionary reserves up front.
const MAX_DICT_PREALLOC: usize = 4096;

impl<'de, R: Read<'de>> Deserializer<R> {
    /// The next value as a `Variant`: what `Variant::deserialize` reads.
    #[inline]
    fn next_variant(&mut self) -> Result<Variant> {
        // Most keys and many values: a String's or an int's header read with its word.
        if let Some((at, len)) = self.word_of(STRING_ID, |len| len <= MAX_LEN) {
            let s = self
                .str_body(at + 4, len as usize)
                .map_err(|e| e.or_at(at))?;
            return Ok(Variant::String(s.to_owned()));
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

    /// Whether a container header announces no element types (`kinds`: the mask of
    /// its kind bits above bit 16); only Godot 4 has typed containers.
    #[inline]
    fn untyped(&self, h: Header, kinds: u32) -> bool {
        self.cfg.dialect != Dialect::Godot4 || (h.raw >> 16) & kinds == 0
    }

    /// An untyped Array's count and elements (what `items` gives serde's `Vec`).
    fn array(&mut self, h: Header) -> Result<Vec<Variant>> {
        let n = self.count("an Array count", 4, MAX_LEN)?;
        let mut items = Vec::with_capacity(hint(self.read.remaining(), n).min(MAX_PREALLOC));
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
        let mut d =
            Dictionary::with_capacity(hint(self.read.remaining(), n).min(MAX_DICT_PREALLOC));
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

#[cfg(test)]
mod tests {
    use quickcheck::{Arbitrary, Gen, QuickCheck};

    use super::GENERAL_ONLY;
    use crate::{Config, Dialect, Dictionary, NodePath, PoolStringArray, Result, Variant, Vector3};

    fn leaf(g: &mut Gen) -> Variant {
        let f = |g: &mut Gen| f32::arbitrary(g);
        match u8::arbitrary(g) % 11 {
            0 => Variant::Nil,
            1 => Variant::Bool(bool::arbitrary(g)),
            2 => Variant::Int(i64::arbitrary(g)),
            3 => Variant::Int(i32::arbitrary(g).into()),
            4 => Variant::Float(f64::arbitrary(g)),
            5 => Variant::Float(f(g).into()),
            6 => Variant::String(String::arbitrary(g)),
            7 => Variant::from(
                *g.choose(&["", "\u{feff}x", "hp", "é€ name", "a_longer_key"])
                    .unwrap(),
            ),
            8 => Variant::Vector3(Vector3::new(f(g), f(g), f(g))),
            9 => Variant::NodePath(NodePath::from("Players/one:position")),
            _ => Variant::PoolStringArray(PoolStringArray(Vec::arbitrary(g))),
        }
    }

    fn value(g: &mut Gen, depth: usize) -> Variant {
        match u8::arbitrary(g) % 4 {
            _ if depth == 0 => leaf(g),
            0 => Variant::Array(
                (0..u8::arbitrary(g) % 5)
                    .map(|_| value(g, depth - 1))
                    .collect(),
            ),
            1 => {
                let mut d = Dictionary::new();
                for _ in 0..u8::arbitrary(g) % 5 {
                    d.insert(value(g, depth - 1), value(g, depth - 1));
                }
                Variant::Dictionary(d)
            }
            _ => leaf(g),
        }
    }

    /// A value's bytes in some dialect, then bytes changed and the end maybe cut; and
    /// the settings to read them with.
    #[derive(Clone, Debug)]
    struct Case {
        bytes: Vec<u8>,
        config: Config,
    }

    impl Arbitrary for Case {
        fn arbitrary(g: &mut Gen) -> Self {
            let dialect = *g.choose(&Dialect::ALL).unwrap();
            let mut bytes = loop {
                if let Ok(b) = Config::new().dialect(dialect).to_vec(&value(g, 4)) {
                    break b;
                }
            };
            for _ in 0..u8::arbitrary(g) % 4 {
                if !bytes.is_empty() {
                    let at = usize::arbitrary(g) % bytes.len();
                    let any = u8::arbitrary(g);
                    let flip = bytes[at] ^ 1 << (any % 8);
                    bytes[at] = *g.choose(&[0, 1, 3, 0x80, 0xFF, any, flip, flip]).unwrap();
                }
            }
            if bool::arbitrary(g) {
                bytes.truncate(usize::arbitrary(g) % (bytes.len() + 1));
            }
            let config = Config::new()
                .dialect(dialect)
                .max_depth(*g.choose(&[1, 2, 512]).unwrap())
                .allow_objects(bool::arbitrary(g))
                .strict_typed_containers(bool::arbitrary(g));
            Case { bytes, config }
        }
    }

    /// The value or the error, all of it, as the two ways of reading it give it.
    fn outcome(r: Result<Variant>) -> String {
        match r {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset()),
        }
    }

    fn read(case: &Case, general: bool) -> [String; 2] {
        GENERAL_ONLY.with(|g| g.set(general));
        let from_slice = outcome(case.config.from_slice(&case.bytes));
        let from_reader = outcome(case.config.from_reader(&case.bytes[..]));
        GENERAL_ONLY.with(|g| g.set(false));
        [from_slice, from_reader]
    }

    #[test]
    fn reads_what_the_general_way_reads_on_any_bytes() {
        fn prop(case: Case) -> bool {
            read(&case, false) == read(&case, true)
        }
        QuickCheck::new()
            .tests(3000)
            .quickcheck(prop as fn(Case) -> bool);
    }
}
