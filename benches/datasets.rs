//! Four dataset shapes after rust_serialization_benchmark (log, mesh, minecraft_savedata,
//! mk48) through godot_bin and its peers in one run.
//!
//! `cargo bench --bench datasets`; `scripts/bench-report.sh datasets` prints the tables.
//! Groups are `datasets/<dataset>/{serialize,deserialize}/<format>`. The data comes from a
//! fixed LCG, so every run measures the same bytes; floats are multiples of 1/64 so that
//! every format (serde_json included) reads them back bit for bit.

use std::fmt::Debug;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use godot_bin::{Vector2, Vector3};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 32) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }

    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo)
    }

    fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// A multiple of 1/64 in [-range, range): exact in every format.
    fn f32(&mut self, range: u32) -> f32 {
        (self.below(range * 128) as f32 - (range * 64) as f32) / 64.0
    }

    fn vector3(&mut self) -> Vector3 {
        Vector3::new(self.f32(1000), self.f32(1000), self.f32(1000))
    }

    fn pick(&mut self, words: &[&str]) -> String {
        words[self.below(words.len() as u32) as usize].to_string()
    }

    fn word(&mut self, lo: u32, hi: u32) -> String {
        (0..self.range(lo, hi))
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }

    fn option<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        self.bool().then(|| f(self))
    }

    fn vec<T>(&mut self, lo: u32, hi: u32, mut f: impl FnMut(&mut Self) -> T) -> Vec<T> {
        (0..self.range(lo, hi)).map(|_| f(self)).collect()
    }
}

// log: web server access-log records.

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Address {
    x0: u8,
    x1: u8,
    x2: u8,
    x3: u8,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Log {
    address: Address,
    identity: String,
    userid: String,
    date: String,
    request: String,
    code: u16,
    size: u64,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Logs {
    logs: Vec<Log>,
}

fn logs(r: &mut Rng) -> Logs {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    const METHODS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];
    const CODES: [u16; 6] = [200, 200, 200, 304, 404, 500];
    let logs = (0..10_000)
        .map(|_| Log {
            address: Address {
                x0: r.next() as u8,
                x1: r.next() as u8,
                x2: r.next() as u8,
                x3: r.next() as u8,
            },
            identity: if r.bool() { "-".into() } else { r.word(4, 12) },
            userid: r.word(4, 12),
            date: format!(
                "{:02}/{}/{}:{:02}:{:02}:{:02} -0700",
                r.range(1, 29),
                r.pick(&MONTHS),
                r.range(1995, 2025),
                r.below(24),
                r.below(60),
                r.below(60),
            ),
            request: format!(
                "{} /{}/{}.html HTTP/1.1",
                r.pick(&METHODS),
                r.word(3, 10),
                r.word(3, 16)
            ),
            code: CODES[r.below(6) as usize],
            size: u64::from(r.below(100_000_000)),
        })
        .collect();
    Logs { logs }
}

// mesh: triangles of native Vector3s.

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Triangle {
    v0: Vector3,
    v1: Vector3,
    v2: Vector3,
    normal: Vector3,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Mesh {
    triangles: Vec<Triangle>,
}

fn mesh(r: &mut Rng) -> Mesh {
    let triangles = (0..10_000)
        .map(|_| Triangle {
            v0: r.vector3(),
            v1: r.vector3(),
            v2: r.vector3(),
            normal: r.vector3(),
        })
        .collect();
    Mesh { triangles }
}

// save: Minecraft-like player save data (nested structs, options, short strings).

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum GameMode {
    Survival,
    Creative,
    Adventure,
    Spectator,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Enchantment {
    id: String,
    level: u8,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Item {
    name: String,
    count: i8,
    slot: u8,
    damage: Option<u16>,
    enchantments: Option<Vec<Enchantment>>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Abilities {
    walk_speed: f32,
    fly_speed: f32,
    may_fly: bool,
    flying: bool,
    invulnerable: bool,
    may_build: bool,
    instabuild: bool,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Mob {
    id: String,
    position: Vector3,
    motion: Vector3,
    rotation: Vector2,
    fall_distance: f32,
    fire: u16,
    air: u16,
    on_ground: bool,
    no_gravity: bool,
    uuid: [u32; 4],
    custom_name: Option<String>,
    silent: bool,
    glowing: bool,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct RecipeBook {
    recipes: Vec<String>,
    to_be_displayed: Vec<String>,
    is_filtering_craftable: bool,
    is_gui_open: bool,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Player {
    game_mode: GameMode,
    previous_game_mode: Option<GameMode>,
    score: i64,
    dimension: String,
    selected_slot: u32,
    selected_item: Option<Item>,
    spawn: Option<Vector3>,
    spawn_dimension: Option<String>,
    spawn_forced: Option<bool>,
    sleep_timer: u16,
    food_exhaustion: f32,
    food_saturation: f32,
    xp_level: u32,
    xp_progress: f32,
    xp_total: i32,
    xp_seed: i32,
    position: Vector3,
    nether_position: Option<(f64, f64, f64)>,
    inventory: Vec<Item>,
    ender_items: Vec<Item>,
    abilities: Abilities,
    shoulder_left: Option<Mob>,
    shoulder_right: Option<Mob>,
    seen_credits: bool,
    recipe_book: RecipeBook,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Save {
    players: Vec<Player>,
}

const ITEMS: [&str; 8] = [
    "minecraft:dirt",
    "minecraft:stone",
    "minecraft:oak_planks",
    "minecraft:torch",
    "minecraft:iron_pickaxe",
    "minecraft:diamond_sword",
    "minecraft:bread",
    "minecraft:cobblestone",
];

fn game_mode(r: &mut Rng) -> GameMode {
    [
        GameMode::Survival,
        GameMode::Creative,
        GameMode::Adventure,
        GameMode::Spectator,
    ]
    .into_iter()
    .nth(r.below(4) as usize)
    .unwrap()
}

fn item(r: &mut Rng) -> Item {
    const ENCHANTMENTS: [&str; 4] = [
        "minecraft:sharpness",
        "minecraft:efficiency",
        "minecraft:unbreaking",
        "minecraft:mending",
    ];
    Item {
        name: r.pick(&ITEMS),
        count: r.range(1, 65) as i8,
        slot: r.below(36) as u8,
        damage: r.option(|r| r.below(1500) as u16),
        enchantments: r.option(|r| {
            r.vec(1, 4, |r| Enchantment {
                id: r.pick(&ENCHANTMENTS),
                level: r.range(1, 6) as u8,
            })
        }),
    }
}

fn mob(r: &mut Rng) -> Mob {
    Mob {
        id: r.pick(&["minecraft:parrot", "minecraft:cat", "minecraft:bat"]),
        position: r.vector3(),
        motion: Vector3::new(r.f32(2), r.f32(2), r.f32(2)),
        rotation: Vector2::new(r.f32(180), r.f32(90)),
        fall_distance: r.f32(10).abs(),
        fire: r.below(300) as u16,
        air: r.below(300) as u16,
        on_ground: r.bool(),
        no_gravity: r.bool(),
        uuid: [r.next(), r.next(), r.next(), r.next()],
        custom_name: r.option(|r| r.word(3, 12)),
        silent: r.bool(),
        glowing: r.bool(),
    }
}

fn player(r: &mut Rng) -> Player {
    const RECIPES: [&str; 6] = [
        "minecraft:crafting_table",
        "minecraft:furnace",
        "minecraft:chest",
        "minecraft:stick",
        "minecraft:torch",
        "minecraft:bread",
    ];
    const DIMENSIONS: [&str; 3] = [
        "minecraft:overworld",
        "minecraft:the_nether",
        "minecraft:the_end",
    ];
    Player {
        game_mode: game_mode(r),
        previous_game_mode: r.option(game_mode),
        score: i64::from(r.next()),
        dimension: r.pick(&DIMENSIONS),
        selected_slot: r.below(9),
        selected_item: r.option(item),
        spawn: r.option(Rng::vector3),
        spawn_dimension: r.option(|r| r.pick(&DIMENSIONS)),
        spawn_forced: r.option(Rng::bool),
        sleep_timer: r.below(100) as u16,
        food_exhaustion: r.f32(4).abs(),
        food_saturation: r.f32(20).abs(),
        xp_level: r.below(100),
        xp_progress: r.below(64) as f32 / 64.0,
        xp_total: r.below(100_000) as i32,
        xp_seed: r.next() as i32,
        position: r.vector3(),
        nether_position: r.option(|r| {
            let mut c = || f64::from(r.below(1 << 20) as i32 - (1 << 19)) / 8.0;
            (c(), c(), c())
        }),
        inventory: r.vec(0, 36, item),
        ender_items: r.vec(0, 12, item),
        abilities: Abilities {
            walk_speed: 0.125,
            fly_speed: 0.0625,
            may_fly: r.bool(),
            flying: r.bool(),
            invulnerable: r.bool(),
            may_build: r.bool(),
            instabuild: r.bool(),
        },
        shoulder_left: r.option(mob),
        shoulder_right: r.option(mob),
        seen_credits: r.bool(),
        recipe_book: RecipeBook {
            recipes: r.vec(0, 20, |r| r.pick(&RECIPES)),
            to_be_displayed: r.vec(0, 5, |r| r.pick(&RECIPES)),
            is_filtering_craftable: r.bool(),
            is_gui_open: r.bool(),
        },
    }
}

fn save(r: &mut Rng) -> Save {
    Save {
        players: (0..500).map(|_| player(r)).collect(),
    }
}

// snapshot: mk48-like game updates, many small entities.

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum EntityKind {
    ArleighBurke,
    Bismarck,
    Clemenceau,
    Fletcher,
    G5,
    Iowa,
    Kolkata,
    Osa,
    Yasen,
    Zubr,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Guidance {
    direction_target: f32,
    velocity_target: f32,
    submerge: bool,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Contact {
    kind: Option<EntityKind>,
    id: u32,
    player_id: Option<u32>,
    position: Vector2,
    direction: f32,
    velocity: f32,
    altitude: f32,
    damage: f32,
    guidance: Guidance,
    reloads: Vec<bool>,
    turret_angles: Vec<f32>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct TerrainUpdate {
    chunk: (i32, i32),
    #[serde(with = "serde_bytes")]
    data: Vec<u8>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Update {
    contacts: Vec<Contact>,
    score: u32,
    world_radius: f32,
    terrain: Vec<TerrainUpdate>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Snapshot {
    updates: Vec<Update>,
}

fn entity_kind(r: &mut Rng) -> EntityKind {
    use EntityKind::*;
    [
        ArleighBurke,
        Bismarck,
        Clemenceau,
        Fletcher,
        G5,
        Iowa,
        Kolkata,
        Osa,
        Yasen,
        Zubr,
    ]
    .into_iter()
    .nth(r.below(10) as usize)
    .unwrap()
}

fn contact(r: &mut Rng) -> Contact {
    let turrets = r.below(5);
    Contact {
        kind: r.option(entity_kind),
        id: r.next(),
        player_id: r.option(|r| r.below(1000)),
        position: Vector2::new(r.f32(5000), r.f32(5000)),
        direction: r.f32(4),
        velocity: r.f32(30),
        altitude: r.f32(1),
        damage: r.below(64) as f32 / 64.0,
        guidance: Guidance {
            direction_target: r.f32(4),
            velocity_target: r.f32(30),
            submerge: r.bool(),
        },
        reloads: (0..turrets + 2).map(|_| r.bool()).collect(),
        turret_angles: (0..turrets).map(|_| r.f32(4)).collect(),
    }
}

fn snapshot(r: &mut Rng) -> Snapshot {
    let updates = (0..100)
        .map(|_| Update {
            contacts: r.vec(20, 100, contact),
            score: r.below(100_000),
            world_radius: r.f32(10_000).abs(),
            terrain: r.vec(0, 3, |r| TerrainUpdate {
                chunk: (r.below(64) as i32 - 32, r.below(64) as i32 - 32),
                data: r.vec(32, 256, |r| r.next() as u8),
            }),
        })
        .collect();
    Snapshot { updates }
}

#[derive(Clone, Copy)]
enum Format {
    GodotBin,
    RmpSerde,
    SerdeJson,
    Ciborium,
    Bincode,
    Postcard,
}

const FORMATS: [Format; 6] = [
    Format::GodotBin,
    Format::RmpSerde,
    Format::SerdeJson,
    Format::Ciborium,
    Format::Bincode,
    Format::Postcard,
];

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::GodotBin => "godot_bin",
            Format::RmpSerde => "rmp_serde",
            Format::SerdeJson => "serde_json",
            Format::Ciborium => "ciborium",
            Format::Bincode => "bincode",
            Format::Postcard => "postcard",
        }
    }

    fn encode<T: Serialize>(self, v: &T) -> Vec<u8> {
        match self {
            Format::GodotBin => godot_bin::to_vec(v).unwrap(),
            // Named fields: self-describing like Godot's dictionaries.
            Format::RmpSerde => rmp_serde::to_vec_named(v).unwrap(),
            Format::SerdeJson => serde_json::to_vec(v).unwrap(),
            Format::Ciborium => {
                let mut out = Vec::new();
                ciborium::into_writer(v, &mut out).unwrap();
                out
            }
            Format::Bincode => bincode::serialize(v).unwrap(),
            Format::Postcard => postcard::to_allocvec(v).unwrap(),
        }
    }

    fn decode<T: DeserializeOwned>(self, b: &[u8]) -> T {
        match self {
            Format::GodotBin => godot_bin::from_slice(b).unwrap(),
            Format::RmpSerde => rmp_serde::from_slice(b).unwrap(),
            Format::SerdeJson => serde_json::from_slice(b).unwrap(),
            Format::Ciborium => ciborium::from_reader(b).unwrap(),
            Format::Bincode => bincode::deserialize(b).unwrap(),
            Format::Postcard => postcard::from_bytes(b).unwrap(),
        }
    }
}

fn dataset<T>(c: &mut Criterion, name: &str, data: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let encoded: Vec<Vec<u8>> = FORMATS.iter().map(|f| f.encode(data)).collect();
    eprint!("\n{name}: encoded bytes");
    for (f, bytes) in FORMATS.iter().zip(&encoded) {
        assert!(
            f.decode::<T>(bytes) == *data,
            "{name}: {} round trip",
            f.name()
        );
        eprint!("  {} {}", f.name(), bytes.len());
    }
    eprintln!();

    let mut group = c.benchmark_group(format!("datasets/{name}/serialize"));
    for (f, bytes) in FORMATS.iter().zip(&encoded) {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(f.name()), data, |b, data| {
            b.iter(|| f.encode(black_box(data)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group(format!("datasets/{name}/deserialize"));
    for (f, bytes) in FORMATS.iter().zip(&encoded) {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(f.name()), bytes, |b, bytes| {
            b.iter(|| f.decode::<T>(black_box(bytes)))
        });
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    dataset(c, "log", &logs(&mut r));
    dataset(c, "mesh", &mesh(&mut r));
    dataset(c, "save", &save(&mut r));
    dataset(c, "snapshot", &snapshot(&mut r));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
