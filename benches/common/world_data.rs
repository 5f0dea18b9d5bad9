// The world snapshot shared by `benches/world.rs` (criterion) and
// `benches/instructions.rs` (callgrind counts): 1000 entities, the same every run.
// Included with `include!`, so the including file imports `Serialize`, `Deserialize`,
// `PoolStringArray`, `Quat` and `Vector3`.

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
struct Entity {
    name: String,
    id: u32,
    position: Vector3,
    rotation: Quat,
    velocity: Vector3,
    hp: i32,
    alive: bool,
    tags: PoolStringArray,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
struct World {
    tick: u64,
    entities: Vec<Entity>,
}

/// The same data with borrowed strings (zero-copy where the format allows).
#[derive(Deserialize)]
struct EntityRef<'a> {
    #[serde(borrow)]
    name: &'a str,
    id: u32,
    position: Vector3,
    rotation: Quat,
    velocity: Vector3,
    hp: i32,
    alive: bool,
    #[serde(borrow, with = "godot_bin::pool::string")]
    tags: Vec<&'a str>,
}

#[derive(Deserialize)]
struct WorldRef<'a> {
    tick: u64,
    #[serde(borrow)]
    entities: Vec<EntityRef<'a>>,
}

/// Whether the borrowed decode holds the same data.
fn same(r: &WorldRef, w: &World) -> bool {
    r.tick == w.tick
        && r.entities.len() == w.entities.len()
        && r.entities.iter().zip(&w.entities).all(|(a, b)| {
            a.name == b.name
                && a.id == b.id
                && a.position == b.position
                && a.rotation == b.rotation
                && a.velocity == b.velocity
                && a.hp == b.hp
                && a.alive == b.alive
                && a.tags == b.tags.0
        })
}

fn world() -> World {
    // A fixed LCG: the same snapshot every run.
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as u32
    };
    let mut f = move || (next() % 20000) as f32 / 100.0 - 100.0;
    let entities = (0..1000u32)
        .map(|id| Entity {
            name: format!("entity_{id:04}"),
            id,
            position: Vector3::new(f(), f(), f()),
            rotation: Quat::new(0.0, f() / 100.0, 0.0, 1.0),
            velocity: Vector3::new(f(), 0.0, f()),
            hp: (f() as i32).abs(),
            alive: id % 7 != 0,
            tags: PoolStringArray(
                ["npc", "enemy", "flying", "boss"][..(id % 4) as usize]
                    .iter()
                    .map(|t| t.to_string())
                    .collect(),
            ),
        })
        .collect();
    World {
        tick: 123_456,
        entities,
    }
}
