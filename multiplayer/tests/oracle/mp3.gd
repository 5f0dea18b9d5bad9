# Godot 3's MultiplayerAPI on the wire, for godot-bin-multiplayer's tests: two
# MultiplayerAPIs in one Godot 3.6 process (nodes /root/S/Game, the server, and
# /root/C/Game, a client with id 1234567), joined by NetworkedMultiplayerCustom peers
# whose generated packets are printed and delivered to the other side. Fixed calls
# first (by path before the cache is confirmed, then cached), an rset, then seeded
# random argument lists ($SEED). multiplayer/scripts/gen-fixtures.sh writes the
# output to multiplayer/tests/fixtures/godot3.6.jsonl: {"call", "to", "args":
# var2bytes of the argument array}, the packets {"packet": "c2s"|"s2c", "to", "mode",
# "hex"}, and {"ran", "args"} when the receiver ran a call.
extends SceneTree

const GAME := """extends Node
remote var hp = 0
remote func ping(): print(JSON.print({"ran": "ping", "args": var2bytes([]).hex_encode()}))
remote func one(a): print(JSON.print({"ran": "one", "args": var2bytes([a]).hex_encode()}))
remote func two(a, b): print(JSON.print({"ran": "two", "args": var2bytes([a, b]).hex_encode()}))
remote func three(a, b, c): print(JSON.print({"ran": "three", "args": var2bytes([a, b, c]).hex_encode()}))
"""

var frame := 0
var s_game: Node
var c_game: Node
var sp := NetworkedMultiplayerCustom.new()
var cp := NetworkedMultiplayerCustom.new()
var sm := MultiplayerAPI.new()
var cm := MultiplayerAPI.new()
var rng := RandomNumberGenerator.new()
const ROUNDS := 40

func game(parent_name: String) -> Node:
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
	return n

func hexs(b: PoolByteArray) -> String:
	return b.hex_encode()

func _initialize():
	rng.seed = int(OS.get_environment("SEED")) if OS.get_environment("SEED") != "" else 4242
	s_game = game("S")
	c_game = game("C")
	sp.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTING)
	cp.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTING)
	sp.initialize(1)
	cp.initialize(1234567)
	# A server is connected once initialized; a client says so itself.
	cp.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTED)
	sp.connect("packet_generated", self, "_s_out")
	cp.connect("packet_generated", self, "_c_out")
	sm.root_node = s_game.get_parent()
	cm.root_node = c_game.get_parent()
	sm.network_peer = sp
	cm.network_peer = cp
	# Godot 3 looks for a custom MultiplayerAPI on the node itself, not its parents.
	s_game.custom_multiplayer = sm
	c_game.custom_multiplayer = cm
	sp.emit_signal("peer_connected", 1234567)
	cp.emit_signal("peer_connected", 1)

func _s_out(to: int, buf: PoolByteArray, mode: int):
	print(JSON.print({"packet": "s2c", "to": to, "mode": mode, "hex": hexs(buf)}))
	cp.deliver_packet(buf, 1)

func _c_out(to: int, buf: PoolByteArray, mode: int):
	print(JSON.print({"packet": "c2s", "to": to, "mode": mode, "hex": hexs(buf)}))
	sp.deliver_packet(buf, 1234567)

func call_rpc(node: Node, to: int, method: String, args: Array):
	print(JSON.print({"call": method, "to": to, "args": hexs(var2bytes(args))}))
	node.callv("rpc_id", [to, method] + args)

func _idle(_d):
	frame += 1
	sm.poll()
	cm.poll()
	if frame == 2:
		call_rpc(c_game, 1, "one", [42])
		call_rpc(c_game, 1, "two", [true, -300])
	elif frame == 4:
		call_rpc(c_game, 1, "ping", [])
		call_rpc(s_game, 1234567, "three", [70000, "hé", Vector3(1, 2, 3)])
		print(JSON.print({"rset": "hp", "to": 1, "args": hexs(var2bytes([5]))}))
		c_game.rset_id(1, "hp", 5)
	elif frame == 6:
		call_rpc(s_game, 1234567, "one", [{"a": [1, 2.5]}])
	elif frame >= 8 and frame < 8 + ROUNDS:
		for i in 10:
			var n := rng.randi_range(1, 3)
			var args := []
			for k in n:
				args.append(value(0))
			var from := s_game if rng.randi() % 2 == 0 else c_game
			call_rpc(from, 1234567 if from == s_game else 1, ["one", "two", "three"][n - 1], args)
	return frame > 10 + ROUNDS

func int_value() -> int:
	match rng.randi() % 6:
		0: return rng.randi_range(-128, 127)
		# randi_range over the whole i32 range divides by zero in Godot 3 (SIGFPE).
		1: return rng.randi() - 2147483648
		2: return [2147483647, 2147483648, -2147483648, -2147483649, 9223372036854775807, -9223372036854775807 - 1][rng.randi() % 6]
		_: return (rng.randi() << 32) | rng.randi()

func text() -> String:
	var chars := ["a", "Z", "0", " ", "é", "€", "😀", "\n", "\"", "ß"]
	var t := ""
	for i in rng.randi() % 12:
		t += chars[rng.randi() % chars.size()]
	return t

func real() -> float:
	return [0.0, -0.0, 1.5, -2.25, 1e30, 3.14159, rng.randf_range(-1e6, 1e6)][rng.randi() % 7]

func value(depth: int):
	var kinds := 22 if depth < 2 else 18
	match rng.randi() % kinds:
		0: return null
		1: return rng.randi() % 2 == 0
		2, 3: return int_value()
		4: return real()
		5: return text()
		6: return Vector2(real(), real())
		7: return Vector3(real(), real(), real())
		8: return Color(rng.randf(), rng.randf(), rng.randf(), rng.randf())
		9: return Quat(real(), real(), real(), real())
		10: return Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(real(), 0, 1))
		11: return Rect2(real(), real(), real(), real())
		12: return NodePath("Game/" + text().replace("/", "").replace(":", ""))
		13: return PoolByteArray([rng.randi() % 256, 0, 255])
		14: return PoolIntArray([int_value() & 0x7fffffff, -1])
		15: return PoolRealArray([1.5, real()])
		16: return PoolStringArray([text(), text()])
		17: return PoolVector3Array([Vector3(1, 2, 3)])
		18, 19:
			var a := []
			for i in rng.randi() % 4:
				a.append(value(depth + 1))
			return a
		_:
			var d := {}
			for i in rng.randi() % 4:
				d[text()] = value(depth + 1)
			return d
