//! A game-state struct to Godot bytes and back, printed in Godot's own text form.
//!
//! Run with `cargo run --example quickstart`.

use godot_bin::{Dialect, PoolStringArray, Quat, Variant, Vector3};
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
struct GameState {
    tick: i64,
    map: String,
    players: Vec<Player>,
}

fn main() -> godot_bin::Result<()> {
    let state = GameState {
        tick: 4242,
        map: "res://levels/arena.tscn".into(),
        players: vec![
            Player {
                name: "Ann".into(),
                id: 7,
                position: Vector3::new(1.0, 2.5, -3.0),
                rotation: Quat::IDENTITY,
                hp: 100,
                alive: true,
                tags: PoolStringArray(vec!["red".into(), "fast".into()]),
            },
            Player {
                name: "Bob".into(),
                id: 8,
                position: Vector3::new(-4.0, 0.0, 0.5),
                rotation: Quat::new(
                    0.0,
                    std::f32::consts::FRAC_1_SQRT_2,
                    0.0,
                    std::f32::consts::FRAC_1_SQRT_2,
                ),
                hp: 0,
                alive: false,
                tags: PoolStringArray::default(),
            },
        ],
    };

    // What Godot 3's var2bytes(state) gives; send it, store it, put_var it.
    let bytes = godot_bin::to_vec(&state)?;
    println!("{} bytes of Godot 3 Variant data:", bytes.len());
    for row in bytes.chunks(16).take(4) {
        let hex: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
        println!("  {}", hex.join(" "));
    }
    println!("  ...");

    // Back into the Rust struct, as bytes2var would read it in Godot.
    let back: GameState = godot_bin::from_slice(&bytes)?;
    assert_eq!(back, state);

    // No schema needed: any Godot bytes decode into a Variant, printed like var2str.
    let any: Variant = godot_bin::from_slice(&bytes)?;
    println!("\nvar2str (Godot 3):\n{any}");

    // The same value for a Godot 4 game.
    let g4 = godot_bin::Config::new().dialect(Dialect::Godot4);
    let bytes4 = g4.to_vec(&state)?;
    let any4: Variant = g4.from_slice(&bytes4)?;
    println!(
        "\nvar_to_str (Godot 4, {} bytes):\n{}",
        bytes4.len(),
        any4.display(Dialect::Godot4)
    );
    Ok(())
}
