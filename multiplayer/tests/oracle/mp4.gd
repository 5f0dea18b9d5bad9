# Godot 4's SceneMultiplayer on the wire, for godot-bin-multiplayer's tests: two
# SceneMultiplayer instances in one process (branches /root/S, the server, and /root/C,
# a client with id 1234567), joined by a script peer (link4.gd) that prints every packet
# handed to it. Fixed calls cover each form (path before the cache is confirmed, cached id,
# compressed bools and ints, no arguments, one PackedByteArray); seeded random argument
# lists follow. multiplayer/scripts/gen-fixtures.sh writes the output to
# multiplayer/tests/fixtures/godot4.6.jsonl: {"call", "to", "args": var_to_bytes of
# the argument array}, then the packets that call sent {"packet": "c2s"|"s2c", "to",
# "channel", "mode", "hex"}, and {"ran", "args"} when the receiver ran it.
extends SceneTree

const Link := preload("res://link4.gd")

const GAME := """extends Node
@rpc("any_peer") func ping(): print(JSON.stringify({"ran": "ping", "on": multiplayer.get_unique_id()}))
@rpc("any_peer") func blob(b: PackedByteArray): print(JSON.stringify({"ran": "blob", "args": var_to_bytes([b]).hex_encode()}))
@rpc("any_peer") func one(a): print(JSON.stringify({"ran": "one", "args": var_to_bytes([a]).hex_encode()}))
@rpc("any_peer") func two(a, b): print(JSON.stringify({"ran": "two", "args": var_to_bytes([a, b]).hex_encode()}))
@rpc("any_peer", "unreliable", "call_remote", 2) func three(a, b, c): print(JSON.stringify({"ran": "three", "args": var_to_bytes([a, b, c]).hex_encode()}))
"""

var frame := 0
var s_game: Node
var c_game: Node

func game(parent: Node) -> Node:
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	var n := Node.new()
	n.name = "Game"
	n.set_script(script)
	parent.add_child(n)
	return n

func _initialize():
	rng.seed = int(OS.get_environment("SEED")) if OS.get_environment("SEED") != "" else 4242
	var s_root := Node.new(); s_root.name = "S"; root.add_child(s_root)
	var c_root := Node.new(); c_root.name = "C"; root.add_child(c_root)
	s_game = game(s_root)
	c_game = game(c_root)
	var sp := Link.new(1, "s")
	var cp := Link.new(1234567, "c")
	sp.links = {cp.id: cp}; cp.links = {1: sp}
	var sm := SceneMultiplayer.new(); var cm := SceneMultiplayer.new()
	set_multiplayer(sm, ^"/root/S")
	set_multiplayer(cm, ^"/root/C")
	sm.multiplayer_peer = sp
	cm.multiplayer_peer = cp
	sp.peer_connected.emit(cp.id)
	cp.peer_connected.emit(1)

func call_rpc(node: Node, to: int, method: String, args: Array):
	print(JSON.stringify({"call": method, "to": to, "args": var_to_bytes(args).hex_encode()}))
	node.callv("rpc_id", [to, method] + args)

func _process(_d):
	frame += 1
	if frame == 2:
		call_rpc(c_game, 1, "one", [42])
		call_rpc(c_game, 1, "two", [true, -300])
	elif frame == 4:
		call_rpc(c_game, 1, "ping", [])
		call_rpc(c_game, 1, "blob", [PackedByteArray([1, 2, 3])])
		call_rpc(s_game, 1234567, "three", [70000, "hé", Vector3(1, 2, 3)])
	elif frame == 6:
		call_rpc(s_game, 1234567, "one", [{"a": [1, 2.5]}])
	elif frame >= 8 and frame < 8 + ROUNDS:
		# Random calls both ways, on the cached ids now.
		for i in 10:
			var n := rng.randi_range(1, 3)
			var args := []
			for k in n:
				args.append(value(0))
			var from := s_game if rng.randi() % 2 == 0 else c_game
			call_rpc(from, 1234567 if from == s_game else 1, ["one", "two", "three"][n - 1], args)
	return frame > 10 + ROUNDS

const ROUNDS := 40
var rng := RandomNumberGenerator.new()

func int_value() -> int:
	# Every compressed size and its edges, both signs.
	match rng.randi() % 8:
		0: return rng.randi_range(-128, 127)
		1: return rng.randi_range(-32768, 32767)
		2: return rng.randi_range(-2147483648, 2147483647)
		3: return [127, 128, -128, -129, 32767, 32768, -32768, -32769, 2147483647, 2147483648, -2147483648, -2147483649, 9223372036854775807, -9223372036854775807 - 1][rng.randi() % 14]
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
	var kinds := 24 if depth < 2 else 20
	match rng.randi() % kinds:
		0: return null
		1: return rng.randi() % 2 == 0
		2, 3: return int_value()
		4: return real()
		5: return text()
		6: return Vector2(real(), real())
		7: return Vector3(real(), real(), real())
		8: return Vector3i(rng.randi(), -5, 7)
		9: return Color(rng.randf(), rng.randf(), rng.randf(), rng.randf())
		10: return Quaternion(real(), real(), real(), real())
		11: return Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(real(), 0, 1))
		12: return Rect2(real(), real(), real(), real())
		13: return StringName(text())
		14: return NodePath("Game/" + text().replace("/", "").replace(":", ""))
		15: return PackedByteArray([rng.randi() % 256, 0, 255])
		16: return PackedInt32Array([int_value() & 0x7fffffff, -1])
		17: return PackedFloat32Array([1.5, real()])
		18: return PackedStringArray([text(), text()])
		19: return PackedVector3Array([Vector3(1, 2, 3)])
		20, 21:
			var a := []
			for i in rng.randi() % 4:
				a.append(value(depth + 1))
			return a
		_:
			var d := {}
			for i in rng.randi() % 4:
				d[text()] = value(depth + 1)
			return d
