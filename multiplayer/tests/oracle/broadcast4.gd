# What Godot 4 sends for rpc() to all and rpc_id() to all but one, from a client and
# from the server, for godot-bin-multiplayer's tests: a server (/root/S, id 1) and two
# clients (/root/C, id 1234567, and /root/D, id 777) in one process, each a
# SceneMultiplayer over a script peer (link4.gd) that prints every packet handed to
# it and delivers it to the peer it is for. The server tells each client of the
# other (SYS add) and relays between them. C and the server call before their path
# is confirmed, then after. Output lines: {"call", "from": "c"|"s", "to", "args"} for
# each call, {"packet": "c2s"|"s2c"|"d2s"|"s2d", "to", "channel", "mode", "hex"},
# and {"ran", "on", "args"} when a node ran a call. multiplayer/scripts/
# gen-fixtures.sh writes it to multiplayer/tests/fixtures/broadcast4.6.jsonl.
extends SceneTree

const Link := preload("res://link4.gd")

const GAME := """extends Node
@rpc("any_peer") func one(a): print(JSON.stringify({"ran": "one", "on": multiplayer.get_unique_id(), "args": var_to_bytes([a]).hex_encode()}))
@rpc("any_peer") func two(a, b): print(JSON.stringify({"ran": "two", "on": multiplayer.get_unique_id(), "args": var_to_bytes([a, b]).hex_encode()}))
"""

var frame := 0
var c_game: Node
var s_game: Node

func game(parent_name: String, peer: Link) -> Node:
	var parent := Node.new()
	parent.name = parent_name
	root.add_child(parent)
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	var n := Node.new()
	n.name = "Game"
	n.set_script(script)
	parent.add_child(n)
	var m := SceneMultiplayer.new()
	set_multiplayer(m, NodePath("/root/" + parent_name))
	m.multiplayer_peer = peer
	return n

func _initialize():
	var sp := Link.new(1, "s"); var cp := Link.new(1234567, "c"); var dp := Link.new(777, "d")
	sp.links = {1234567: cp, 777: dp}
	cp.links = {1: sp}
	dp.links = {1: sp}
	s_game = game("S", sp)
	c_game = game("C", cp)
	game("D", dp)
	sp.peer_connected.emit(cp.id)
	cp.peer_connected.emit(1)
	sp.peer_connected.emit(dp.id)
	dp.peer_connected.emit(1)

func call_rpc(to: int, method: String, args: Array, from := "c"):
	print(JSON.stringify({"call": method, "from": from, "to": to, "args": var_to_bytes(args).hex_encode()}))
	(c_game if from == "c" else s_game).callv("rpc_id", [to, method] + args)

func _process(_d):
	frame += 1
	if frame == 3:
		# Before any peer confirmed the path: to all, and to all but the server.
		call_rpc(0, "one", [1])
		call_rpc(-1, "two", [true, "x"])
	elif frame == 12:
		# The server's first calls, once the above is all through (a session played
		# from the log takes a packet as it is sent): its path goes to each client.
		call_rpc(0, "one", [5], "s")
		call_rpc(-777, "one", [6], "s")
	elif frame == 20:
		# Every peer confirmed it.
		call_rpc(0, "one", [2])
		call_rpc(-777, "two", [300, Vector3(1, 2, 3)])
		call_rpc(-1, "one", ["to D"])
		call_rpc(777, "one", [-70000])
		call_rpc(1, "two", [false, 2.5])
		call_rpc(0, "two", [[1, "a"], {"k": 9}])
	elif frame == 30:
		# The server's own, confirmed by both clients.
		call_rpc(0, "one", [7], "s")
		call_rpc(-777, "two", [8, "to C"], "s")
		call_rpc(-1234567, "one", [9], "s")
		call_rpc(777, "one", [10], "s")
	return frame > 40
