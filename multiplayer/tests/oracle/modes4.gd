# A Godot 4 SceneMultiplayer server on WebSocket port $PORT whose rpc methods have
# each mode, for godot-bin-multiplayer's tests (multiplayer/tests/rpc_modes_engines.rs):
# which calls of a Rust client run. Two nodes, Game and Mine, with the same script;
# Game's authority is the server (1), Mine's the first client to join. Every call
# that runs is printed as {"ran", "node", "from", "args": var_to_bytes of the
# arguments}; done() is sent back to its caller, so that the caller knows the calls
# before it were handled. It prints {"listening"} once it listens and quits with 0
# when the last client left, or with 1 after 60 seconds.
extends SceneTree

const SCRIPT := """extends Node
signal ran(node: String, method: String, args: Array)
@rpc func welcome(a): ran.emit(name, "welcome", [a])
@rpc("authority") func hit(a): ran.emit(name, "hit", [a])
@rpc("any_peer") func move(a): ran.emit(name, "move", [a])
@rpc("any_peer") func done(): ran.emit(name, "done", [])
"""

var game: Node
var mine: Node
var mp: SceneMultiplayer
var deadline := 0

func _node(node_name: String, script: GDScript) -> Node:
	var n := Node.new()
	n.name = node_name
	n.set_script(script)
	root.add_child(n)
	n.ran.connect(_ran)
	return n

func _initialize():
	deadline = Time.get_ticks_msec() + 60000
	var script := GDScript.new()
	script.source_code = SCRIPT
	script.reload()
	game = _node("Game", script)
	mine = _node("Mine", script)
	mp = get_multiplayer()
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_server(int(OS.get_environment("PORT")), "127.0.0.1")
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.peer_connected.connect(_joined)
	mp.peer_disconnected.connect(_left)
	print(JSON.stringify({"listening": true}))

func _joined(id: int):
	if mine.get_multiplayer_authority() == 1:
		mine.set_multiplayer_authority(id)
	print(JSON.stringify({"peer": id, "mine": mine.get_multiplayer_authority()}))

func _left(id: int):
	print(JSON.stringify({"left": id}))
	if mp.get_peers().is_empty():
		quit(0)

func _ran(node: String, method: String, args: Array):
	var from := mp.get_remote_sender_id()
	print(JSON.stringify({"ran": method, "node": node, "from": from, "args": var_to_bytes(args).hex_encode()}))
	if method == "done":
		game.rpc_id(from, "done")

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": true}))
		quit(1)
		return true
	return false
