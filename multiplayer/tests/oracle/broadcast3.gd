# What Godot 3 sends for rpc() to all and rpc_id() to all but one, from a client and
# from the server, for godot-bin-multiplayer's tests: a server (/root/S, id 1) and two
# clients (/root/C, id 1234567, and /root/D, id 777) in one Godot 3.6 process, each a
# MultiplayerAPI over a NetworkedMultiplayerCustom peer whose packets are printed
# with the target the API set, then delivered as a relaying transport (ENet's,
# WebSocket's) delivers them: a packet for 0 to everyone else, for -N to everyone
# else but N. Each client knows of the other, as such a transport tells it. C and
# the server call before their path is confirmed, then after. Output lines:
# {"call", "from": "c"|"s", "to", "args"} for each call, {"packet": "s"|"c"|"d" (the
# sender), "to" (the target it set), "mode", "hex"}, and {"ran", "on", "args"} when
# a node ran a call. multiplayer/scripts/gen-fixtures.sh writes it to
# multiplayer/tests/fixtures/broadcast3.6.jsonl.
extends SceneTree

const GAME := """extends Node
remote func one(a): print(JSON.print({"ran": "one", "on": multiplayer.get_network_unique_id(), "args": var2bytes([a]).hex_encode()}))
remote func two(a, b): print(JSON.print({"ran": "two", "on": multiplayer.get_network_unique_id(), "args": var2bytes([a, b]).hex_encode()}))
"""

var frame := 0
var c_game: Node
var s_game: Node
var peers := {}
var apis := []

func game(parent_name: String, id: int) -> Node:
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
	var p := NetworkedMultiplayerCustom.new()
	p.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTING)
	p.initialize(id)
	p.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTED)
	p.connect("packet_generated", self, "_out", [id])
	var m := MultiplayerAPI.new()
	m.root_node = parent
	m.network_peer = p
	# Godot 3 looks for a custom MultiplayerAPI on the node itself, not its parents.
	n.custom_multiplayer = m
	peers[id] = p
	apis.append(m)
	return n

func _initialize():
	s_game = game("S", 1)
	c_game = game("C", 1234567)
	game("D", 777)
	for a in peers:
		for b in peers:
			if a != b:
				peers[a].emit_signal("peer_connected", b)

const NAMES := {1: "s", 1234567: "c", 777: "d"}

func _out(to: int, buf: PoolByteArray, mode: int, from: int):
	print(JSON.print({"packet": NAMES[from], "to": to, "mode": mode, "hex": buf.hex_encode()}))
	for id in [1, 1234567, 777]:
		if id == from or (to > 0 and id != to) or (to < 0 and id == -to):
			continue
		peers[id].deliver_packet(buf, from)

func call_rpc(to: int, method: String, args: Array, from := "c"):
	print(JSON.print({"call": method, "from": from, "to": to, "args": var2bytes(args).hex_encode()}))
	(c_game if from == "c" else s_game).callv("rpc_id", [to, method] + args)

func _idle(_d):
	frame += 1
	for m in apis:
		m.poll()
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
