//! Hostile input: length bombs, deep nesting and garbage give errors with offsets,
//! never panics, and never allocations beyond a small multiple of the input.

mod common;
#[path = "common/peak.rs"]
mod peak;

use common::unhex;
use peak::peak;

use godot_bin::{Config, Dialect, ErrorKind, Variant};

/// Bombs: a header and a count that claims far more than the input holds.
const BOMBS: &[(&str, &str)] = &[
    ("string length", "04000000 ffffff7f 61626364"),
    ("string length, negative", "04000000 ffffffff"),
    ("byte array", "14000000 ffffff7f 00000000"),
    ("int array", "15000000 ffffff7f 00000000"),
    ("string array", "17000000 ffffff7f 01000000 00000000"),
    ("vector3 array", "19000000 00000010 00000000"),
    ("array", "13000000 ffffff7f 00000000 00000000"),
    ("dictionary", "12000000 ffffff7f 00000000 00000000"),
    ("nodepath names", "0f000000 ffffffff ffffff7f 00000000"),
    (
        "array of arrays",
        "13000000 ffffff7f 13000000 ffffff7f 13000000 ffffff7f",
    ),
];

#[test]
fn length_bombs_fail_without_allocating() {
    for (what, h) in BOMBS {
        let bytes = unhex(h);
        let (r, slice_peak) = peak(|| godot_bin::from_slice::<Variant>(&bytes));
        let err = r.unwrap_err();
        assert!(
            err.is_eof() || matches!(err.kind(), ErrorKind::InvalidLength { .. }),
            "{what}: {err}"
        );
        assert!(err.offset().is_some(), "{what}: {err}");
        let (r, reader_peak) = peak(|| godot_bin::from_reader::<_, Variant>(&bytes[..]));
        assert!(r.is_err(), "{what}");
        // A small multiple of the input, whatever the count claims.
        for p in [slice_peak, reader_peak] {
            assert!(
                p <= 64 * bytes.len() + 4096,
                "{what}: {p} bytes allocated for {} bytes",
                bytes.len()
            );
        }
    }
}

/// Containers in containers, each claiming as many items as the bytes after it could
/// hold: every level's count passes the check against the bytes left, so what each
/// reserves ahead of its items must come out of one allowance for the whole input.
#[test]
fn nested_count_bombs_fail_without_allocating() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Nest(Vec<Nest>);
    let (levels, n) = (127, 32768u32);
    for (dialect, array, dict) in [
        (Dialect::Godot3, 0x13u32, 0x12u32),
        (Dialect::Godot4, 0x1c, 0x1b),
    ] {
        let cfg = Config::new().dialect(dialect);
        let mut arrays = Vec::new();
        let mut dicts = Vec::new();
        for _ in 0..levels {
            arrays.extend(array.to_le_bytes());
            arrays.extend(n.to_le_bytes());
            // A Nil key, then the next Dictionary as its value.
            dicts.extend(dict.to_le_bytes());
            dicts.extend((n / 8).to_le_bytes());
            dicts.extend([0; 4]);
        }
        arrays.resize(arrays.len() + 4 * n as usize, 0);
        dicts.resize(dicts.len() + 4 * n as usize / 8, 0);
        type Refused<'a> = Box<dyn Fn(&[u8]) -> bool + 'a>;
        let runs: [(&str, &[u8], Refused); 5] = [
            (
                "arrays as Variant",
                &arrays,
                Box::new(|b| cfg.from_slice::<Variant>(b).is_err()),
            ),
            (
                "arrays as Vec",
                &arrays,
                Box::new(|b| cfg.from_slice::<Nest>(b).is_err()),
            ),
            (
                "dictionaries as Variant",
                &dicts,
                Box::new(|b| cfg.from_slice::<Variant>(b).is_err()),
            ),
            (
                "arrays from a reader",
                &arrays,
                Box::new(|b| cfg.from_reader::<_, Variant>(b).is_err()),
            ),
            (
                "dictionaries from a reader",
                &dicts,
                Box::new(|b| cfg.from_reader::<_, Variant>(b).is_err()),
            ),
        ];
        for (what, bytes, decode) in runs {
            let (refused, p) = peak(|| decode(bytes));
            assert!(refused, "{dialect:?} {what}");
            assert!(
                p <= 64 * bytes.len() + 4096,
                "{dialect:?} {what}: {p} bytes allocated for {} bytes",
                bytes.len()
            );
        }
    }
}

#[test]
fn big_valid_input_allocates_in_proportion() {
    // 100 000 empty arrays: the decoded value is large, but proportional to the input.
    let bytes = godot_bin::to_vec(&vec![Vec::<i32>::new(); 100_000]).unwrap();
    let (v, p) = peak(|| godot_bin::from_slice::<Variant>(&bytes).unwrap());
    assert_eq!(v.as_array().map(Vec::len), Some(100_000));
    assert!(p <= 8 * bytes.len(), "{p} bytes for {}", bytes.len());
    let (v, p) = peak(|| godot_bin::from_reader::<_, Variant>(&bytes[..]).unwrap());
    assert_eq!(v.as_array().map(Vec::len), Some(100_000));
    assert!(p <= 8 * bytes.len(), "{p} bytes for {}", bytes.len());
}

#[test]
fn deep_nesting_stops_at_the_limit() {
    // A million nested arrays: refused at the depth limit, long before the stack ends.
    for (dialect, array_id) in [
        (Dialect::Godot2, 0x15),
        (Dialect::Godot3, 0x13),
        (Dialect::Godot4, 0x1c),
    ] {
        let mut bytes = Vec::new();
        for _ in 0..1_000_000 {
            bytes.extend_from_slice(&[array_id, 0, 0, 0, 1, 0, 0, 0]);
        }
        let cfg = Config::new().dialect(dialect);
        let err = cfg.from_slice::<Variant>(&bytes).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::DepthLimit(128)), "{err}");
        assert_eq!(err.offset(), Some(8 * 128));
        let err = cfg.from_reader::<_, Variant>(&bytes[..]).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::DepthLimit(128)), "{err}");
        // Typed targets stop too.
        #[derive(serde::Deserialize, Debug)]
        struct Tree(#[allow(dead_code)] Vec<Tree>);
        let err = cfg.from_slice::<Tree>(&bytes).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::DepthLimit(128)), "{err}");
    }
    // Dictionaries nest through keys and values alike.
    let mut dicts = Vec::new();
    for _ in 0..1000 {
        dicts.extend_from_slice(&unhex("12000000 01000000"));
    }
    let err = godot_bin::from_slice::<Variant>(&dicts).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::DepthLimit(_)), "{err}");
}

#[test]
fn invalid_data_errors_carry_offsets() {
    let cases: &[(&str, &str, usize)] = &[
        ("unknown type", "1b000000", 0),
        ("bad UTF-8", "04000000 02000000 c3280000", 4),
        ("overlong UTF-8", "04000000 02000000 c0af0000", 4),
        ("surrogate", "04000000 03000000 eda08000", 4),
        ("old NodePath", "0f000000 01000000 61000000", 4),
        (
            "second element unknown",
            "13000000 02000000 00000000 ff000000",
            12,
        ),
        ("full object, not allowed", "11000000 00000000", 0),
        ("missing string padding", "04000000 01000000 61", 8),
    ];
    for (what, h, offset) in cases {
        let err = godot_bin::from_slice::<Variant>(&unhex(h)).unwrap_err();
        assert_eq!(err.offset(), Some(*offset), "{what}: {err}");
    }
    assert!(matches!(
        godot_bin::from_slice::<Variant>(&unhex("04000000 02000000 c3280000"))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidUtf8
    ));
    assert!(matches!(
        godot_bin::from_slice::<Variant>(&unhex("1b000000"))
            .unwrap_err()
            .kind(),
        ErrorKind::UnknownType {
            id: 27,
            dialect: Dialect::Godot3
        }
    ));
}

#[test]
fn godot_string_rules() {
    // As in the engine: a string ends at NUL, and a leading BOM is dropped.
    assert_eq!(
        godot_bin::from_slice::<String>(&unhex("04000000 03000000 61006200")).unwrap(),
        "a"
    );
    assert_eq!(
        godot_bin::from_slice::<String>(&unhex("04000000 04000000 efbbbf61")).unwrap(),
        "a"
    );
    // Godot 3 ignores header bits 8-15 and bit 16 outside int and float.
    assert_eq!(
        godot_bin::from_slice::<i32>(&unhex("02010000 05000000")).unwrap(),
        5
    );
}
