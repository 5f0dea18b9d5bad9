# A Godot 3 MultiplayerAPI client on WebSocket (port $PORT) whose node is named
# "\ufeffGame", for godot-bin-multiplayer's tests (multiplayer/tests/bom_engines.rs):
# what the engine makes of a leading BOM in a node path and a method name. It calls
# greet("bom-method") as "\ufeffgreet", greet("bom-path") (the engine sends its
# node's path, "\ufeffGame"), then done(). Every call it runs is printed as {"ran",
# "args"}. It quits with 0 once it ran greet("back"), or 5 seconds after it connected
# (a server that has no node of its path cannot reach it), or with 1 after 30 seconds
# without a connection.
extends SceneTree

const GAME := """extends Node
signal ran(method, args)
remote func ping(): emit_signal("ran", "ping", [])
remote func blob(b): emit_signal("ran", "blob", [b])
remote func one(a): emit_signal("ran", "one", [a])
remote func two(a, b): emit_signal("ran", "two", [a, b])
remote func three(a, b, c): emit_signal("ran", "three", [a, b, c])
remote func greet(text): emit_signal("ran", "greet", [text])
remote func shout(text): emit_signal("ran", "shout", [text])
remote func done(): emit_signal("ran", "done", [])
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
	game.name = "\ufeffGame"
	game.set_script(script)
	root.add_child(game)
	game.connect("ran", self, "_ran")
	var err := client.connect_to_url("ws://127.0.0.1:%s" % OS.get_environment("PORT"), PoolStringArray(), true)
	network_peer = client
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	connect("connected_to_server", self, "_connected")

func _connected():
	print(JSON.print({"connected": get_network_unique_id(), "path": str(game.get_path())}))
	deadline = OS.get_ticks_msec() + 5000
	game.rpc_id(1, "\ufeffgreet", "bom-method")
	game.rpc_id(1, "greet", "bom-path")
	game.rpc_id(1, "done")

func _ran(method: String, args: Array):
	print(JSON.print({"ran": method, "args": args}))
	if method == "greet" and args == ["back"]:
		quit(0)

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": network_peer.get_connection_status()}))
		quit(0 if network_peer.get_connection_status() == NetworkedMultiplayerPeer.CONNECTION_CONNECTED else 1)
		return true
	return false
