// The RPC cases shared by `benches/rpc.rs` (criterion) and `benches/instructions.rs`
// (callgrind counts). Included with `include!`, so the including file imports
// `BTreeMap`, `black_box`, `Dictionary`, `Variant` and `Vector3`.

/// The node's rpc methods, as `multiplayer/tests/oracle/bench_game4.gd` declares them.
const METHODS: [&str; 3] = ["chat", "move", "state"];

/// A unit of the state snapshot as a Rust server holds it: its fields are the keys
/// of the engine's dictionary, in the same order.
#[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
struct Unit {
    hp: i64,
    pos: Vector3,
    name: String,
}

/// What each case's handler takes its arguments as, read from `$call` (a call read
/// in place, with either engine's arguments), after any arms given first; the
/// including file imports `black_box` too.
macro_rules! handle {
    ($call:ident $(, $extra:pat $(if $guard:expr)? => $arm:expr)*) => {
        match $call.method {
            $($extra $(if $guard)? => $arm,)*
            "move" => drop(black_box(
                $call.args.get::<(Vector3, Vector3, i64, bool)>().unwrap(),
            )),
            "chat" => drop(black_box($call.args.get::<(String, i64)>().unwrap())),
            _ => drop(black_box(
                $call.args.get::<(BTreeMap<i64, Unit>, i64)>().unwrap(),
            )),
        }
    };
}

/// The state snapshot as a Rust server holds it (the same bytes as `cases()`'s).
fn units() -> BTreeMap<i64, Unit> {
    (0..10)
        .map(|i| {
            let unit = Unit {
                hp: 100 - i,
                pos: Vector3::new(i as f32, 0.5, -(i as f32)),
                name: format!("unit-{i}"),
            };
            (i, unit)
        })
        .collect()
}

/// The argument lists: a movement update, a chat line, and a state snapshot.
fn cases() -> Vec<(&'static str, Vec<Variant>)> {
    let mut state = Dictionary::new();
    for i in 0..10 {
        let mut entity = Dictionary::new();
        entity.insert(Variant::from("hp"), Variant::Int(100 - i));
        entity.insert(
            Variant::from("pos"),
            Variant::Vector3(Vector3::new(i as f32, 0.5, -(i as f32))),
        );
        entity.insert(Variant::from("name"), Variant::from(format!("unit-{i}")));
        state.insert(Variant::Int(i), Variant::Dictionary(entity));
    }
    vec![
        (
            "move",
            vec![
                Variant::Vector3(Vector3::new(12.5, 0.0, -3.25)),
                Variant::Vector3(Vector3::new(1.0, 0.0, 0.5)),
                Variant::Int(1_234_567),
                Variant::Bool(true),
            ],
        ),
        (
            "chat",
            vec![Variant::from("hello everyone, gg!"), Variant::Int(42)],
        ),
        ("state", vec![Variant::Dictionary(state), Variant::Int(7)]),
    ]
}

/// A case's call packet: its arguments to the node of cache id 1, as a peer sends it.
fn call_packet(name: &str, args: Vec<Variant>) -> Vec<u8> {
    let method = godot_bin_multiplayer::RpcNames::new(METHODS).id(name).unwrap();
    godot_bin_multiplayer::Packet::Call(godot_bin_multiplayer::RemoteCall {
        node: godot_bin_multiplayer::NodeRef::Cached(1),
        method,
        args,
    })
    .encode()
    .unwrap()
}

/// A server session with peer 2 connected, the node's path cached both ways (the
/// peer's id 1 for it, and the peer's confirmation of the server's), and nothing
/// left to poll.
fn server() -> godot_bin_multiplayer::Session {
    use godot_bin_multiplayer::{Delivery, Packet, RpcNames, Scene, Session, Target};
    let mut server = Session::server(Scene::new().node("Game", METHODS));
    server.connect(2);
    let simplify = Packet::SimplifyPath {
        checksum: RpcNames::new(METHODS).checksum().to_owned(),
        id: 1,
        path: "Game".into(),
    };
    server
        .receive(2, Delivery::default(), &simplify.encode().unwrap())
        .unwrap();
    let v = Vector3::new(1.0, 0.0, 0.5);
    server
        .rpc(Target::Peer(2), "Game", "move", &(v, v, 1, true))
        .unwrap();
    let confirm = Packet::ConfirmPath { valid: true, id: 1 };
    server
        .receive(2, Delivery::default(), &confirm.encode().unwrap())
        .unwrap();
    while server.poll_event().is_some() {}
    while server.poll_transmit().is_some() {}
    server
}
