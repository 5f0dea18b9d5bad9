# A Godot 3 MultiplayerAPI server on WebSocket port $PORT (WebSocketServer as
# network_peer) whose rpc methods have each mode, for godot-bin-multiplayer's tests
# (multiplayer/tests/rpc_modes_engines.rs): which calls of a Rust client run. Two
# nodes, Game and Mine, with the same script; Game's network master is the server
# (1), Mine's the first client to join. Every call that runs is printed as {"ran",
# "node", "from", "args": var2bytes of the arguments}; done() is sent back to its
# caller, so that the caller knows the calls before it were handled. It prints
# {"listening"} once it listens and quits with 0 when the last client left, or with
# 1 after 60 seconds.
extends SceneTree

const SCRIPT := """extends Node
signal ran(node, method, args)
master func to_master(a): emit_signal("ran", name, "to_master", [a])
puppet func to_puppet(a): emit_signal("ran", name, "to_puppet", [a])
mastersync func to_master_sync(a): emit_signal("ran", name, "to_master_sync", [a])
puppetsync func to_puppet_sync(a): emit_signal("ran", name, "to_puppet_sync", [a])
remote func any(a): emit_signal("ran", name, "any", [a])
remote func done(): emit_signal("ran", name, "done", [])
"""

var game: Node
var mine: Node
var server := WebSocketServer.new()
var deadline := 0

func _node(node_name: String, script: GDScript) -> Node:
	var n := Node.new()
	n.name = node_name
	n.set_script(script)
	root.add_child(n)
	n.connect("ran", self, "_ran")
	return n

func _initialize():
	deadline = OS.get_ticks_msec() + 60000
	var script := GDScript.new()
	script.source_code = SCRIPT
	script.reload()
	game = _node("Game", script)
	mine = _node("Mine", script)
	server.bind_ip = "127.0.0.1"
	var err := server.listen(int(OS.get_environment("PORT")), PoolStringArray(), true)
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	network_peer = server
	connect("network_peer_connected", self, "_joined")
	connect("network_peer_disconnected", self, "_left")
	print(JSON.print({"listening": true}))

func _joined(id: int):
	if mine.get_network_master() == 1:
		mine.set_network_master(id)
	print(JSON.print({"peer": id, "mine": mine.get_network_master()}))

func _left(id: int):
	print(JSON.print({"left": id}))
	if get_network_connected_peers().empty():
		quit(0)

func _ran(node: String, method: String, args: Array):
	var from := get_rpc_sender_id()
	print(JSON.print({"ran": method, "node": node, "from": from, "args": var2bytes(args).hex_encode()}))
	if method == "done":
		game.rpc_id(from, "done")

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": true}))
		quit(1)
		return true
	return false
