# A Godot 3 MultiplayerAPI server on WebSocket (port $PORT, WebSocketServer as
# network_peer; $TRANSPORT=enet: NetworkedMultiplayerENet), for godot-bin-multiplayer's tests (multiplayer/tests/ws_engines.rs):
# Rust clients join it. Every call it runs is printed as {"ran", "from", "args":
# var2bytes of the argument array} and sent back to its caller with the same
# arguments. It prints {"listening"} once it listens, {"peer"}/{"left"} as clients
# come and go, and quits with 0 when the last of them left after one had joined, or
# with 1 after 60 seconds.
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
var server := WebSocketServer.new()
var joined := 0
var deadline := 0

func _initialize():
	deadline = OS.get_ticks_msec() + 60000
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	game = Node.new()
	game.name = "Game"
	game.set_script(script)
	root.add_child(game)
	game.connect("ran", self, "_ran")
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		var enet := NetworkedMultiplayerENet.new()
		enet.set_bind_ip("127.0.0.1")
		err = enet.create_server(int(OS.get_environment("PORT")))
		network_peer = enet
	else:
		server.bind_ip = "127.0.0.1"
		err = server.listen(int(OS.get_environment("PORT")), PoolStringArray(), true)
		network_peer = server
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	connect("network_peer_connected", self, "_joined")
	connect("network_peer_disconnected", self, "_left")
	print(JSON.print({"listening": true}))

func _joined(id: int):
	joined += 1
	print(JSON.print({"peer": id}))

func _left(id: int):
	print(JSON.print({"left": id}))
	if get_network_connected_peers().empty():
		quit(0)

func _ran(method: String, args: Array):
	var from := get_rpc_sender_id()
	print(JSON.print({"ran": method, "from": from, "args": var2bytes(args).hex_encode()}))
	if method != "shout":
		game.callv("rpc_id", [from, method] + args)

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": joined}))
		quit(1)
		return true
	return false
