# A Godot 3 MultiplayerAPI server on ENet port $PORT (NetworkedMultiplayerENet as
# network_peer) with server_relay off, for godot-bin-multiplayer's tests
# (multiplayer/tests/server_relay_engines.rs): its clients should hear of no other
# client, a packet for other clients alone should reach no one, and a broadcast only
# the server (Godot 3.4 and later). It prints {"listening"} once it listens, {"peer"}/{"left"} as clients come and
# go, and {"ran", "from"} for each call that runs; done() is sent back to its caller.
# It quits with 0 once $CLIENTS clients have left, or with 1 after 60 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method)
remote func hello(_a): emit_signal("ran", "hello")
remote func done(): emit_signal("ran", "done")
"""

var game: Node
var left := 0
var peer := NetworkedMultiplayerENet.new()
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
	peer.server_relay = false
	peer.set_bind_ip("127.0.0.1")
	var err := peer.create_server(int(OS.get_environment("PORT")), 8)
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	network_peer = peer
	connect("network_peer_connected", self, "_joined")
	connect("network_peer_disconnected", self, "_left")
	print(JSON.print({"listening": true}))

func _joined(id: int):
	print(JSON.print({"peer": id}))

func _left(id: int):
	print(JSON.print({"left": id}))
	left += 1
	if left == int(OS.get_environment("CLIENTS")):
		quit(0)

func _ran(method: String):
	var from := get_rpc_sender_id()
	print(JSON.print({"ran": method, "from": from}))
	if method == "done":
		game.rpc_id(from, "done")

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": true}))
		quit(1)
		return true
	return false
