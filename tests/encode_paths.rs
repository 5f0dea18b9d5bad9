//! The encoder's output paths and fast paths: `to_writer` streams with a bounded
//! buffer, `to_vec_into` appends and leaves the buffer alone on error, short strings
//! and announced counts give the same bytes as the general paths, and pool arrays read
//! in one piece give the same values as element by element.

#[path = "common/peak.rs"]
mod peak;

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};

use godot_bin::{
    from_reader, from_slice, to_vec, to_vec_into, to_writer, Color, Config, Dialect, ErrorKind,
    PoolRealArray, PoolStringArray, PoolVector3Array, Precision, StringName, Vector2, Vector3,
    Vector4,
};
use peak::peak;
use quickcheck::QuickCheck;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Entity {
    name: String,
    pos: Vector3,
    hp: i32,
    tags: Vec<String>,
}

fn entities(n: usize) -> Vec<Entity> {
    (0..n)
        .map(|i| Entity {
            name: format!("entity_{i}"),
            pos: Vector3::new(i as f32, 0.5, -1.0),
            hp: i as i32 - 7,
            tags: vec!["a".into(); i % 3],
        })
        .collect()
}

/// Records every write's size.
#[derive(Default)]
struct Sizes {
    bytes: Vec<u8>,
    writes: Vec<usize>,
}

impl Write for Sizes {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes.push(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Swallows bytes, counting them: the sink's own memory is not the encoder's.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn to_writer_streams_the_same_bytes_in_chunks() {
    let value = entities(20_000);
    let whole = to_vec(&value).unwrap();
    assert!(whole.len() > 2_000_000, "{}", whole.len());
    let mut out = Sizes::default();
    to_writer(&mut out, &value).unwrap();
    assert_eq!(out.bytes, whole);
    // Many writes, none much larger than the 32 KiB chunk (plus one entity).
    assert!(out.writes.len() > 40, "{} writes", out.writes.len());
    let largest = out.writes.iter().max().copied().unwrap_or_default();
    assert!(largest < 33 * 1024, "largest write {largest}");
    // Every dialect streams the same bytes as it encodes.
    for dialect in Dialect::ALL {
        let cfg = Config::new().dialect(dialect);
        let mut out = Vec::new();
        cfg.to_writer(&mut out, &value[..50]).unwrap();
        assert_eq!(out, cfg.to_vec(&value[..50]).unwrap(), "{dialect:?}");
    }
}

#[test]
fn to_writer_memory_does_not_grow_with_the_value() {
    let value = entities(20_000);
    let encoded = to_vec(&value).unwrap().len();
    let (written, heap) = peak(|| {
        let mut sink = Count(0);
        to_writer(&mut sink, &value).unwrap();
        sink.0
    });
    assert_eq!(written, encoded);
    assert!(
        heap < 128 * 1024,
        "{heap} bytes of heap for {encoded} bytes out"
    );
    let (_, whole) = peak(|| to_vec(&value).unwrap());
    assert!(whole >= encoded, "to_vec holds the value: {whole}");
}

/// A map whose length serde does not announce, like `#[serde(flatten)]` gives.
struct Unannounced(usize);

impl Serialize for Unannounced {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for i in 0..self.0 {
            m.serialize_entry(&i, &format!("value {i}"))?;
        }
        m.end()
    }
}

#[test]
fn unannounced_lengths_are_held_until_known() {
    let value = vec![Unannounced(3), Unannounced(5000), Unannounced(0)];
    let whole = to_vec(&value).unwrap();
    let mut out = Sizes::default();
    to_writer(&mut out, &value).unwrap();
    assert_eq!(out.bytes, whole);
    let back: Vec<BTreeMap<i32, String>> = from_slice(&whole).unwrap();
    assert_eq!(back[1].len(), 5000);
    assert_eq!(back[1][&4999], "value 4999");
}

/// A sequence that announces more items than it writes.
struct Liar {
    announced: usize,
    written: usize,
}

impl Serialize for Liar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.announced))?;
        for i in 0..self.written {
            seq.serialize_element(&format!("{i:0>100}"))?;
        }
        seq.end()
    }
}

#[test]
fn a_wrong_announced_length_is_corrected_or_refused() {
    // In a buffer the count is patched: the bytes say what was written.
    let small = Liar {
        announced: 9,
        written: 2,
    };
    let back: Vec<String> = from_slice(&to_vec(&small).unwrap()).unwrap();
    assert_eq!(back.len(), 2);
    // Streaming, once the count has left the buffer it cannot be: an error.
    let big = Liar {
        announced: 2000,
        written: 1000,
    };
    let err = to_writer(Count(0), &big).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Message(m) if m.contains("announced 2000 items and wrote 1000")),
        "{err}"
    );
    // Before anything was written out it is still patched.
    let mut out = Vec::new();
    to_writer(&mut out, &small).unwrap();
    assert_eq!(out, to_vec(&small).unwrap());
}

#[test]
fn to_vec_into_appends_and_keeps_the_buffer_on_error() {
    let mut buf = b"keep".to_vec();
    let n = to_vec_into(&("tick", 7u32), &mut buf).unwrap();
    assert_eq!(&buf[..4], b"keep");
    assert_eq!(&buf[4..], to_vec(&("tick", 7u32)).unwrap());
    assert_eq!(n, buf.len() - 4);
    let before = buf.clone();
    let err = to_vec_into(&("ok", "no\0nul"), &mut buf).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)));
    assert_eq!(buf, before);
    // A reused buffer keeps its allocation.
    let cap = {
        buf.clear();
        to_vec_into(&entities(10), &mut buf).unwrap();
        buf.capacity()
    };
    buf.clear();
    to_vec_into(&entities(10), &mut buf).unwrap();
    assert_eq!(buf.capacity(), cap);
}

/// The wire form of a String Variant by the format's rule: a leading BOM gains one
/// more (the engine drops one when reading), then length, bytes, zero padding.
fn string_rule(s: &str) -> Vec<u8> {
    let mut body = Vec::new();
    if s.starts_with('\u{feff}') {
        body.extend_from_slice("\u{feff}".as_bytes());
    }
    body.extend_from_slice(s.as_bytes());
    let mut out = vec![4, 0, 0, 0];
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    out
}

/// A PoolStringArray of the one string `s` by the format's rule: count 1, then the
/// element's length with its NUL (a leading BOM gains one more), bytes, NUL, padding.
fn pool_string_rule(s: &str) -> Vec<u8> {
    let mut out = vec![23, 0, 0, 0, 1, 0, 0, 0];
    let mut body = string_rule(s)[4..].to_vec();
    let len = u32::from_le_bytes(body[..4].try_into().unwrap()) as usize;
    body.truncate(4 + len);
    body.push(0);
    body[..4].copy_from_slice(&(len as u32 + 1).to_le_bytes());
    out.extend_from_slice(&body);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    out
}

/// Every encoder path for a string (String, StringName and a PoolStringArray
/// element) gives the bytes of the rule and reads back, or refuses a NUL.
fn strings_follow_the_rule(s: &str) -> bool {
    let g4 = Config::new().dialect(Dialect::Godot4);
    let pool = PoolStringArray(vec![s.to_owned()]);
    let name = StringName(s.to_owned());
    match (to_vec(&s), to_vec(&pool), g4.to_vec(&name)) {
        (Err(e), Err(p), Err(n)) => {
            s.contains('\0')
                && [e, p, n]
                    .iter()
                    .all(|e| matches!(e.kind(), ErrorKind::Unrepresentable(_)))
        }
        (Ok(bytes), Ok(pool_bytes), Ok(name_bytes)) => {
            let mut name_rule = string_rule(s);
            name_rule[0] = 21;
            !s.contains('\0')
                && bytes == string_rule(s)
                && pool_bytes == pool_string_rule(s)
                && name_bytes == name_rule
                && from_slice::<String>(&bytes).ok().as_deref() == Some(s)
                && from_slice::<PoolStringArray>(&pool_bytes).ok() == Some(pool)
                && g4.from_slice::<StringName>(&name_bytes).ok() == Some(name)
        }
        _ => false,
    }
}

#[test]
fn strings_of_every_length_follow_the_rule() {
    // Around the short-string paths' edges (1 to 3 and 4 to 16 bytes), with NUL, BOM and
    // multi-byte characters at every position.
    let alphabet = ['a', 'Z', '\0', '\u{feff}', 'é', '😀', ' '];
    fn prop(picks: Vec<u8>, len: u8) -> bool {
        let alphabet = ['a', 'Z', '\0', '\u{feff}', 'é', '😀', ' '];
        let s: String = picks
            .iter()
            .take(len as usize % 24)
            .map(|p| alphabet[*p as usize % alphabet.len()])
            .collect();
        strings_follow_the_rule(&s)
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Vec<u8>, u8) -> bool);
    // Every ASCII length from 0 to 40, each with a NUL at every position.
    for len in 0..40 {
        let s: String = (0..len).map(|i| alphabet[i % 2]).collect();
        assert!(strings_follow_the_rule(&s), "{s:?}");
        for at in 0..len {
            let mut b = s.clone().into_bytes();
            b[at] = 0;
            let t = String::from_utf8(b).unwrap();
            assert!(to_vec(&t).is_err(), "{t:?}");
            assert!(strings_follow_the_rule(&t), "{t:?}");
        }
    }
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Pools {
    reals: PoolRealArray,
    vectors: PoolVector3Array,
    #[serde(with = "godot_bin::pool::real")]
    plain_reals: Vec<f32>,
    #[serde(with = "godot_bin::pool::vector3")]
    tuples: Vec<(f32, f32, f32)>,
}

#[test]
fn pools_read_in_one_piece_match_element_by_element() {
    let value = Pools {
        reals: PoolRealArray((0..1001).map(|i| i as f32 / 3.0).collect()),
        vectors: PoolVector3Array(
            (0..333)
                .map(|i| Vector3::new(i as f32, -1.5, 1e30))
                .collect(),
        ),
        plain_reals: vec![f32::MIN_POSITIVE, -0.0, f32::INFINITY],
        tuples: vec![(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)],
    };
    let bytes = to_vec(&value).unwrap();
    // From a slice (borrowed bytes) and from a reader (copied bytes).
    assert_eq!(from_slice::<Pools>(&bytes).unwrap(), value);
    assert_eq!(from_reader::<_, Pools>(&bytes[..]).unwrap(), value);
    // The same values as Variants, which read every element on its own.
    let v: godot_bin::Variant = from_slice(&bytes).unwrap();
    assert_eq!(godot_bin::from_variant::<Pools>(v).unwrap(), value);
    // A pool cut short: its count does not fit in what is left, before any allocation.
    let vectors = to_vec(&value.vectors).unwrap();
    let err = from_slice::<PoolVector3Array>(&vectors[..vectors.len() - 5]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Truncated { count: 333, .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(4));
    let err = from_reader::<_, PoolVector3Array>(&vectors[..vectors.len() - 5]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Eof(_)), "{err}");
}

/// A `Vec` field of a `pool::*` module goes in one piece (as bytes); any other sequence
/// element by element. Both must give the same bytes in every dialect and precision,
/// read back into either, and other formats must still see a plain sequence.
macro_rules! one_piece_matches_elements {
    ($($test:ident: $module:literal, $elem:ty, $make:expr, [$($cfg:expr),*];)*) => {$(
        #[test]
        fn $test() {
            #[derive(Serialize, Deserialize, PartialEq, Debug)]
            struct Whole(#[serde(with = $module)] Vec<$elem>);
            #[derive(Serialize, Deserialize, PartialEq, Debug)]
            struct Parts(#[serde(with = $module)] VecDeque<$elem>);
            let make: fn(i32) -> $elem = $make;
            let elems: Vec<$elem> = (-40..60).map(make).collect();
            for cfg in [$($cfg),*] {
                let whole = cfg.to_vec(&Whole(elems.clone())).unwrap();
                let parts = cfg.to_vec(&Parts(elems.iter().copied().collect())).unwrap();
                assert_eq!(whole, parts, "{cfg:?}");
                assert_eq!(cfg.from_slice::<Whole>(&whole).unwrap().0, elems, "{cfg:?}");
                assert!(cfg.from_slice::<Parts>(&whole).unwrap().0.iter().eq(&elems));
                let empty = cfg.to_vec(&Whole(Vec::new())).unwrap();
                assert_eq!(empty, cfg.to_vec(&Parts(VecDeque::new())).unwrap());
                assert_eq!(cfg.from_slice::<Whole>(&empty).unwrap().0, Vec::<$elem>::new());
            }
            let json = serde_json::to_string(&Whole(elems.clone())).unwrap();
            assert_eq!(json, serde_json::to_string(&elems).unwrap());
            assert_eq!(serde_json::from_str::<Whole>(&json).unwrap().0, elems);
            let bin = bincode::serialize(&Whole(elems.clone())).unwrap();
            assert_eq!(bin, bincode::serialize(&elems).unwrap());
        }
    )*};
}

fn g3() -> Config {
    Config::new()
}
fn g4() -> Config {
    Config::new().dialect(Dialect::Godot4)
}
fn g4_double() -> Config {
    g4().precision(Precision::Double)
}

one_piece_matches_elements! {
    int_pools_match: "godot_bin::pool::int", i32, |i| i * 1_000_003, [g3(), g4()];
    real_pools_match: "godot_bin::pool::real", f32, |i| i as f32 / 7.0, [g3(), g4(), g4_double()];
    int64_pools_match: "godot_bin::pool::int64", i64, |i| i64::from(i) << 40, [g4()];
    float64_pools_match: "godot_bin::pool::float64", f64, |i| f64::from(i) / 7.0, [g4()];
    vector2_pools_match: "godot_bin::pool::vector2", Vector2, |i| Vector2::new(i as f32, 0.5), [g3(), g4(), g4_double()];
    vector3_pools_match: "godot_bin::pool::vector3", Vector3, |i| Vector3::new(i as f32, -0.0, 1e30), [g3(), g4(), g4_double()];
    color_pools_match: "godot_bin::pool::color", Color, |i| Color::new(i as f32, 0.25, 0.5, 1.0), [g3(), g4(), g4_double()];
    vector4_pools_match: "godot_bin::pool::vector4", Vector4, |i| Vector4::new(i as f32, 1.0, 2.0, f32::MIN_POSITIVE), [g4(), g4_double()];
}

/// A `Vec<String>` pool (the newtype, or `pool::string` on a `Vec`) goes in one loop;
/// any other sequence element by element. Same bytes (or the same refusal, for a NUL)
/// in both dialects, over random strings: empty, short, long, BOM, multi-byte.
#[test]
fn string_pools_in_one_loop_match_element_by_element() {
    #[derive(Serialize)]
    struct Whole(#[serde(with = "godot_bin::pool::string")] Vec<String>);
    #[derive(Serialize)]
    struct Parts(#[serde(with = "godot_bin::pool::string")] VecDeque<String>);
    fn prop(strings: Vec<String>, bom: Vec<bool>) -> bool {
        let strings: Vec<String> = strings
            .into_iter()
            .zip(bom.into_iter().chain(std::iter::repeat(false)))
            .map(|(s, b)| if b { format!("\u{feff}{s}") } else { s })
            .collect();
        [g3(), g4()].iter().all(|cfg| {
            let parts = cfg.to_vec(&Parts(strings.iter().cloned().collect()));
            let whole = cfg.to_vec(&Whole(strings.clone()));
            let newtype = cfg.to_vec(&PoolStringArray(strings.clone()));
            match (parts, whole, newtype) {
                (Ok(p), Ok(w), Ok(n)) => {
                    p == w
                        && p == n
                        && cfg.from_slice::<PoolStringArray>(&p).ok().map(|v| v.0)
                            == Some(strings.clone())
                }
                (Err(p), Err(w), Err(n)) => {
                    strings.iter().any(|s| s.contains('\0'))
                        && [p, w, n]
                            .iter()
                            .all(|e| matches!(e.kind(), ErrorKind::Unrepresentable(_)))
                }
                _ => false,
            }
        })
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<String>, Vec<bool>) -> bool);
    assert!(prop(Vec::new(), Vec::new()));
    assert!(prop(vec!["npc".into(), "a\0b".into()], Vec::new()));
}

#[test]
fn bytes_for_a_pool_of_numbers_are_its_elements() {
    #[derive(Serialize)]
    struct Raw(#[serde(serialize_with = "godot_bin::pool::real::serialize")] serde_bytes::ByteBuf);
    let floats = [1.5f32, -2.0];
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    assert_eq!(
        to_vec(&Raw(serde_bytes::ByteBuf::from(bytes))).unwrap(),
        to_vec(&PoolRealArray(floats.to_vec())).unwrap()
    );
    let err = to_vec(&Raw(serde_bytes::ByteBuf::from(vec![0u8; 7]))).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Message(_)), "{err}");
    assert!(err.to_string().contains("whole elements"), "{err}");
}

/// `n` floats as a tuple struct behind a math type's reserved name: the field-by-field
/// path, which any `Serialize` impl that forwards tuple structs still takes.
struct Fields(&'static str, Vec<f32>);

impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTupleStruct;
        let mut t = s.serialize_tuple_struct(self.0, self.1.len())?;
        for f in &self.1 {
            t.serialize_field(f)?;
        }
        t.end()
    }
}

/// Our math types go to our serializer in one piece; the bytes must be those of the
/// same floats field by field, in every dialect and precision that has the type.
macro_rules! math_in_one_piece {
    ($($ty:ident: $name:literal, $n:literal, [$($cfg:expr),*];)*) => {
        #[test]
        fn math_values_in_one_piece_match_field_by_field() {
            fn check(floats: Vec<f32>) -> bool {
                $(for cfg in [$($cfg),*] {
                    let fields = Fields(
                        concat!("$godot_bin::private::", $name),
                        floats.iter().copied().chain(std::iter::repeat(0.25)).take($n).collect(),
                    );
                    let parts = cfg.to_vec(&fields).unwrap();
                    let value: godot_bin::$ty = cfg.from_slice(&parts).unwrap();
                    let whole = cfg.to_vec(&value).unwrap();
                    if whole != parts {
                        eprintln!("{} {cfg:?}: {whole:?} != {parts:?}", $name);
                        return false;
                    }
                })*
                true
            }
            // Bit patterns, not only nice numbers: NaN payloads and -0.0 go through.
            let bits = |v: Vec<u32>| check(v.into_iter().map(f32::from_bits).collect());
            assert!(check(vec![1.0, -0.0, 0.5, f32::MAX, f32::MIN_POSITIVE]));
            QuickCheck::new()
                .tests(300)
                .quickcheck(bits as fn(Vec<u32>) -> bool);
        }
    };
}

math_in_one_piece! {
    Vector2: "Vector2", 2, [g3(), g4(), g4_double()];
    Vector3: "Vector3", 3, [g3(), g4(), g4_double()];
    Rect2: "Rect2", 4, [g3(), g4(), g4_double()];
    Transform2D: "Transform2D", 6, [g3(), g4(), g4_double()];
    Plane: "Plane", 4, [g3(), g4(), g4_double()];
    Quat: "Quat", 4, [g3(), g4(), g4_double()];
    Aabb: "AABB", 6, [g3(), g4(), g4_double()];
    Basis: "Basis", 9, [g3(), g4(), g4_double()];
    Transform: "Transform", 12, [g3(), g4(), g4_double()];
    Color: "Color", 4, [g3(), g4(), g4_double()];
    Vector4: "Vector4", 4, [g4(), g4_double()];
    Projection: "Projection", 16, [g4(), g4_double()];
}

/// The depth limit holds the same way in every output path, and after a deep value
/// the encoder writes (and streams) normally again: `d` nested Arrays around one item
/// (or around nothing) against every `max_depth`, the decoder agreeing.
#[test]
fn depth_limit_is_the_same_streaming_or_not_and_recovers() {
    use godot_bin::Variant;
    for d in 1..8usize {
        for empty in [false, true] {
            let mut v = Variant::Array(if empty { vec![] } else { vec![Variant::Int(1)] });
            for _ in 1..d {
                v = Variant::Array(vec![v]);
            }
            // The deep value, then a shallow one after it: the limit is lifted again.
            let value = vec![v, Variant::Array(vec![Variant::Int(2)])];
            // Containers around the innermost item: the outer Vec, then `d` Arrays.
            let deepest = if empty { d } else { d + 1 };
            for max in 0..10usize {
                let cfg = Config::new().max_depth(max);
                let fits = deepest <= max && max >= 2;
                let whole = cfg.to_vec(&value);
                let mut streamed = Sizes::default();
                let r = cfg.to_writer(&mut streamed, &value);
                assert_eq!(whole.is_ok(), fits, "d {d} empty {empty} max {max}");
                assert_eq!(r.is_ok(), fits, "d {d} empty {empty} max {max}");
                match whole {
                    Ok(bytes) => {
                        // A small value goes out in one write: no flush was forced.
                        assert_eq!(streamed.bytes, bytes);
                        assert_eq!(streamed.writes, [bytes.len()]);
                        assert_eq!(cfg.from_slice::<Vec<Variant>>(&bytes).unwrap(), value);
                    }
                    Err(e) => {
                        assert!(matches!(e.kind(), ErrorKind::DepthLimit(m) if *m == max));
                        let bytes = Config::new().to_vec(&value).unwrap();
                        assert!(cfg.from_slice::<Vec<Variant>>(&bytes).is_err());
                    }
                }
            }
        }
    }
}

/// A math type's reserved name around a tuple of floats (how another crate's type may
/// write one) gives the bytes of the type itself, in every dialect and precision.
#[test]
fn math_marker_around_a_tuple_writes_the_type() {
    struct AsTuple;
    impl Serialize for AsTuple {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_newtype_struct(
                godot_bin::VariantType::Vector3.serde_name(),
                &(1.5f32, -2.0f32, 3.25f32),
            )
        }
    }
    let v = Vector3::new(1.5, -2.0, 3.25);
    for dialect in Dialect::ALL {
        for precision in [Precision::Single, Precision::Double] {
            let cfg = Config::new().dialect(dialect).precision(precision);
            match (cfg.to_vec(&AsTuple), cfg.to_vec(&v)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{dialect:?} {precision:?}"),
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{dialect:?} {precision:?}: {a:?} against {b:?}"),
            }
        }
    }
    assert!(to_vec(&AsTuple).is_ok());
}
