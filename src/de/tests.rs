//! The fast paths (`Deserializer::plain`, `variant.rs`) against the general way: on a
//! value's bytes in every dialect, changed and cut at random, both give the same value
//! or the same error (kind, offset and message), from a slice and from a reader.

use std::fmt::Debug;

use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::with_fast_paths;
use crate::{
    Color, Config, Dialect, Dictionary, NodePath, PoolStringArray, Quat, Rect2, Result,
    Transform2D, Variant, Vector2, Vector3,
};

fn leaf(g: &mut Gen) -> Variant {
    let f = |g: &mut Gen| f32::arbitrary(g);
    let v2 = |g: &mut Gen| Vector2::new(f(g), f(g));
    match u8::arbitrary(g) % 16 {
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
        11 => Variant::Vector2(v2(g)),
        12 => Variant::Quat(Quat::new(f(g), f(g), f(g), f(g))),
        13 => Variant::Color(Color::new(f(g), f(g), f(g), f(g))),
        14 => Variant::Rect2(Rect2 {
            position: v2(g),
            size: v2(g),
        }),
        15 => Variant::Transform2D(Transform2D {
            x: v2(g),
            y: v2(g),
            origin: v2(g),
        }),
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

#[derive(Serialize, Deserialize, Debug, Clone)]
enum Kind {
    Idle,
    Hit(u16),
    Moved(i8, String),
    Named { x: f32 },
}

/// A game entity of every kind of field the fast paths read.
#[derive(Serialize, Deserialize, Debug, Clone)]
struct Entity {
    name: String,
    id: u32,
    small: i8,
    wide: i64,
    hp: f32,
    ratio: f64,
    alive: bool,
    position: Vector3,
    rotation: Quat,
    uv: Vector2,
    tint: Color,
    tags: Vec<String>,
    // Both read by `Deserializer::owned_strs` on the fast paths.
    labels: PoolStringArray,
    #[serde(with = "crate::pool::string")]
    names: Vec<String>,
    note: Option<String>,
    kind: Kind,
}

/// A few strings that the encoder takes (no NUL), so that values holding many of them
/// still encode.
fn texts(g: &mut Gen) -> Vec<String> {
    (0..u8::arbitrary(g) % 6)
        .map(|_| String::arbitrary(g).replace('\0', ""))
        .collect()
}

fn entity(g: &mut Gen) -> Entity {
    let f = |g: &mut Gen| f32::arbitrary(g);
    let kind = match u8::arbitrary(g) % 4 {
        0 => Kind::Idle,
        1 => Kind::Hit(u16::arbitrary(g)),
        2 => Kind::Moved(i8::arbitrary(g), String::arbitrary(g)),
        _ => Kind::Named { x: f(g) },
    };
    Entity {
        name: String::arbitrary(g),
        id: u32::arbitrary(g),
        small: i8::arbitrary(g),
        wide: i64::arbitrary(g),
        hp: f(g),
        ratio: f64::arbitrary(g),
        alive: bool::arbitrary(g),
        position: Vector3::new(f(g), f(g), f(g)),
        rotation: Quat::new(f(g), f(g), f(g), f(g)),
        uv: Vector2::new(f(g), f(g)),
        tint: Color::new(f(g), f(g), f(g), f(g)),
        tags: Vec::arbitrary(g),
        labels: PoolStringArray(texts(g)),
        names: texts(g),
        note: Option::arbitrary(g),
        kind,
    }
}

/// Bytes of some value in some dialect, changed and maybe cut; and the settings to read
/// them with.
#[derive(Clone, Debug)]
struct Case {
    bytes: Vec<u8>,
    config: Config,
}

impl Case {
    fn new<T: Serialize>(g: &mut Gen, make: impl Fn(&mut Gen) -> T) -> Case {
        let dialect = *g.choose(&Dialect::ALL).unwrap();
        let mut bytes = loop {
            if let Ok(b) = Config::new().dialect(dialect).to_vec(&make(g)) {
                break b;
            }
        };
        for _ in 0..u8::arbitrary(g) % 4 {
            if !bytes.is_empty() {
                let at = usize::arbitrary(g) % bytes.len();
                let any = u8::arbitrary(g);
                let flip = bytes[at] ^ 1 << (any % 8);
                bytes[at] = *g.choose(&[0, 1, 3, 0x80, 0xFF, any, flip, flip]).unwrap();
                // The top byte of a word (every header, count and length is one): its
                // flag bits and the sign bit Godot refuses in counts.
                let top = (at | 3).min(bytes.len() - 1);
                bytes[top] ^= *g.choose(&[0, 0, 0x80, 0x40, 1]).unwrap();
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

    /// The value or the error, all of it, with the fast paths off (`general`) or on.
    fn read<T: DeserializeOwned + Debug>(&self, general: bool) -> [String; 2] {
        fn outcome<T: Debug>(r: Result<T>) -> String {
            match r {
                Ok(v) => format!("{v:?}"),
                Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset()),
            }
        }
        with_fast_paths(general, || {
            [
                outcome(self.config.from_slice::<T>(&self.bytes)),
                outcome(self.config.from_reader::<_, T>(&self.bytes[..])),
            ]
        })
    }
}

#[derive(Clone, Debug)]
struct Variants(Case);

impl Arbitrary for Variants {
    fn arbitrary(g: &mut Gen) -> Self {
        Variants(Case::new(g, |g| value(g, 4)))
    }
}

#[derive(Clone, Debug)]
struct Entities(Case);

impl Arbitrary for Entities {
    fn arbitrary(g: &mut Gen) -> Self {
        Entities(Case::new(g, |g| {
            (0..u8::arbitrary(g) % 3)
                .map(|_| entity(g))
                .collect::<Vec<_>>()
        }))
    }
}

#[test]
fn variants_read_as_the_general_way_reads_them_on_any_bytes() {
    fn prop(Variants(case): Variants) -> bool {
        case.read::<Variant>(false) == case.read::<Variant>(true)
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Variants) -> bool);
}

/// `Config::skip_variant` takes the bytes a `Variant` read takes, or gives its error
/// (kind, offset and message), with the fast paths on and off.
#[test]
fn a_skipped_variant_is_what_reading_it_gives() {
    fn prop(Variants(case): Variants) -> bool {
        let outcome = |r: Result<usize>| match r {
            Ok(used) => format!("{used}"),
            Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset()),
        };
        let skipped = outcome(case.config.skip_variant(&case.bytes));
        [false, true].into_iter().all(|general| {
            let read = with_fast_paths(general, || {
                case.config.take_from_slice::<Variant>(&case.bytes)
            });
            outcome(read.map(|(_, used)| used)) == skipped
        })
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Variants) -> bool);
}

#[test]
fn structs_read_as_the_general_way_reads_them_on_any_bytes() {
    fn prop(Entities(case): Entities) -> bool {
        case.read::<Vec<Entity>>(false) == case.read::<Vec<Entity>>(true)
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Entities) -> bool);
}

/// `Entity` with its strings borrowed: `labels` and `names` are both read in one
/// piece by `Deserializer::borrowed_strs` on the fast paths.
#[derive(Deserialize, Debug)]
#[allow(dead_code)] // The fields are compared through `Debug`.
struct EntityRef<'a> {
    #[serde(borrow)]
    name: &'a str,
    id: u32,
    #[serde(borrow, with = "crate::pool::string")]
    labels: Vec<&'a str>,
    #[serde(borrow, with = "crate::pool::string")]
    names: Vec<&'a str>,
    kind: Kind,
}

#[test]
fn borrowed_strings_read_as_the_general_way_reads_them_on_any_bytes() {
    fn prop(Entities(case): Entities) -> bool {
        let read = |general: bool| {
            with_fast_paths(general, || {
                let outcome = |r: Result<Vec<EntityRef>>| match r {
                    Ok(v) => format!("{v:?}"),
                    Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset()),
                };
                [
                    outcome(case.config.from_slice(&case.bytes)),
                    // An input that copies its strings out: no borrowing, either way.
                    outcome(Vec::deserialize(&mut super::Deserializer::with_config(
                        super::IoRead::new(&case.bytes[..]),
                        case.config,
                    ))),
                ]
            })
        };
        read(false) == read(true)
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Entities) -> bool);
}

/// Fields of every kind whose size their header gives, and a container last: a
/// Dictionary of exactly these keys in this order is read as a sequence
/// (`in_order.rs`), where `Entity` (a container in the middle) is read as a map.
#[derive(Serialize, Deserialize, Debug, Clone)]
struct Ordered {
    name: String,
    id: u32,
    wide: i64,
    hp: f32,
    ratio: f64,
    alive: bool,
    nothing: Option<String>,
    position: Vector3,
    rotation: Quat,
    tint: Color,
    labels: PoolStringArray,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    #[serde(with = "crate::pool::int")]
    ints: Vec<i32>,
    #[serde(with = "crate::pool::vector3")]
    points: Vec<Vector3>,
    kind: Kind,
}

fn ordered(g: &mut Gen) -> Ordered {
    let f = |g: &mut Gen| f32::arbitrary(g);
    let e = entity(g);
    Ordered {
        name: e.name.replace('\0', ""),
        id: e.id,
        wide: e.wide,
        hp: e.hp,
        ratio: e.ratio,
        alive: e.alive,
        nothing: e.note.map(|s| s.replace('\0', "")),
        position: e.position,
        rotation: e.rotation,
        tint: e.tint,
        labels: e.labels,
        blob: Vec::arbitrary(g),
        ints: Vec::arbitrary(g),
        points: (0..u8::arbitrary(g) % 3)
            .map(|_| Vector3::new(f(g), f(g), f(g)))
            .collect(),
        kind: e.kind,
    }
}

/// Structs' entries in field order, or not quite: two swapped, one left out, one
/// twice, one of another type.
#[derive(Clone, Debug)]
struct OrderedCase(Case);

impl Arbitrary for OrderedCase {
    fn arbitrary(g: &mut Gen) -> Self {
        OrderedCase(Case::new(g, |g| {
            (0..u8::arbitrary(g) % 3)
                .map(|_| {
                    // Strings with NUL (which the encoder refuses) drawn again.
                    let d = loop {
                        if let Ok(Variant::Dictionary(d)) = crate::to_variant(&ordered(g)) {
                            break d;
                        }
                    };
                    let mut entries: Vec<(Variant, Variant)> =
                        d.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                    let (i, j) = (
                        usize::arbitrary(g) % entries.len(),
                        usize::arbitrary(g) % entries.len(),
                    );
                    match u8::arbitrary(g) % 8 {
                        0 => entries.swap(i, j),
                        1 => drop(entries.remove(i)),
                        2 => entries.insert(j, entries[i].clone()),
                        3 => entries[i].1 = leaf(g),
                        _ => {}
                    }
                    Entries(entries)
                })
                .collect::<Vec<_>>()
        }))
    }
}

#[test]
fn structs_in_field_order_read_as_the_general_way_reads_them() {
    fn prop(OrderedCase(case): OrderedCase) -> bool {
        // Each case trusts the order again, whatever the ones before held.
        super::keys::trust_again();
        case.read::<Vec<Ordered>>(false) == case.read::<Vec<Ordered>>(true)
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(OrderedCase) -> bool);
}

#[test]
fn a_struct_in_field_order_is_read_as_a_sequence_and_gives_the_same_value() {
    let taken = super::in_order::taken;
    let g = &mut Gen::new(20);
    let mut read = 0;
    for dialect in Dialect::ALL {
        let config = Config::new().dialect(dialect);
        for _ in 0..50 {
            // Values Godot 2 cannot hold (64-bit ints), strings with NUL: drawn again.
            let v = ordered(g);
            let Ok(bytes) = config.to_vec(&v) else {
                continue;
            };
            let before = taken();
            let back: Ordered = config.from_slice(&bytes).unwrap();
            // The struct, and the struct variant in `kind` when it is one.
            assert!(taken() > before, "{dialect:?}");
            assert_eq!(config.to_vec(&back).unwrap(), bytes);
            let general = with_fast_paths(true, || config.from_slice::<Ordered>(&bytes));
            assert_eq!(format!("{back:?}"), format!("{:?}", general.unwrap()));
            // From a reader, never (it has no bytes at hand to look ahead in).
            let before = taken();
            config.from_reader::<_, Ordered>(&bytes[..]).unwrap();
            assert_eq!(taken(), before);
            read += 1;
        }
    }
    // Godot 3 and 4 hold all (but a string of a struct variant with NUL).
    assert!(read >= 90, "{read}");
    // Two fields swapped: taken on trust, given up at the first key, read again as a
    // map, which gives the value the general way gives.
    let Variant::Dictionary(d) = crate::to_variant(&ordered(g)).unwrap() else {
        unreachable!()
    };
    let mut entries: Vec<_> = d.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    entries.swap(0, 1);
    let swapped = crate::to_vec(&Entries(entries)).unwrap();
    let before = taken();
    let v = crate::from_slice::<Ordered>(&swapped).unwrap();
    assert_eq!(taken(), before + 1);
    let general = with_fast_paths(true, || crate::from_slice::<Ordered>(&swapped));
    assert_eq!(format!("{v:?}"), format!("{:?}", general.unwrap()));
    // The thread remembers: in order or not, the type is read as a map from then on,
    // until it is trusted again (its `kind` not a struct variant, another type).
    let in_order = crate::to_vec(&Ordered {
        kind: Kind::Idle,
        ..v
    })
    .unwrap();
    crate::from_slice::<Ordered>(&in_order).unwrap();
    assert_eq!(taken(), before + 1);
    super::keys::trust_again();
    crate::from_slice::<Ordered>(&in_order).unwrap();
    assert!(taken() > before + 1);
}

/// A field and its alias both in the Dictionary, in the order and number of serde's
/// field list (which holds aliases): read on trust, the struct leaves an entry, and
/// is read again the general way, whose error is the derive's for a field given twice.
#[test]
fn a_field_under_its_name_and_its_alias_is_the_general_ways_error() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Aliased {
        #[serde(alias = "b")]
        a: i32,
        c: i32,
    }
    let entries = Entries(vec![
        ("a".into(), Variant::Int(1)),
        ("b".into(), Variant::Int(2)),
        ("c".into(), Variant::Int(3)),
    ]);
    let bytes = crate::to_vec(&entries).unwrap();
    let before = super::in_order::taken();
    let fast = crate::from_slice::<Aliased>(&bytes).unwrap_err();
    // Taken on trust, given up, read again.
    assert_eq!(super::in_order::taken(), before + 1);
    let general = with_fast_paths(true, || crate::from_slice::<Aliased>(&bytes)).unwrap_err();
    assert!(
        general.to_string().contains("duplicate field `a`"),
        "{general}"
    );
    assert_eq!(
        (fast.to_string(), fast.offset()),
        (general.to_string(), general.offset())
    );
    // Without both, the alias reads as the field, in order or not.
    for keys in [["a", "c"], ["b", "c"], ["c", "b"]] {
        let entries = Entries(
            keys.iter()
                .zip([5, 6])
                .map(|(k, v)| (Variant::from(*k), Variant::Int(v)))
                .collect(),
        );
        let v = crate::from_slice::<Aliased>(&crate::to_vec(&entries).unwrap()).unwrap();
        assert_eq!((v.a, v.c), if keys[0] == "c" { (6, 5) } else { (5, 6) });
    }
}

/// What a review found reading on trust gave otherwise than the general way: a field
/// read in an alias's place meeting a value of another type, an adjacently tagged
/// enum (whose derived visitor is handed to `deserialize_struct` too), and a
/// hand-written visitor named like the derive's, without `visit_seq`.
#[test]
// `Twice`'s derived field visitor matches one name twice.
#[allow(unreachable_patterns)]
fn visitors_that_are_not_a_derived_structs_read_as_the_general_way() {
    fn same<T: for<'de> Deserialize<'de> + Debug>(
        config: Config,
        entries: Vec<(Variant, Variant)>,
    ) {
        // StringName does not exist in Godot 3.
        let Ok(bytes) = config.to_vec(&Entries(entries)) else {
            return;
        };
        let outcome = |r: Result<T>| match r {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset()),
        };
        super::keys::trust_again();
        let fast = outcome(config.from_slice::<T>(&bytes));
        let general = outcome(with_fast_paths(true, || config.from_slice::<T>(&bytes)));
        assert_eq!(fast, general);
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Aliased {
        #[serde(alias = "b")]
        a: i32,
        c: String,
    }
    #[derive(Deserialize, Debug)]
    #[serde(tag = "t", content = "c")]
    #[allow(dead_code)]
    enum Adjacent {
        A(i32),
        B { x: i32 },
        U,
    }
    // Two fields under one name (serde's derive allows it): the general way says
    // "duplicate field"; in order, the two would each take a value.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Twice {
        #[serde(rename = "x")]
        a: i32,
        #[serde(rename = "x")]
        b: i32,
    }
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Hand(i64);
    impl<'de> Deserialize<'de> for Hand {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            #[allow(non_camel_case_types)]
            struct __Visitor<'a>(std::marker::PhantomData<&'a ()>);
            impl<'de> serde::de::Visitor<'de> for __Visitor<'_> {
                type Value = Hand;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("struct Hand")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> std::result::Result<Hand, A::Error> {
                    let mut sum = 0;
                    while let Some((_, v)) = map.next_entry::<String, i64>()? {
                        sum += v;
                    }
                    Ok(Hand(sum))
                }
            }
            d.deserialize_struct("Hand", &["x", "y"], __Visitor(std::marker::PhantomData))
        }
    }
    // A hand-written `__Visitor` in a module of its own, whose `visit_seq` takes the
    // fields the other way round (a review found it taken for the derive's).
    #[derive(Debug)]
    #[allow(dead_code)]
    pub struct Backwards(i64, i64);
    mod hand {
        pub struct __Visitor<'a>(pub std::marker::PhantomData<&'a ()>);
    }
    impl<'de> serde::de::Visitor<'de> for hand::__Visitor<'_> {
        type Value = Backwards;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("struct Backwards, or [y, x]")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Backwards, A::Error> {
            let y = seq.next_element()?.unwrap_or(0);
            Ok(Backwards(seq.next_element()?.unwrap_or(0), y))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Backwards, A::Error> {
            let mut b = Backwards(0, 0);
            while let Some((k, v)) = map.next_entry::<String, i64>()? {
                if k == "x" {
                    b.0 = v;
                } else {
                    b.1 = v;
                }
            }
            Ok(b)
        }
    }
    impl<'de> Deserialize<'de> for Backwards {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            d.deserialize_struct(
                "Backwards",
                &["x", "y"],
                hand::__Visitor(std::marker::PhantomData),
            )
        }
    }
    let kv = |k: &str, v: Variant| (Variant::from(k), v);
    for dialect in [Dialect::Godot3, Dialect::Godot4] {
        let config = Config::new().dialect(dialect);
        same::<Aliased>(
            config,
            vec![kv("a", 1.into()), kv("b", 2.into()), kv("c", "x".into())],
        );
        for tag in [
            Variant::Int(0),
            Variant::Int(1),
            Variant::Int(-1),
            Variant::from("A"),
            Variant::StringName("A".into()),
            Variant::Nil,
        ] {
            same::<Adjacent>(config, vec![kv("t", tag), kv("c", 5.into())]);
        }
        same::<Hand>(config, vec![kv("x", 1.into()), kv("y", 2.into())]);
        same::<Twice>(config, vec![kv("x", 5.into()), kv("x", 6.into())]);
        same::<Backwards>(config, vec![kv("x", 1.into()), kv("y", 2.into())]);
    }
}

/// A struct whose `Deserialize` is written by hand is read as a map, whatever order
/// its keys come in: its visitor's `visit_seq` may mean something else.
#[test]
fn a_hand_written_struct_visitor_is_fed_a_map() {
    let d = std::time::Duration::new(7, 9);
    let bytes = crate::to_vec(&d).unwrap();
    assert_eq!(crate::from_slice::<std::time::Duration>(&bytes).unwrap(), d);
    struct Fed(&'static str);
    impl<'de> Deserialize<'de> for Fed {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Fed;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a struct")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> std::result::Result<Fed, A::Error> {
                    while map.next_entry::<String, i32>()?.is_some() {}
                    Ok(Fed("map"))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    _: A,
                ) -> std::result::Result<Fed, A::Error> {
                    Ok(Fed("seq"))
                }
            }
            d.deserialize_struct("Fed", &["secs", "nanos"], V)
        }
    }
    assert_eq!(crate::from_slice::<Fed>(&bytes).unwrap().0, "map");
}

/// What the thread remembers of visitor types (`in_order::derived_known`) is each
/// type's own: a derived struct and hand-written visitors, read in turn by new
/// deserializers, each as its own kind.
#[test]
fn each_visitor_type_is_remembered_as_its_own_kind() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Derived {
        secs: u64,
        nanos: u32,
    }
    let d = std::time::Duration::new(7, 9);
    let bytes = crate::to_vec(&d).unwrap();
    let taken = super::in_order::taken;
    for _ in 0..3 {
        let before = taken();
        let v: Derived = crate::from_slice(&bytes).unwrap();
        assert_eq!(v, Derived { secs: 7, nanos: 9 });
        assert_eq!(taken(), before + 1);
        // `Duration`'s own visitor, hand-written, is read as a map.
        assert_eq!(crate::from_slice::<std::time::Duration>(&bytes).unwrap(), d);
        assert_eq!(taken(), before + 1);
    }
}

/// Field names that the key fast path (`Deserializer::field_key`) must not take at
/// face value: with a NUL (the engine cuts the key there), with a BOM (dropped), an
/// alias, the empty name, a long one and a non-ASCII one.
#[derive(Deserialize, Debug)]
#[allow(dead_code)] // Read through `Debug` only.
struct Keyed {
    #[serde(rename = "a\0b")]
    nul: Option<i32>,
    #[serde(rename = "\u{feff}bom")]
    bom: Option<i32>,
    #[serde(alias = "health")]
    hp: Option<i32>,
    #[serde(rename = "")]
    empty: Option<i32>,
    #[serde(rename = "a_key_longer_than_sixteen")]
    long: Option<i32>,
    #[serde(rename = "long\0key_longer_than_sixteen")]
    long_nul: Option<i32>,
    #[serde(rename = "é")]
    accent: Option<i32>,
    x: Option<Vector3>,
}

/// The same fields, refusing any other key.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Read through `Debug` only.
struct Strict {
    #[serde(rename = "a\0b")]
    nul: Option<i32>,
    #[serde(rename = "\u{feff}bom")]
    bom: Option<i32>,
    hp: Option<i32>,
    x: Option<i32>,
}

/// `#` stands for NUL, which the encoder refuses in strings, and `%%%` for a BOM the
/// encoder would double: they become those in the bytes.
const KEYS: [&str; 18] = [
    "a#b",
    "a",
    "a#",
    "\u{feff}bom",
    "bom",
    "\u{feff}\u{feff}bom",
    "%%%bom",
    "hp",
    "health",
    "",
    "#",
    "a_key_longer_than_sixteen",
    "a_key_longer_than_sixteeN",
    "long#key_longer_than_sixteen",
    "é",
    "x",
    "y",
    "hq",
];

/// Map entries in the order given, duplicates and all.
#[derive(Debug, Clone)]
struct Entries(Vec<(Variant, Variant)>);

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[derive(Clone, Debug)]
struct KeyedCase(Case);

/// `bytes` with every `#` made a NUL and every `%%%` a BOM (as many bytes).
fn nul(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes
        .iter_mut()
        .filter(|b| **b == b'#')
        .for_each(|b| *b = 0);
    for i in 0..bytes.len().saturating_sub(2) {
        if bytes[i..i + 3] == *b"%%%" {
            bytes[i..i + 3].copy_from_slice(crate::words::BOM);
        }
    }
    bytes
}

impl Arbitrary for KeyedCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let mut case = Case::new(g, |g| {
            let entries = (0..u8::arbitrary(g) % 8)
                .map(|_| {
                    let name = *g.choose(&KEYS).unwrap();
                    let key = match u8::arbitrary(g) % 8 {
                        0 => Variant::StringName(name.into()),
                        1 => Variant::Int(i64::arbitrary(g) % 3),
                        _ => Variant::from(name),
                    };
                    let value = match u8::arbitrary(g) % 4 {
                        0 => Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
                        1 => Variant::Nil,
                        _ => Variant::Int(i32::arbitrary(g).into()),
                    };
                    (key, value)
                })
                .collect();
            Entries(entries)
        });
        case.bytes = nul(case.bytes);
        KeyedCase(case)
    }
}

#[test]
fn struct_keys_read_as_the_general_way_reads_them_in_any_order() {
    fn prop(KeyedCase(case): KeyedCase) -> bool {
        case.read::<Keyed>(false) == case.read::<Keyed>(true)
            && case.read::<Strict>(false) == case.read::<Strict>(true)
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(KeyedCase) -> bool);
}

#[test]
fn a_key_is_what_the_engine_reads_not_its_bytes() {
    let read = |entries: &[(&str, i32)]| {
        let e = Entries(
            entries
                .iter()
                .map(|(k, v)| (Variant::from(*k), Variant::Int((*v).into())))
                .collect(),
        );
        let bytes = nul(crate::to_vec(&e).unwrap());
        (
            format!("{:?}", crate::from_slice::<Keyed>(&bytes)),
            crate::from_slice::<Strict>(&bytes).map_err(|e| (e.to_string(), e.offset())),
        )
    };
    // The engine reads the key "a\0b" as "a", and "\u{feff}bom" written by the engine
    // (without the crate's extra BOM) as "bom": neither is a field.
    let (keyed, strict) = read(&[("a#b", 1), ("hp", 2), ("%%%bom", 7)]);
    assert_eq!(
        keyed,
        "Ok(Keyed { nul: None, bom: None, hp: Some(2), empty: None, long: None, long_nul: None, accent: None, x: None })"
    );
    let err = strict.unwrap_err();
    assert!(err.0.contains("unknown field `a`"), "{}", err.0);
    assert_eq!(err.1, Some(8));
    // The crate writes a BOM-led key with one more BOM: it reads back as written.
    let (keyed, _) = read(&[("\u{feff}bom", 3), ("health", 4), ("é", 5), ("", 6)]);
    assert_eq!(
        keyed,
        "Ok(Keyed { nul: None, bom: Some(3), hp: Some(4), empty: Some(6), long: None, long_nul: None, accent: Some(5), x: None })"
    );
    // A field twice is refused where the second one starts.
    let (_, strict) = read(&[("hp", 1), ("x", 2), ("hp", 3)]);
    let err = strict.unwrap_err();
    assert!(err.0.contains("duplicate field `hp`"), "{}", err.0);
}

#[test]
fn structs_of_other_types_in_turn_each_read_with_their_own_keys() {
    // The deserializer keeps the keys of the struct read last: structs of two types
    // with a field name in common, in turn and one inside the other, each find theirs.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct P {
        x: i32,
        p: i32,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Q {
        p: P,
        x: String,
        q: Vec<P>,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Both {
        ps: Vec<P>,
        qs: Vec<Q>,
        last: P,
    }
    let p = |x| P { x, p: -x };
    let both = Both {
        ps: (0..3).map(p).collect(),
        qs: (0..3)
            .map(|i| Q {
                p: p(10 * i),
                x: format!("q{i}"),
                q: (0..i).map(p).collect(),
            })
            .collect(),
        last: p(99),
    };
    let bytes = crate::to_vec(&both).unwrap();
    assert_eq!(crate::from_slice::<Both>(&bytes).unwrap(), both);
    // Q's fields out of turn with P's: `x` of a Q is a String, of a P an int.
    let swapped = Entries(vec![
        ("x".into(), Variant::Int(1)),
        ("p".into(), Variant::Int(2)),
    ]);
    let q = Entries(vec![
        ("x".into(), "s".into()),
        (
            "q".into(),
            Variant::Array(vec![crate::to_variant(&p(3)).unwrap()]),
        ),
        ("p".into(), crate::to_variant(&swapped).unwrap()),
    ]);
    assert_eq!(
        crate::from_slice::<Q>(&crate::to_vec(&q).unwrap()).unwrap(),
        Q {
            p: P { x: 1, p: 2 },
            x: "s".into(),
            q: vec![p(3)]
        }
    );
}

#[test]
fn deserializers_can_be_sent_to_other_threads() {
    fn send<T: Send>(_: &T) {}
    let bytes = [0u8; 4];
    send(&crate::Deserializer::from_slice(&bytes));
    send(&crate::Deserializer::from_reader(&bytes[..]));
}

/// A well-formed input's containers announce their real counts to their visitors (so
/// they reserve once), whatever they hold, however deep: the allowance that bounds
/// what nested containers reserve (`Deserializer::hint`) is never short for them.
mod hints {
    use std::cell::RefCell;

    use quickcheck::{Arbitrary, Gen, QuickCheck};
    use serde::de::{self, Deserialize, MapAccess, SeqAccess, Visitor};

    use crate::{Config, Dialect, Dictionary, PoolStringArray, Variant};

    thread_local! {
        /// Each container met: what it announced, and how many items it had.
        static MET: RefCell<Vec<(Option<usize>, usize)>> = const { RefCell::new(Vec::new()) };
    }

    /// Any value, read through `deserialize_any`, noting its containers in `MET`.
    struct Noted;

    impl<'de> Deserialize<'de> for Noted {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(Noted)
        }
    }

    impl<'de> Visitor<'de> for Noted {
        type Value = Noted;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Noted, E> {
            Ok(Noted)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Noted, E> {
            Ok(Noted)
        }
        fn visit_str<E>(self, _: &str) -> Result<Noted, E> {
            Ok(Noted)
        }
        fn visit_unit<E>(self) -> Result<Noted, E> {
            Ok(Noted)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Noted, A::Error> {
            let hint = seq.size_hint();
            let mut n = 0;
            while seq.next_element::<Noted>()?.is_some() {
                n += 1;
            }
            MET.with(|m| m.borrow_mut().push((hint, n)));
            Ok(Noted)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Noted, A::Error> {
            let hint = map.size_hint();
            let mut n = 0;
            while map.next_key::<Noted>()?.is_some() {
                map.next_value::<Noted>()?;
                n += 1;
            }
            MET.with(|m| m.borrow_mut().push((hint, n)));
            Ok(Noted)
        }
    }

    fn tree(g: &mut Gen, depth: usize) -> Variant {
        let size = |g: &mut Gen| usize::from(u8::arbitrary(g) % 6);
        match u8::arbitrary(g) % if depth == 0 { 4 } else { 7 } {
            0 => Variant::Nil,
            1 => Variant::Int(i64::arbitrary(g)),
            2 => Variant::from("text"),
            3 => Variant::PoolStringArray(PoolStringArray(vec!["s".into(); size(g)])),
            4 | 5 => Variant::Array((0..size(g)).map(|_| tree(g, depth - 1)).collect()),
            _ => {
                let mut d = Dictionary::new();
                for i in 0..size(g) {
                    d.insert(Variant::Int(i as i64), tree(g, depth - 1));
                }
                Variant::Dictionary(d)
            }
        }
    }

    #[derive(Clone, Debug)]
    struct Tree(Variant);

    impl Arbitrary for Tree {
        fn arbitrary(g: &mut Gen) -> Self {
            Tree(tree(g, 4))
        }
    }

    /// Every array's room, in the `Variant` read: reserved once, for its items.
    fn capacities_fit(v: &Variant) -> bool {
        match v {
            Variant::Array(a) => a.capacity() == a.len() && a.iter().all(capacities_fit),
            Variant::Dictionary(d) => d.iter().all(|(_, v)| capacities_fit(v)),
            _ => true,
        }
    }

    #[test]
    fn well_formed_containers_announce_their_counts() {
        fn prop(Tree(v): Tree) -> bool {
            [Dialect::Godot3, Dialect::Godot4]
                .into_iter()
                .all(|dialect| {
                    let cfg = Config::new().dialect(dialect);
                    let bytes = cfg.to_vec(&v).unwrap();
                    MET.with(|m| m.borrow_mut().clear());
                    cfg.from_slice::<Noted>(&bytes).unwrap();
                    let slice = MET.with(|m| m.take());
                    cfg.from_reader::<_, Noted>(&bytes[..]).unwrap();
                    let reader = MET.with(|m| m.take());
                    slice.iter().all(|&(hint, n)| hint == Some(n))
                        && reader.iter().all(|&(hint, n)| hint == Some(n.min(16)))
                        && slice.len() == reader.len()
                        && capacities_fit(&cfg.from_slice::<Variant>(&bytes).unwrap())
                })
        }
        QuickCheck::new()
            .tests(2000)
            .quickcheck(prop as fn(Tree) -> bool);
    }
}
