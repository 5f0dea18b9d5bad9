# Godot 4's replication packets (MultiplayerSpawner, MultiplayerSynchronizer) on the
# wire, for godot-bin-multiplayer's tests: a server (/root/S, id 1) and a client
# (/root/C, id 1234567) in one process, joined by a script peer that prints every
# packet handed to it, as mp4.gd does. The server spawns nodes under Game (one by a
# spawn function with a custom argument, one from a packed scene), moves them (sync,
# every frame), changes watched properties (delta), and frees them (despawn); and it
# syncs a node that is not spawned, Game/State, whose synchronizer both sides name by
# its path (net id: bit 31 and the path cache id).
# multiplayer/scripts/gen-fixtures.sh writes the output to
# multiplayer/tests/fixtures/replication4.6.jsonl:
#   {"packet": "s2c"|"c2s", "to", "channel", "mode", "hex"}  every packet sent;
#   {"spawned": name, "arg": hex, "values": hex}  the client's spawner made a node
#       (arg: var_to_bytes of its custom argument; values: of [the spawn properties]);
#   {"synced": name, "values": hex}  the client applied a sync of [the sync properties];
#   {"delta": name, "values": hex}  the client applied a delta; values: [every watched
#       property] after it;
#   {"despawned": name};
#   {"synced": "State", "values": [score]}, {"delta": "State", "values": [motd]}.
# Values are seeded random (SEED, default 4242) of every kind a property here holds.
extends SceneTree

const Link := preload("res://link4.gd")

# The replicated node's script: properties of several Variant kinds.
const THING := """extends Node2D
var hp := 0
var label := ""
var tags := PackedStringArray()
var extra = null
"""

const STATE := """extends Node
var score := 0
var motd := ""
"""

# Spawn-only, synced every frame (ALWAYS), and watched (ON_CHANGE: deltas).
const SPAWN_ONLY := [".:label", ".:extra"]
const ALWAYS := [".:position", ".:rotation"]
const WATCHED := [".:hp", ".:visible", ".:tags"]

var frame := 0
var rng := RandomNumberGenerator.new()
var thing_script: GDScript
var s_game: Node
var c_game: Node
var s_nodes := []
var s_state: Node
var state_script: GDScript

func replication_config() -> SceneReplicationConfig:
	var cfg := SceneReplicationConfig.new()
	for p in SPAWN_ONLY:
		cfg.add_property(NodePath(p))
		cfg.property_set_spawn(NodePath(p), true)
		cfg.property_set_replication_mode(NodePath(p), SceneReplicationConfig.REPLICATION_MODE_NEVER)
	for p in ALWAYS:
		cfg.add_property(NodePath(p))
		cfg.property_set_spawn(NodePath(p), true)
		cfg.property_set_replication_mode(NodePath(p), SceneReplicationConfig.REPLICATION_MODE_ALWAYS)
	for p in WATCHED:
		cfg.add_property(NodePath(p))
		cfg.property_set_spawn(NodePath(p), p != ".:visible")
		cfg.property_set_replication_mode(NodePath(p), SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE)
	return cfg

func thing() -> Node2D:
	var n := Node2D.new()
	n.set_script(thing_script)
	var sync := MultiplayerSynchronizer.new()
	sync.name = "Sync"
	sync.replication_config = replication_config()
	n.add_child(sync)
	sync.owner = n
	return n

# The spawn function: the custom argument is [name, position, label, extra, hp].
func from_arg(arg: Array) -> Node:
	var n := thing()
	n.name = arg[0]
	n.position = arg[1]
	n.label = arg[2]
	n.extra = arg[3]
	n.hp = arg[4]
	return n

func props(n: Node, paths: Array) -> Array:
	var out := []
	for p in paths:
		out.append(n.get(p.substr(2)))
	return out

func side(parent: Node, is_client: bool) -> Node:
	var game := Node.new()
	game.name = "Game"
	parent.add_child(game)
	var spawner := MultiplayerSpawner.new()
	spawner.name = "Spawner"
	spawner.spawn_path = NodePath("..")
	spawner.spawn_function = from_arg
	spawner.add_spawnable_scene("res://mover.tscn")
	game.add_child(spawner)
	var state := Node.new()
	state.name = "State"
	state.set_script(state_script)
	var sync := MultiplayerSynchronizer.new()
	sync.name = "Sync"
	var cfg := SceneReplicationConfig.new()
	cfg.add_property(^".:score")
	cfg.property_set_spawn(^".:score", false)
	cfg.property_set_replication_mode(^".:score", SceneReplicationConfig.REPLICATION_MODE_ALWAYS)
	cfg.add_property(^".:motd")
	cfg.property_set_spawn(^".:motd", false)
	cfg.property_set_replication_mode(^".:motd", SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE)
	sync.replication_config = cfg
	state.add_child(sync)
	game.add_child(state)
	if is_client:
		sync.synchronized.connect(func(): print(JSON.stringify({"synced": "State", "values": var_to_bytes([state.score]).hex_encode()})))
		sync.delta_synchronized.connect(func(): print(JSON.stringify({"delta": "State", "values": var_to_bytes([state.motd]).hex_encode()})))
		spawner.spawned.connect(_spawned)
		spawner.despawned.connect(func(n): print(JSON.stringify({"despawned": str(n.name)})))
	else:
		s_state = state
	return game

func _spawned(n: Node):
	var arg = null
	if str(n.name).begins_with("Crate"):
		arg = [str(n.name), n.position, n.label, n.extra, n.hp]
	var spawn_props := SPAWN_ONLY + ALWAYS + [".:hp", ".:tags"]
	print(JSON.stringify({"spawned": str(n.name), "arg": var_to_bytes(arg).hex_encode(), "values": var_to_bytes(props(n, spawn_props)).hex_encode()}))
	var sync: MultiplayerSynchronizer = n.get_node("Sync")
	sync.synchronized.connect(func(): print(JSON.stringify({"synced": str(n.name), "values": var_to_bytes(props(n, ALWAYS)).hex_encode()})))
	sync.delta_synchronized.connect(func(): print(JSON.stringify({"delta": str(n.name), "values": var_to_bytes(props(n, WATCHED)).hex_encode()})))

func _initialize():
	rng.seed = int(OS.get_environment("SEED")) if OS.get_environment("SEED") != "" else 4242
	thing_script = GDScript.new()
	thing_script.source_code = THING
	thing_script.reload()
	state_script = GDScript.new()
	state_script.source_code = STATE
	state_script.reload()
	# The packed scene the spawner lists as its scene 0.
	var mover := thing()
	mover.name = "Mover"
	var packed := PackedScene.new()
	packed.pack(mover)
	ResourceSaver.save(packed, "res://mover.tscn")
	mover.free()
	var s_root := Node.new(); s_root.name = "S"; root.add_child(s_root)
	var c_root := Node.new(); c_root.name = "C"; root.add_child(c_root)
	s_game = side(s_root, false)
	c_game = side(c_root, true)
	var sp := Link.new(1, "s")
	var cp := Link.new(1234567, "c")
	sp.links = {cp.id: cp}; cp.links = {1: sp}
	var sm := SceneMultiplayer.new(); var cm := SceneMultiplayer.new()
	set_multiplayer(sm, ^"/root/S")
	set_multiplayer(cm, ^"/root/C")
	sm.multiplayer_peer = sp
	cm.multiplayer_peer = cp
	sp.peer_connected.emit(cp.id)
	cp.peer_connected.emit(1)

func real() -> float:
	return [0.0, -0.0, 1.5, -2.25, 1e30, 3.14159, rng.randf_range(-1e6, 1e6)][rng.randi() % 7]

func int_value() -> int:
	match rng.randi() % 5:
		0: return rng.randi_range(-128, 127)
		1: return rng.randi_range(-32768, 32767)
		2: return rng.randi_range(-2147483648, 2147483647)
		3: return [127, 128, -129, 32768, -32769, 2147483648, -2147483649, 9223372036854775807][rng.randi() % 8]
		_: return (rng.randi() << 32) | rng.randi()

func text() -> String:
	var chars := ["a", "Z", "0", " ", "é", "€", "😀", "ß"]
	var t := ""
	for i in rng.randi() % 10:
		t += chars[rng.randi() % chars.size()]
	return t

func any_value():
	match rng.randi() % 8:
		0: return null
		1: return rng.randi() % 2 == 0
		2: return int_value()
		3: return real()
		4: return text()
		5: return Vector3(real(), real(), real())
		6: return [int_value(), text()]
		_: return {text(): real()}

func tags() -> PackedStringArray:
	var t := PackedStringArray()
	for i in rng.randi() % 3:
		t.append(text())
	return t

func spawn_crate(i: int):
	var arg := ["Crate%d" % i, Vector2(real(), real()), text(), any_value(), int_value()]
	var n: Node = s_game.get_node("Spawner").spawn(arg)
	n.rotation = real()
	n.tags = tags()
	s_nodes.append(n)

func spawn_mover(i: int):
	var n: Node = load("res://mover.tscn").instantiate()
	n.name = "Mover%d" % i
	n.position = Vector2(real(), real())
	n.label = text()
	n.extra = any_value()
	n.hp = int_value()
	n.tags = tags()
	s_game.add_child(n, true)
	s_nodes.append(n)

func _process(_d):
	frame += 1
	if frame == 2:
		spawn_crate(0)
		spawn_mover(0)
	elif frame >= 3 and frame < 3 + ROUNDS:
		# Moves every frame; watched properties now and then; a spawn or a despawn
		# now and then.
		s_state.score = int_value()
		if rng.randi() % 3 == 0:
			s_state.motd = text()
		for n in s_nodes:
			n.position = Vector2(real(), real())
			n.rotation = real()
			match rng.randi() % 6:
				0: n.hp = int_value()
				1: n.visible = not n.visible
				2: n.tags = tags()
				3:
					n.hp = int_value()
					n.tags = tags()
		match rng.randi() % 8:
			0: spawn_crate(frame)
			1: spawn_mover(frame)
			2:
				if s_nodes.size() > 1:
					var n: Node = s_nodes.pop_front()
					n.queue_free()
	elif frame == 3 + ROUNDS:
		for n in s_nodes:
			n.queue_free()
		s_nodes.clear()
	return frame > 6 + ROUNDS

const ROUNDS := 30
