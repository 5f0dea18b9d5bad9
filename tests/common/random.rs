//! Seeded random Variants for the differential tests against the engines: every type
//! of a dialect, nested containers, edge numbers, strings with escapes and astral
//! characters, keys of any type.

use godot_bin::*;

/// splitmix64: small, seedable, good enough to spread values.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The seed of a run: `GODOT_RANDOM_SEED` or the clock; printed by the caller.
pub fn seed() -> u64 {
    std::env::var("GODOT_RANDOM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        })
}

const PIECES: &[&str] = &[
    "a",
    "Z",
    "0",
    " ",
    "hp",
    "\n",
    "\t",
    "\r",
    "\u{b}",
    "\u{8}",
    "\u{c}",
    "\u{7}",
    "'",
    "\"",
    "\\",
    "?",
    "é",
    "日本",
    "😀",
    "\u{10FFFF}",
    "$",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "=",
    "&",
    "@",
    "#",
];

pub fn string(r: &mut Rng) -> String {
    (0..r.below(6)).map(|_| r.pick(PIECES)).collect()
}

fn name(r: &mut Rng) -> String {
    let s: String = (0..1 + r.below(4))
        .map(|_| r.pick(&["a", "b", "Node", "x1", "é", "?", " "]))
        .collect();
    s
}

pub fn float(r: &mut Rng) -> f64 {
    match r.below(12) {
        0 => r.pick(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1e-45f32 as f64,
            1e300,
            16777217.0,
        ]),
        1 => r.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.1, 1.0 / 3.0]),
        2 => f64::from(f32::from_bits(r.next() as u32)),
        3 => (r.below(2000) as f64 - 1000.0) / 8.0,
        4 => (r.below(100000) as f64) * 1e-7,
        5 => f64::from_bits(r.next()),
        _ => (r.below(200000) as f64 - 100000.0) / 100.0,
    }
}

fn real(r: &mut Rng) -> f32 {
    match r.below(10) {
        0 => r.pick(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ]),
        1 => f32::from_bits(r.next() as u32),
        2 => r.pick(&[1e-45, 3.4e38, 1e-7, 123456.79, 0.1]),
        _ => (r.below(20000) as f32 - 10000.0) / 16.0,
    }
}

pub fn int(r: &mut Rng) -> i64 {
    match r.below(6) {
        0 => r.pick(&[
            0,
            1,
            -1,
            i32::MAX as i64,
            i32::MIN as i64,
            1 << 31,
            i64::MAX,
            i64::MIN,
        ]),
        1 => r.next() as i64,
        2 => r.next() as i32 as i64,
        _ => r.below(2001) as i64 - 1000,
    }
}

fn i32s<const N: usize>(r: &mut Rng) -> [i32; N] {
    [0; N].map(|_| int(r) as i32)
}

fn reals<const N: usize>(r: &mut Rng) -> [f32; N] {
    [0.0; N].map(|_| real(r))
}

fn v2(r: &mut Rng) -> Vector2 {
    let [x, y] = reals(r);
    Vector2::new(x, y)
}

fn v3(r: &mut Rng) -> Vector3 {
    let [x, y, z] = reals(r);
    Vector3::new(x, y, z)
}

fn v4(r: &mut Rng) -> Vector4 {
    let [x, y, z, w] = reals(r);
    Vector4::new(x, y, z, w)
}

fn color(r: &mut Rng) -> Color {
    let [cr, g, b, a] = reals(r);
    Color::new(cr, g, b, a)
}

fn node_path(r: &mut Rng) -> NodePath {
    let names = (0..r.below(3)).map(|_| name(r)).collect();
    let subnames = (0..r.below(2)).map(|_| name(r)).collect();
    NodePath::from_parts(r.chance(2), names, subnames)
}

/// A leaf (no containers) of `dialect`.
fn leaf(r: &mut Rng, dialect: Dialect) -> Variant {
    let g4 = dialect == Dialect::Godot4;
    let kinds = if g4 { 37 } else { 25 };
    match r.below(kinds) {
        0 => Variant::Nil,
        1 => Variant::Bool(r.chance(2)),
        2 | 3 => Variant::Int(int(r)),
        4 | 5 => Variant::Float(float(r)),
        6 | 7 => Variant::String(string(r)),
        8 => Variant::Vector2(v2(r)),
        9 => {
            let [x, y, w, h] = reals(r);
            Variant::Rect2(Rect2::new(x, y, w, h))
        }
        10 => Variant::Vector3(v3(r)),
        11 => Variant::Transform2D(Transform2D::new(v2(r), v2(r), v2(r))),
        12 => {
            let [a, b, c, d] = reals(r);
            Variant::Plane(Plane::new(a, b, c, d))
        }
        13 => {
            let [x, y, z, w] = reals(r);
            Variant::Quat(Quat::new(x, y, z, w))
        }
        14 => Variant::Aabb(Aabb {
            position: v3(r),
            size: v3(r),
        }),
        15 => Variant::from(Basis {
            x: v3(r),
            y: v3(r),
            z: v3(r),
        }),
        16 => Variant::from(Transform {
            basis: Basis {
                x: v3(r),
                y: v3(r),
                z: v3(r),
            },
            origin: v3(r),
        }),
        17 => Variant::Color(color(r)),
        18 => Variant::NodePath(node_path(r)),
        19 => Variant::PoolByteArray(PoolByteArray(
            (0..r.below(6)).map(|_| r.next() as u8).collect(),
        )),
        20 => Variant::PoolIntArray(PoolIntArray(
            (0..r.below(4)).map(|_| int(r) as i32).collect(),
        )),
        21 => Variant::PoolRealArray(PoolRealArray((0..r.below(4)).map(|_| real(r)).collect())),
        22 => Variant::PoolStringArray(PoolStringArray(
            (0..r.below(4)).map(|_| string(r)).collect(),
        )),
        23 => match r.below(3) {
            0 => Variant::PoolVector2Array(PoolVector2Array(
                (0..r.below(3)).map(|_| v2(r)).collect(),
            )),
            1 => Variant::PoolVector3Array(PoolVector3Array(
                (0..r.below(3)).map(|_| v3(r)).collect(),
            )),
            _ => {
                Variant::PoolColorArray(PoolColorArray((0..r.below(3)).map(|_| color(r)).collect()))
            }
        },
        24 => Variant::Rid(Rid(if g4 { r.next() } else { 0 })),
        25 => {
            let [x, y] = i32s(r);
            Variant::Vector2i(Vector2i::new(x, y))
        }
        26 => {
            let [x, y, w, h] = i32s(r);
            Variant::Rect2i(Rect2i::new(x, y, w, h))
        }
        27 => {
            let [x, y, z] = i32s(r);
            Variant::Vector3i(Vector3i::new(x, y, z))
        }
        28 => Variant::Vector4(v4(r)),
        29 => {
            let [x, y, z, w] = i32s(r);
            Variant::Vector4i(Vector4i::new(x, y, z, w))
        }
        30 => Variant::from(Projection {
            x: v4(r),
            y: v4(r),
            z: v4(r),
            w: v4(r),
        }),
        31 | 32 => Variant::StringName(StringName(string(r))),
        33 => {
            Variant::PackedInt64Array(PackedInt64Array((0..r.below(4)).map(|_| int(r)).collect()))
        }
        34 => Variant::PackedFloat64Array(PackedFloat64Array(
            (0..r.below(4)).map(|_| float(r)).collect(),
        )),
        35 => Variant::PackedVector4Array(PackedVector4Array(
            (0..r.below(3)).map(|_| v4(r)).collect(),
        )),
        _ => Variant::Callable(Callable),
    }
}

/// Any value of `dialect`, containers at most `depth` deep.
pub fn variant(r: &mut Rng, dialect: Dialect, depth: usize) -> Variant {
    if depth == 0 || r.below(10) < 6 {
        return leaf(r, dialect);
    }
    match r.below(if dialect == Dialect::Godot4 { 4 } else { 2 }) {
        0 => Variant::Array(
            (0..r.below(5))
                .map(|_| variant(r, dialect, depth - 1))
                .collect(),
        ),
        1 => {
            let mut d = Dictionary::new();
            // Past 16 keys the engines sort with introsort: some dictionaries are big.
            let big = r.chance(8);
            for _ in 0..r.below(if big { 24 } else { 5 }) {
                let key = if r.chance(3) {
                    Variant::String(string(r))
                } else if dialect == Dialect::Godot4 {
                    variant(r, dialect, depth - 1)
                } else if r.chance(6) {
                    // Godot 3's odd Array `<`, on elements that are safe to compare.
                    Variant::Array((0..r.below(3)).map(|_| Variant::Int(int(r) % 4)).collect())
                } else {
                    leaf(r, dialect)
                };
                // Godot 3 compares two pool arrays of one type past the shorter one's
                // end (it reads freed memory, and crashes): one length per pool type.
                if dialect != Dialect::Godot4 && pool_len(&key).is_some() {
                    let clash = d
                        .keys()
                        .any(|k| k.get_type() == key.get_type() && pool_len(k) != pool_len(&key));
                    if clash {
                        continue;
                    }
                }
                d.insert(key, variant(r, dialect, depth - 1));
            }
            Variant::Dictionary(d)
        }
        2 => {
            // A typed array whose items match their type, as the engine makes them.
            let item = leaf(r, dialect);
            let ty = item.get_type();
            let items = (0..r.below(4))
                .map(|_| loop {
                    let v = leaf(r, dialect);
                    if v.get_type() == ty {
                        break v;
                    }
                    if r.chance(4) {
                        break item.clone();
                    }
                })
                .collect();
            Variant::TypedArray(Box::new(TypedArray {
                element: ContainerType::Builtin(ty),
                items,
            }))
        }
        _ => {
            let mut entries = Dictionary::new();
            for _ in 0..r.below(4) {
                entries.insert(Variant::String(string(r)), Variant::Int(int(r)));
            }
            Variant::TypedDictionary(Box::new(TypedDictionary {
                key: Some(ContainerType::Builtin(VariantType::String)),
                value: Some(ContainerType::Builtin(VariantType::Int)),
                entries,
            }))
        }
    }
}

/// The element count of a pool array.
fn pool_len(v: &Variant) -> Option<usize> {
    Some(match v {
        Variant::PoolByteArray(a) => a.len(),
        Variant::PoolIntArray(a) => a.len(),
        Variant::PoolRealArray(a) => a.len(),
        Variant::PoolStringArray(a) => a.len(),
        Variant::PoolVector2Array(a) => a.len(),
        Variant::PoolVector3Array(a) => a.len(),
        Variant::PoolColorArray(a) => a.len(),
        _ => return None,
    })
}

/// The values inside `v` (elements, keys and values), for shrinking a failing case.
pub fn children(v: &Variant) -> Vec<Variant> {
    match v {
        Variant::Array(a) => a.clone(),
        Variant::TypedArray(t) => t.items.clone(),
        Variant::Dictionary(d) => d.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).collect(),
        Variant::TypedDictionary(t) => t
            .entries
            .iter()
            .flat_map(|(k, v)| [k.clone(), v.clone()])
            .collect(),
        _ => Vec::new(),
    }
}

/// `text` with one to three changes: one of `stirs` put in or put in place of a
/// character, or a run of up to four characters taken out.
// Only the tests that mutate text call it (each test includes this whole file).
#[allow(dead_code)]
pub fn mutate_text(text: &str, stirs: &[&str], rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        let stir: Vec<char> = rng.pick(stirs).chars().collect();
        match rng.below(3) {
            0 => drop(chars.splice(at..at, stir)),
            1 => drop(chars.drain(at..(at + 1 + rng.below(4)).min(chars.len()))),
            _ => drop(chars.splice(at..(at + 1).min(chars.len()), stir)),
        }
    }
    chars.into_iter().collect()
}
