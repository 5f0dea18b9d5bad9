# A Godot 4 client whose nodes a SceneMultiplayer server replicates, for
# godot-bin-multiplayer's tests (multiplayer/tests/replication_engines.rs): it connects
# to 127.0.0.1:$PORT over WebSocket ($TRANSPORT=enet: ENet) and keeps a
# MultiplayerSpawner at Game/Spawner (spawn path Game; a spawn function, and the
# packed scene res://mover.tscn as scene 0) whose nodes carry a MultiplayerSynchronizer
# "Sync" with the config of replicate4.gd; and a node that is not spawned, Game/State
# (score, synced always; motd, watched), whose synchronizer Game/State/Sync the server
# names by its path. What the engine makes of the server's packets is printed as
# JSON lines:
#   {"connected": id};
#   {"spawned": name, "arg": var_to_bytes of the spawn function's argument (null for
#       a scene), "values": of [the spawn properties] once spawned};
#   {"synced": name, "values": of [the sync properties]};
#   {"delta": name, "values": of [every watched property]};
#   {"despawned": name};
#   {"synced": "State", "values": [score]} and {"delta": "State", "values": [motd]}.
# It quits with 0 after $DESPAWNS despawns, or with 1 after 60 seconds.
extends SceneTree

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

const SPAWN_ONLY := [".:label", ".:extra"]
const ALWAYS := [".:position", ".:rotation"]
const WATCHED := [".:hp", ".:visible", ".:tags"]

var thing_script: GDScript
var last_arg = null
var despawns := 0
var deadline := 0

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

# The spawn function: the node's name comes from the spawn packet.
func from_arg(arg) -> Node:
	last_arg = arg
	return thing()

func props(n: Node, paths: Array) -> Array:
	var out := []
	for p in paths:
		out.append(n.get(p.substr(2)))
	return out

func _spawned(n: Node):
	var arg = last_arg if not str(n.name).begins_with("Mover") else null
	last_arg = null
	var spawn_props := SPAWN_ONLY + ALWAYS + [".:hp", ".:tags"]
	print(JSON.stringify({"spawned": str(n.name), "arg": var_to_bytes(arg).hex_encode(), "values": var_to_bytes(props(n, spawn_props)).hex_encode()}))
	var sync: MultiplayerSynchronizer = n.get_node("Sync")
	sync.synchronized.connect(func(): print(JSON.stringify({"synced": str(n.name), "values": var_to_bytes(props(n, ALWAYS)).hex_encode()})))
	sync.delta_synchronized.connect(func(): print(JSON.stringify({"delta": str(n.name), "values": var_to_bytes(props(n, WATCHED)).hex_encode()})))

func _despawned(n: Node):
	print(JSON.stringify({"despawned": str(n.name)}))
	despawns += 1
	if despawns == int(OS.get_environment("DESPAWNS")):
		quit(0)

func _initialize():
	deadline = Time.get_ticks_msec() + 60000
	thing_script = GDScript.new()
	thing_script.source_code = THING
	thing_script.reload()
	var mover := thing()
	mover.name = "Mover"
	var packed := PackedScene.new()
	packed.pack(mover)
	ResourceSaver.save(packed, "res://mover.tscn")
	mover.free()
	var game := Node.new()
	game.name = "Game"
	root.add_child(game)
	var state_script := GDScript.new()
	state_script.source_code = STATE
	state_script.reload()
	var state := Node.new()
	state.name = "State"
	state.set_script(state_script)
	var state_sync := MultiplayerSynchronizer.new()
	state_sync.name = "Sync"
	var cfg := SceneReplicationConfig.new()
	cfg.add_property(^".:score")
	cfg.property_set_spawn(^".:score", false)
	cfg.property_set_replication_mode(^".:score", SceneReplicationConfig.REPLICATION_MODE_ALWAYS)
	cfg.add_property(^".:motd")
	cfg.property_set_spawn(^".:motd", false)
	cfg.property_set_replication_mode(^".:motd", SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE)
	state_sync.replication_config = cfg
	state.add_child(state_sync)
	game.add_child(state)
	state_sync.synchronized.connect(func(): print(JSON.stringify({"synced": "State", "values": var_to_bytes([state.score]).hex_encode()})))
	state_sync.delta_synchronized.connect(func(): print(JSON.stringify({"delta": "State", "values": var_to_bytes([state.motd]).hex_encode()})))
	var spawner := MultiplayerSpawner.new()
	spawner.name = "Spawner"
	spawner.spawn_path = NodePath("..")
	spawner.spawn_function = from_arg
	spawner.add_spawnable_scene("res://mover.tscn")
	game.add_child(spawner)
	spawner.spawned.connect(_spawned)
	spawner.despawned.connect(_despawned)
	var mp := get_multiplayer()
	var port := int(OS.get_environment("PORT"))
	var peer: MultiplayerPeer
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = ENetMultiplayerPeer.new()
		err = peer.create_client("127.0.0.1", port)
	else:
		peer = WebSocketMultiplayerPeer.new()
		err = peer.create_client("ws://127.0.0.1:%d" % port)
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(func(): print(JSON.stringify({"connected": mp.get_unique_id()})))

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": despawns}))
		quit(1)
		return true
	return false
