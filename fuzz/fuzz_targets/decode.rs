//! `Variant` from any bytes, in any dialect: what a game server does with a stranger's
//! packet. Decoding must never panic; whatever decodes must be writable again (else
//! the value model holds something the wire cannot carry) and read back equal (else
//! the encoder and decoder disagree); printing it must never panic; and the slice and
//! reader decoders, two code paths over the same grammar, must agree; and so must
//! `skip_variant`, which checks without making the value (same length, same error).
//!
//! Input: one selector byte (see `godot_bin_fuzz::config`: dialect, precision,
//! allow_objects), then the value bytes.
#![no_main]

use godot_bin::{Dialect, Variant};
use godot_bin_fuzz::{config, hex, reencode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let cfg = config(sel);

    // The reader path must accept exactly what the slice path accepts, with the same value.
    let whole = cfg.from_slice::<Variant>(bytes);
    let read = cfg.from_reader::<_, Variant>(bytes);
    match (&whole, &read) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "from_slice and from_reader values differ"),
        (Err(_), Err(_)) => {}
        _ => panic!("from_slice {whole:?} but from_reader {read:?} for {}", hex(bytes)),
    }

    let taken = cfg.take_from_slice::<Variant>(bytes);
    let skipped = cfg.skip_variant(bytes);
    match (&taken, &skipped) {
        (Ok((_, used)), Ok(skip)) => assert_eq!(used, skip, "skip_variant's length for {}", hex(bytes)),
        (Err(a), Err(b)) => assert_eq!(
            (format!("{:?}", a.kind()), a.offset(), a.to_string()),
            (format!("{:?}", b.kind()), b.offset(), b.to_string()),
            "skip_variant's error for {}",
            hex(bytes)
        ),
        _ => panic!("take_from_slice {taken:?} but skip_variant {skipped:?} for {}", hex(bytes)),
    }
    let Ok((v, used)) = taken else {
        assert!(whole.is_err(), "take_from_slice failed where from_slice succeeded");
        return;
    };
    assert!(used <= bytes.len());
    // from_slice is take_from_slice plus "nothing after it".
    assert_eq!(whole.is_ok(), used == bytes.len(), "from_slice vs take_from_slice ({used} of {})", bytes.len());

    // Text forms: no panic, in every dialect (a Godot 4 value printed as Godot 3 text is
    // what `to_string` does) and both Godot 3 flavours.
    let _ = v.to_string();
    for d in [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4] {
        let _ = v.display(d).to_string();
        let _ = v.display(d).godot_3_2().to_string();
    }

    // Round trip: our own bytes decode, whole, to an equal value.
    if let Some(again) = reencode(&cfg, &v, &data[..=used]) {
        let back: Variant = cfg
            .from_slice(&again)
            .unwrap_or_else(|e| panic!("re-encoded bytes do not decode: {e}\n  re-encoded: {}", hex(&again)));
        assert_eq!(back, v, "re-encoded bytes decode to another value: {}", hex(&again));
    }
});
