# A Godot 4 SceneMultiplayer client on WebSocket (port $PORT) whose node is named
# "\ufeffGame", for godot-bin-multiplayer's tests (multiplayer/tests/bom_engines.rs):
# what the engine makes of a leading BOM in a node path. It calls greet("bom-path")
# (the engine sends its node's path, "\ufeffGame"), then done(). Every call it runs is
# printed as {"ran", "args"}. It quits with 0 once it ran greet("back"), or 5 seconds
# after it connected (a server that has no node of its path cannot reach it), or with
# 1 after 30 seconds without a connection.
extends SceneTree

const GAME := """extends Node
signal ran(method: String, args: Array)
@rpc("any_peer") func ping(): ran.emit("ping", [])
@rpc("any_peer") func blob(b: PackedByteArray): ran.emit("blob", [b])
@rpc("any_peer") func one(a): ran.emit("one", [a])
@rpc("any_peer") func two(a, b): ran.emit("two", [a, b])
@rpc("any_peer") func three(a, b, c): ran.emit("three", [a, b, c])
@rpc("any_peer") func greet(text: String): ran.emit("greet", [text])
@rpc("any_peer") func shout(text: String): ran.emit("shout", [text])
@rpc("any_peer") func done(): ran.emit("done", [])
"""

var game: Node
var mp: SceneMultiplayer
var deadline := 0
var connected := false

func _initialize():
	deadline = Time.get_ticks_msec() + 30000
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	game = Node.new()
	game.name = "\ufeffGame"
	game.set_script(script)
	root.add_child(game)
	game.ran.connect(_ran)
	mp = get_multiplayer()
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client("ws://127.0.0.1:%s" % OS.get_environment("PORT"))
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(_connected)

func _connected():
	connected = true
	print(JSON.stringify({"connected": mp.get_unique_id(), "path": str(game.get_path())}))
	deadline = Time.get_ticks_msec() + 5000
	game.rpc_id(1, "greet", "bom-path")
	game.rpc_id(1, "done")

func _ran(method: String, args: Array):
	print(JSON.stringify({"ran": method, "args": args}))
	if method == "greet" and args == ["back"]:
		quit(0)

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": connected}))
		quit(0 if connected else 1)
		return true
	return false
