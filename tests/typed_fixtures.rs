//! Derived Rust structs produce, byte for byte, what the engine writes for the same
//! data (the `game_state` fixture), and read it back.

mod common;

use common::*;
use godot_bin::{PoolStringArray, Quat, Vector2, Vector3};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Player {
    name: String,
    id: i64,
    position: Vector3,
    rotation: Quat,
    hp: i32,
    alive: bool,
    tags: PoolStringArray,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct World {
    seed: i64,
    time: f64,
    gravity: Vector3,
    spawn: Vec<Vector2>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct GameState {
    tick: i64,
    map: String,
    players: Vec<Player>,
    world: World,
}

// The literals are the fixture's GDScript ones, not Rust's constants.
#[allow(clippy::approx_constant)]
fn state() -> GameState {
    GameState {
        tick: 4242,
        map: "res://levels/arena.tscn".into(),
        players: vec![
            Player {
                name: "Ann".into(),
                id: 7,
                position: Vector3::new(1.0, 2.5, -3.0),
                rotation: Quat::new(0.0, 0.0, 0.0, 1.0),
                hp: 100,
                alive: true,
                tags: PoolStringArray(vec!["red".into(), "fast".into()]),
            },
            Player {
                name: "Bob".into(),
                id: 8,
                position: Vector3::new(-4.0, 0.0, 0.5),
                rotation: Quat::new(0.0, 0.707107, 0.0, 0.707107),
                hp: 0,
                alive: false,
                tags: PoolStringArray(vec![]),
            },
        ],
        world: World {
            seed: 123456789,
            time: 0.1,
            gravity: Vector3::new(0.0, -9.8, 0.0),
            spawn: vec![Vector2::new(1.0, 2.0), Vector2::new(3.0, 4.0)],
        },
    }
}

#[test]
fn game_state_matches_godot_3() {
    for file in [
        "tests/fixtures/godot3/godot3.2.jsonl",
        "tests/fixtures/godot3/godot3.6.jsonl",
    ] {
        let case = load(file)
            .into_iter()
            .find(|c| c.name == "game_state")
            .unwrap();
        assert_eq!(
            hex(&godot_bin::to_vec(&state()).unwrap()),
            case.hex,
            "{file}"
        );
        assert_eq!(
            godot_bin::from_slice::<GameState>(&case.bytes()).unwrap(),
            state()
        );
    }
}

#[test]
fn game_state_matches_godot_4() {
    let g4 = godot_bin::Config::new().dialect(godot_bin::Dialect::Godot4);
    let case = load("tests/fixtures/godot4/godot4.6.jsonl")
        .into_iter()
        .find(|c| c.name == "game_state")
        .unwrap();
    assert_eq!(hex(&g4.to_vec(&state()).unwrap()), case.hex);
    assert_eq!(g4.from_slice::<GameState>(&case.bytes()).unwrap(), state());
}

/// `with = "godot_bin::typed::..."` fields are the engine's `Array[int]`, `Array[String]`.
#[test]
fn typed_array_fields_match_godot_4() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inventory {
        #[serde(with = "godot_bin::typed::int")]
        ids: Vec<i64>,
        #[serde(with = "godot_bin::typed::string")]
        names: Vec<String>,
    }
    let g4 = godot_bin::Config::new().dialect(godot_bin::Dialect::Godot4);
    let case = load("tests/fixtures/godot4/godot4.6.jsonl")
        .into_iter()
        .find(|c| c.name == "struct_with_typed")
        .unwrap();
    let inv = Inventory {
        ids: vec![1, 2, 3],
        names: vec!["a".into()],
    };
    assert_eq!(hex(&g4.to_vec(&inv).unwrap()), case.hex);
    assert_eq!(g4.from_slice::<Inventory>(&case.bytes()).unwrap(), inv);
    // Godot 3 has no typed arrays: an error, not an untyped array.
    assert!(godot_bin::to_vec(&inv).is_err());
}
