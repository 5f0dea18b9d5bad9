//! `Config::dissect` and `Dialect::detect` on the engines' own bytes
//! (`tests/fixtures/godot3`, `godot4`), whole and cut short.

mod common;

use godot_bin::dissect::{Item, Role};
use godot_bin::{Config, Dialect, Variant, VariantType};

fn fixtures() -> Vec<(Dialect, common::Case)> {
    common::SETS
        .iter()
        .flat_map(|(file, dialect, _)| common::load(file).into_iter().map(|c| (*dialect, c)))
        .collect()
}

fn config(dialect: Dialect, case: &common::Case) -> Config {
    Config::new().dialect(dialect).allow_objects(case.objects)
}

/// The items of a complete dissection tile the bytes: each container's contents follow
/// its head without gaps and end where it ends; leaves decode to what `from_slice` gives.
fn check_tiling(items: &[Item], bytes: &[u8], cfg: Config) -> usize {
    let root = &items[0];
    let mut next = 1;
    if root.count.is_some() {
        // Children start after the head and end at the container's end.
        let mut end = root.offset + root.len;
        let children_start = items.get(1).map_or(end, |c| c.offset);
        assert!(children_start > root.offset);
        let mut at = children_start;
        while next < items.len() && items[next].depth > root.depth {
            // An Object's property names are no values: they sit between the items.
            if root.ty == VariantType::Object {
                assert!(items[next].offset >= at);
            } else {
                assert_eq!(items[next].offset, at, "gap before {:?}", items[next].role);
            }
            let used = check_tiling(&items[next..], bytes, cfg);
            at = items[next].offset + items[next].len;
            next += used;
        }
        if root.count == Some(0) {
            end = at;
        }
        assert_eq!(at, end, "the children end where the container does");
    } else {
        let leaf = &bytes[root.offset..root.offset + root.len];
        let (v, used) = cfg.take_from_slice::<Variant>(leaf).unwrap();
        assert_eq!(used, root.len);
        assert_eq!(root.value.as_ref(), Some(&v));
    }
    next
}

#[test]
fn dissections_of_engine_bytes_are_exact() {
    // Values nest up to 1024 deep here (as deep as the engine goes): room for the
    // debug build's frames.
    let t = std::thread::Builder::new().stack_size(256 << 20);
    t.spawn(dissect_engine_bytes).unwrap().join().unwrap();
}

fn dissect_engine_bytes() {
    let mut containers = 0;
    for (dialect, case) in fixtures() {
        let bytes = case.bytes();
        let cfg = config(dialect, &case).max_depth(godot_bin::GODOT_MAX_DEPTH);
        let d = std::thread::scope(|s| {
            // Values nest up to 1024 deep here: room for the debug build's frames.
            let t = std::thread::Builder::new().stack_size(64 << 20);
            t.spawn_scoped(s, || cfg.dissect(&bytes))
                .unwrap()
                .join()
                .unwrap()
        });
        assert!(d.error.is_none(), "{}: {:?}", case.name, d.error);
        assert_eq!(d.len, bytes.len(), "{}", case.name);
        assert_eq!(
            d.value.as_ref(),
            Some(&cfg.from_slice::<Variant>(&bytes).unwrap()),
            "{}",
            case.name
        );
        assert!(d.items.iter().all(|i| i.complete), "{}", case.name);
        assert_eq!(d.items[0].role, Role::Root);
        assert_eq!(
            check_tiling(&d.items, &bytes, cfg),
            d.items.len(),
            "{}",
            case.name
        );
        containers += d.items.iter().filter(|i| i.count.is_some()).count();
    }
    assert!(containers > 50, "{containers}");
}

#[test]
fn flags_name_the_header_bits() {
    let g4 = Config::new().dialect(Dialect::Godot4);
    let typed: Variant = godot_bin::text::from_str("Dictionary[String, int]({\"a\": 1})").unwrap();
    let d = g4.dissect(&g4.to_vec(&typed).unwrap());
    assert_eq!(
        d.items[0].flags,
        ["typed keys: String", "typed values: int"]
    );
    let d = g4.dissect(&g4.to_vec(&Variant::Int(1 << 40)).unwrap());
    assert_eq!(d.items[0].flags, ["64-bit"]);
    assert_eq!(d.items[0].header, 0x0001_0002);
    // Bits the format does not define are shown, not hidden.
    let d = g4.dissect(&[2, 0, 0x40, 0, 1, 0, 0, 0]);
    assert_eq!(d.items[0].flags, ["unknown bits 0x400000"]);
    assert_eq!(d.value, Some(Variant::Int(1)));
}

#[test]
fn cut_short_gives_what_decoded_and_where_it_stopped() {
    for (dialect, case) in fixtures() {
        let bytes = case.bytes();
        let cfg = config(dialect, &case);
        for cut in 0..bytes.len() {
            let d = cfg.dissect(&bytes[..cut]);
            let e = d
                .error
                .as_ref()
                .unwrap_or_else(|| panic!("{} cut at {cut}", case.name));
            let at = e.offset().expect("an offset");
            assert!(at <= cut, "{}: error at {at}, input {cut}", case.name);
            // Items are those whose header was read; the unfinished ones are marked.
            assert!(
                d.items.iter().all(|i| i.offset < cut.max(1)),
                "{}",
                case.name
            );
            assert!(
                d.items.iter().all(|i| i.offset + i.len <= cut),
                "{}",
                case.name
            );
            if let Some(first) = d.items.first() {
                assert!(!first.complete || d.items.len() == 1, "{}", case.name);
            }
        }
    }
}

#[test]
fn partial_values_keep_what_decoded() {
    // var_to_bytes({"a": [1, 2], "b": 3}) cut inside the int 2: the key "a", the Array
    // with its first element.
    let g4 = Config::new().dialect(Dialect::Godot4);
    let v: Variant = godot_bin::text::from_str("{\"a\": [1, 2], \"b\": 3}").unwrap();
    let bytes = g4.to_vec(&v).unwrap();
    let d = g4.dissect(&bytes[..40]);
    assert_eq!(
        d.value.unwrap().display(Dialect::Godot4).to_string(),
        "{\n\"a\": [1]\n}"
    );
    assert_eq!(d.error.unwrap().offset(), Some(40));
    let types: Vec<_> = d.items.iter().map(|i| (i.ty, i.complete)).collect();
    assert_eq!(
        types,
        [
            (VariantType::Dictionary, false),
            (VariantType::String, true),
            (VariantType::Array, false),
            (VariantType::Int, true),
            (VariantType::Int, false),
        ]
    );
}

#[test]
fn detection_finds_the_engine_that_wrote_the_fixtures() {
    let (mut chosen_right, mut ambiguous) = (0, 0);
    for (dialect, case) in fixtures() {
        let bytes = case.bytes();
        if Config::new()
            .dialect(dialect)
            .allow_objects(true)
            .from_slice::<Variant>(&bytes)
            .is_err()
        {
            // Deeper than the default limit, which detection keeps to.
            assert!(case.name.contains("nested"), "{}", case.name);
            continue;
        }
        let d = Dialect::detect(&bytes);
        assert!(d.readers().contains(&dialect), "{}: {:?}", case.name, d);
        let truth = Config::new()
            .dialect(dialect)
            .allow_objects(true)
            .from_slice::<Variant>(&bytes)
            .unwrap();
        if d.is_ambiguous() {
            ambiguous += 1;
        } else {
            // Unambiguous means: whichever dialect was chosen reads the true value.
            assert_eq!(d.values(), Some(&[truth][..]), "{}", case.name);
            chosen_right += 1;
        }
    }
    // Measured on the fixtures of 3.2.3, 3.6 and 4.6: the ambiguous ones are mostly
    // leaves such as Godot 3's Color (Godot 4's Plane) and AABB (Godot 4's
    // Transform2D), and containers of little more than such a value.
    assert_eq!((chosen_right, ambiguous), (384, 36));
}

#[test]
fn detection_over_a_sequence_settles_what_one_value_cannot() {
    let g3 = Config::new().dialect(Dialect::Godot3);
    let color = g3
        .to_vec(&godot_bin::Color::new(1.0, 0.0, 0.0, 1.0))
        .unwrap();
    let dict = g3
        .to_vec(
            &godot_bin::text::from_str_in::<Variant>("{\"q\": Quat(0, 0, 0, 1)}", Dialect::Godot3)
                .unwrap(),
        )
        .unwrap();
    assert!(Dialect::detect(&color).is_ambiguous());
    let d = Dialect::detect_all(&[&color, &dict]);
    assert_eq!(d.dialect(), Some(Dialect::Godot3));
    // Godot 2's id 18 is a bare Object: bytes would be left over.
    assert_eq!(d.readers(), [Dialect::Godot3]);
    // Garbage: nobody reads it.
    let d = Dialect::detect(&[0xff, 0, 0, 0]);
    assert_eq!((d.dialect(), d.readers().len()), (None, 0));
}
