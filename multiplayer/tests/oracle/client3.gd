# A Godot 3 client of a MultiplayerAPI server on WebSocket ($PORT), for
# godot-bin-multiplayer's tests (multiplayer/tests/ws_engines.rs): WebSocketClient
# as network_peer (9-byte header per message). Once connected it calls
# hello(42, "hé") on the server by rpc_id, prints every call it runs as
# {"ran", "from", "args": var2bytes of the arguments} and quits after welcome(),
# or with 1 after 30 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method, args)
remote func hello(a, b): emit_signal("ran", "hello", [a, b])
remote func welcome(text): emit_signal("ran", "welcome", [text])
"""

var game: Node
var client := WebSocketClient.new()
var deadline := 0

func _initialize():
	deadline = OS.get_ticks_msec() + 30000
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	game = Node.new()
	game.name = "Game"
	game.set_script(script)
	root.add_child(game)
	game.connect("ran", self, "_ran")
	var err := client.connect_to_url("ws://127.0.0.1:%s" % OS.get_environment("PORT"), PoolStringArray(), true)
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	network_peer = client
	connect("connected_to_server", self, "_connected")
	connect("network_peer_connected", self, "_peer")

func _peer(id: int):
	print(JSON.print({"peer": id}))

func _connected():
	print(JSON.print({"connected": get_network_unique_id()}))
	game.rpc_id(1, "hello", 42, "hé")

func _ran(method: String, args: Array):
	print(JSON.print({"ran": method, "from": get_rpc_sender_id(), "args": var2bytes(args).hex_encode()}))
	if method == "welcome":
		quit(0)

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": true}))
		quit(1)
		return true
	return false
