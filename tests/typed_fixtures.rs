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
