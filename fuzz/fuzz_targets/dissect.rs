//! `Config::dissect` and `Dialect::detect` on any bytes: what `godot-bin decode --output
//! tree` and `--dialect auto` do with a stranger's packet. Neither may panic; a
//! dissection that ends cleanly must agree with the decoder (same value, same length)
//! and its items must lie inside the bytes, each after the one before; a dissection
//! that fails must fail where the decoder does; a detected dialect must read the bytes.
//!
//! Input: one selector byte (see `godot_bin_fuzz::config`), then the value bytes.
#![no_main]

use godot_bin::{Config, Dialect, Variant};
use godot_bin_fuzz::config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let cfg = config(sel);
    let d = cfg.dissect(bytes);
    let mut last = 0;
    for item in &d.items {
        assert!(item.offset >= last, "items in byte order");
        assert!(item.offset + item.len <= bytes.len(), "items inside the bytes");
        last = item.offset;
    }
    match (&d.error, cfg.take_from_slice::<Variant>(bytes)) {
        (None, Ok((v, used))) => {
            assert_eq!(d.value.as_ref(), Some(&v));
            assert_eq!(d.len, used);
            assert!(d.items.iter().all(|i| i.complete));
        }
        (Some(e), Err(de)) => assert_eq!(e.offset(), de.offset(), "{e} / {de}"),
        (e, de) => panic!("dissect {e:?} but decode {de:?}"),
    }

    let detection = Dialect::detect(bytes);
    if let Some(dialect) = detection.dialect() {
        let cfg = Config::new().dialect(dialect).allow_objects(true);
        assert_eq!(
            cfg.from_slice::<Variant>(bytes).ok().as_ref(),
            detection.values().map(|v| &v[0])
        );
    }
});
