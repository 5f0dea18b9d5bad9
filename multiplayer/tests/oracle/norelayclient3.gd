# A Godot 3 client on ENet (NetworkedMultiplayerENet) of a server with server_relay
# off, for godot-bin-multiplayer's tests (multiplayer/tests/server_relay_engines.rs):
# it connects to 127.0.0.1:$PORT and calls hello(1) on everyone (rpc) and done() on
# the server; once done() came back, hello(2) on everyone and done() again. The first
# rpc goes to each peer by itself, by path (the path is not confirmed yet); the
# second, the path confirmed, goes once to everyone (target 0), which such a server
# (3.4 and later) takes as for itself alone. It prints {"peer"} for each
# peer it hears of and {"ran", "from"} for each call that runs, and quits with 0 once
# the second done() came back, or with 1 after 60 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method)
remote func hello(_a): emit_signal("ran", "hello")
remote func done(): emit_signal("ran", "done")
"""

var game: Node
var deadline := 0
var dones := 0

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
	var enet := NetworkedMultiplayerENet.new()
	var err := enet.create_client("127.0.0.1", int(OS.get_environment("PORT")))
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	network_peer = enet
	connect("connected_to_server", self, "_connected")
	connect("network_peer_connected", self, "_peer")

func _connected():
	print(JSON.print({"connected": get_network_unique_id()}))
	game.rpc("hello", 1)
	game.rpc_id(1, "done")

func _peer(id: int):
	print(JSON.print({"peer": id}))

func _ran(method: String):
	print(JSON.print({"ran": method, "from": get_rpc_sender_id()}))
	if method == "done":
		dones += 1
		if dones == 1:
			game.rpc("hello", 2)
			game.rpc_id(1, "done")
		else:
			quit(0)

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": true}))
		quit(1)
		return true
	return false
