//! The error API: messages and offsets pinned per case, categories, `io::Error`
//! conversion, and the reliability defects each with the test that caught it.

mod common;

use common::unhex;
use godot_bin::{Category, Config, Deserializer, Dialect, ErrorKind, Variant};
use serde::Deserialize;

fn g3() -> Config {
    Config::new()
}
fn g4() -> Config {
    Config::new().dialect(Dialect::Godot4)
}
fn g2() -> Config {
    Config::new().dialect(Dialect::Godot2)
}

/// Input, dialect, the whole message (offset included), category.
#[test]
fn decode_errors_are_pinned() {
    let cases: &[(&str, Config, &str, Category)] = &[
        ("", g3(), "unexpected end of input while reading a Variant header at byte offset 0", Category::Eof),
        ("0200", g3(), "unexpected end of input while reading a Variant header at byte offset 0", Category::Eof),
        ("1b000000", g3(), "unknown Variant type id 27 in Godot 3; in Godot 2 it is Vector3Array: decode with Dialect::Godot2; in Godot 4 it is Dictionary: decode with Dialect::Godot4 at byte offset 0", Category::Data),
        ("1c000000 00000000", g3(), "unknown Variant type id 28 in Godot 3; in Godot 2 it is ColorArray: decode with Dialect::Godot2; in Godot 4 it is Array: decode with Dialect::Godot4 at byte offset 0", Category::Data),
        ("ff000000", g3(), "unknown Variant type id 255 in Godot 3 at byte offset 0", Category::Data),
        ("27000000", g4(), "unknown Variant type id 39 in Godot 4 at byte offset 0", Category::Data),
        ("1d000000", g2(), "unknown Variant type id 29 in Godot 2; in Godot 4 it is PackedByteArray: decode with Dialect::Godot4 at byte offset 0", Category::Data),
        ("26000000", g4(), "unexpected end of input while reading a pool array count at byte offset 4", Category::Eof),
        // The count was read fine: say what it claimed and what is left.
        ("13000000 05000000 02000000 01000000", g3(), "an Array count of 5 items does not fit in the 8 bytes left at byte offset 4", Category::Eof),
        ("12000000 03000000", g3(), "a Dictionary count of 3 items does not fit in the 0 bytes left at byte offset 4", Category::Eof),
        ("14000000 09000000 0102", g3(), "a PoolByteArray count of 9 items does not fit in the 2 bytes left at byte offset 4", Category::Eof),
        ("0f000000 05000080 00000000 00000000", g3(), "NodePath names of 5 items does not fit in the 0 bytes left at byte offset 4", Category::Eof),
        ("04000000 05000000 61626364", g3(), "unexpected end of input while reading a string and its padding at byte offset 8", Category::Eof),
        ("04000000 02000000 c3280000", g3(), "invalid UTF-8 in a string at byte offset 4", Category::Data),
        ("04000000 ffffffff", g3(), "invalid length 4294967295 for a string at byte offset 4", Category::Data),
        ("0f000000 01000000 61000000", g3(), "malformed data: a NodePath in the pre-3.1 format (name count without bit 31) at byte offset 4", Category::Data),
        ("02000000 01000000 00000000", g3(), "trailing bytes after the value at byte offset 8", Category::Data),
        ("11000000 00000000", g3(), "full Objects are refused unless allowed (allow_objects, encode_objects) at byte offset 0", Category::Limit),
        ("13000000 01000000 13000000 01000000 02000000 01000000", g3().max_depth(1), "nesting deeper than the limit of 1 at byte offset 8", Category::Limit),
        ("04000000 01000000 61000000", g3().max_bytes(8), "value larger than the limit of 8 bytes at byte offset 8", Category::Limit),
    ];
    for (hex, cfg, message, category) in cases {
        let err = cfg.from_slice::<Variant>(&unhex(hex)).unwrap_err();
        assert_eq!(err.to_string(), *message, "{hex}");
        assert_eq!(err.classify(), *category, "{hex}");
        assert_eq!(err.is_eof(), *category == Category::Eof, "{hex}");
    }
}

/// A value cut short gives the same error, at the same byte, from a slice and from a
/// stream, whatever it is read as: for items of a fixed size, where the first item that
/// is not all there starts; for a PoolByteArray, the first missing byte, or where the
/// padding starts when only the padding is missing.
#[test]
fn cut_values_fail_alike_from_slices_and_streams() {
    use godot_bin::{PoolByteArray, Vector2, Vector3};
    use serde_bytes::ByteBuf;
    fn both<T: serde::de::DeserializeOwned>(cfg: Config, hex: &str) -> [String; 2] {
        let b = unhex(hex);
        let slice = cfg.from_slice::<T>(&b).map(|_| ()).unwrap_err();
        let stream = cfg.from_reader::<_, T>(&b[..]).map(|_| ()).unwrap_err();
        [slice.to_string(), stream.to_string()]
    }
    // Cut inside y; then with 64-bit reals (a double-precision build).
    let vector3 = "07000000 0000803f 0000";
    let vector2 = "05000100 0000803f 00000040";
    let math = [
        "a math value at byte offset 8",
        "a math value at byte offset 12",
    ];
    // Five bytes without their padding, then with part of it.
    let [bytes, part] = [
        "14000000 05000000 01020304 05",
        "14000000 05000000 01020304 0500",
    ];
    let padding = "PoolByteArray padding at byte offset 13";
    let cases = [
        (both::<Vector3>(g3(), vector3), math[0]),
        (both::<Variant>(g3(), vector3), math[0]),
        (both::<Vector2>(g4(), vector2), math[1]),
        (both::<Variant>(g4(), vector2), math[1]),
        (both::<Vec<u8>>(g3(), bytes), padding),
        (both::<ByteBuf>(g3(), bytes), padding),
        (both::<PoolByteArray>(g3(), bytes), padding),
        (both::<Variant>(g3(), bytes), padding),
        (both::<Variant>(g3(), part), padding),
    ];
    for (i, ([slice, stream], tail)) in cases.into_iter().enumerate() {
        assert!(slice.ends_with(tail), "case {i}, from a slice: {slice}");
        assert_eq!(stream, slice, "case {i}, from a stream");
    }
}

#[test]
fn typed_errors_are_pinned() {
    let e = godot_bin::from_slice::<u8>(&godot_bin::to_vec(&300).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid value: found integer `300`, expected u8 at byte offset 0"
    );
    assert_eq!(e.classify(), Category::Data);
    let e = godot_bin::from_slice::<Vec<String>>(&godot_bin::to_vec(&(1, 2)).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: found integer `1`, expected a string at byte offset 8"
    );
}

/// The out-of-range message prints the value itself, not a clamped one.
#[test]
fn out_of_range_ints_print_their_value() {
    let e = godot_bin::to_vec(&u128::MAX).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UintOutOfRange(v, _) if *v == u128::MAX));
    assert_eq!(
        e.to_string(),
        "integer 340282366920938463463374607431768211455 out of range for a Godot int (i64)"
    );
    assert_eq!(e.classify(), Category::Data);
    let e = godot_bin::to_vec(&i128::MIN).unwrap_err();
    assert_eq!(
        e.to_string(),
        "integer -170141183460469231731687303715884105728 out of range for a Godot int (i64)"
    );
    assert_eq!(
        godot_bin::to_variant(&u128::MAX).unwrap_err().to_string(),
        "integer 340282366920938463463374607431768211455 out of range for a Godot int (i64)"
    );
    assert_eq!(
        godot_bin::to_vec(&godot_bin::PoolIntArray(vec![]))
            .map(|_| ())
            .ok(),
        Some(())
    );
}

#[test]
fn unrepresentable_is_unsupported() {
    let e = godot_bin::to_vec("a\0b").unwrap_err();
    assert_eq!(e.classify(), Category::Unsupported);
    let io: std::io::Error = e.into();
    assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn into_io_error() {
    let cut = godot_bin::from_slice::<String>(&[4, 0, 0, 0, 9, 0, 0, 0]).unwrap_err();
    let io: std::io::Error = cut.into();
    assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
    assert!(io.to_string().contains("at byte offset 8"));
    let bad = godot_bin::from_slice::<Variant>(&unhex("ff000000")).unwrap_err();
    assert_eq!(
        std::io::Error::from(bad).kind(),
        std::io::ErrorKind::InvalidData
    );
    // An I/O error comes back as itself.
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "gone",
            ))
        }
    }
    let e = godot_bin::from_reader::<_, Variant>(Broken).unwrap_err();
    assert_eq!(e.classify(), Category::Io);
    assert_eq!(
        std::io::Error::from(e).kind(),
        std::io::ErrorKind::ConnectionReset
    );
}

/// Every byte read from an `io::Read` counts against `max_bytes`, not only strings:
/// before, a `Vec<i32>` read element by element passed the limit.
#[test]
fn max_bytes_bounds_every_reader_read() {
    let bytes = godot_bin::to_vec(&vec![7i32; 100]).unwrap();
    let cfg = Config::new().max_bytes(64);
    let e = cfg.from_reader::<_, Vec<i32>>(&bytes[..]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded(64)), "{e}");
    assert_eq!(e.offset(), Some(64));
    let e = cfg.from_reader::<_, Variant>(&bytes[..]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded(64)), "{e}");
    // Headers and numbers too: a value of exactly the limit passes, one byte less fails.
    let one = godot_bin::to_vec(&(1i64 << 40)).unwrap();
    assert_eq!(
        Config::new()
            .max_bytes(12)
            .from_reader::<_, i64>(&one[..])
            .unwrap(),
        1 << 40
    );
    let e = Config::new()
        .max_bytes(11)
        .from_reader::<_, i64>(&one[..])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded(11)), "{e}");
    assert_eq!(
        Config::new()
            .max_bytes(3)
            .from_reader::<_, i64>(&one[..])
            .unwrap_err()
            .offset(),
        Some(0)
    );
}

/// A visitor that fails after reading its container leaves the depth as it was:
/// before, `?` returned before the depth was restored, and a later value on the same
/// deserializer hit the limit early.
#[test]
fn depth_is_restored_when_a_visitor_fails() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Pair {
        a: i32,
        b: i32,
    }
    let mut bytes = godot_bin::to_vec(
        &[("a", 1)]
            .into_iter()
            .collect::<std::collections::BTreeMap<_, _>>(),
    )
    .unwrap();
    bytes.extend(godot_bin::to_vec(&vec![vec![vec![1]]]).unwrap());
    let cfg = Config::new().max_depth(3);
    for _ in 0..2 {
        let mut de = Deserializer::with_config(godot_bin::de::SliceRead::new(&bytes), cfg);
        let e = Pair::deserialize(&mut de).unwrap_err();
        assert_eq!(e.to_string(), "missing field `b` at byte offset 0");
        let deep = Vec::<Vec<Vec<i32>>>::deserialize(&mut de).unwrap();
        assert_eq!(deep, [[[1]]]);
        de.end().unwrap();
    }
}

/// `max_depth` is capped at Godot's own limit, so no setting lets a hostile input
/// exhaust the stack.
#[test]
fn max_depth_is_capped_at_godots_limit() {
    let handle = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut bytes = Vec::new();
            for _ in 0..5000 {
                bytes.extend_from_slice(&unhex("13000000 01000000"));
            }
            bytes.extend_from_slice(&unhex("00000000"));
            let cfg = Config::new().max_depth(usize::MAX);
            let e = cfg.from_slice::<Variant>(&bytes).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::DepthLimit(godot_bin::GODOT_MAX_DEPTH)),
                "{e}"
            );
            assert_eq!(e.offset(), Some(8 * godot_bin::GODOT_MAX_DEPTH));
        })
        .unwrap();
    handle.join().unwrap();
}

/// `Display` of a Dictionary with more than 16 float keys, one of them NaN, panicked
/// in the key sort ("user-provided comparison function does not correctly implement a
/// total order"). The bytes are the engine's (issue report).
#[test]
fn display_of_nan_keys_does_not_panic() {
    let mut hex = String::from("12000000 15000000");
    for i in 0..21u32 {
        if i == 7 {
            hex.push_str(" 03000100 00000000 0000f87f 00000000");
        } else {
            let f = (20 - i) as f32 * 0.5;
            hex.push_str(&format!(
                " 03000000 {} 00000000",
                common::hex(&f.to_le_bytes())
            ));
        }
    }
    let v: Variant = godot_bin::from_slice(&unhex(&hex)).unwrap();
    for dialect in [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4] {
        let text = v.display(dialect).to_string();
        assert!(text.contains("nan"), "{text}");
    }
    assert!(v
        .display(Dialect::Godot3)
        .godot_3_2()
        .to_string()
        .contains("nan"));
}

/// A Godot 4 value printed as Godot 3 (or 2) text: keys of types the dialect lacks
/// must still sort in a total order. The input is the fuzzer's (selector byte, then a
/// Godot 4 value whose dictionary has Vector2i and Vector4i keys); it panicked the sort.
#[test]
fn display_of_foreign_keys_does_not_panic() {
    let data =
        std::fs::read(common::root().join("tests/fixtures/fuzz/display_foreign_key_sort.bin"))
            .unwrap();
    let g4 = Config::new().dialect(Dialect::Godot4);
    let (v, _) = g4.take_from_slice::<Variant>(&data[1..]).unwrap();
    for dialect in [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4] {
        assert!(!v.display(dialect).to_string().is_empty());
        assert!(!v.display(dialect).godot_3_2().to_string().is_empty());
    }
}
