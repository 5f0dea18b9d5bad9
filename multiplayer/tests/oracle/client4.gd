# A Godot 4 client of a SceneMultiplayer server on WebSocket ($TRANSPORT=enet: ENet,
# wss: WebSocket over TLS, any certificate accepted), for
# godot-bin-multiplayer's tests (multiplayer/tests/ws_engines.rs). It connects to
# 127.0.0.1:$PORT, waits until the server has announced one other client, then:
# greets that client directly and everyone by broadcast (both through the server's
# relay), calls ping() and blob() (the count-less forms; on ENet, blob() again with
# 50,000 bytes, which ENet sends in fragments), one/two/three with fixed and
# seeded random arguments ($SEED; the first calls go by path, later ones by cached
# id), and done(). The server calls each method back with the same arguments and
# done() last. Every call made and every call run is printed as a JSON line:
# {"call", "args": var_to_bytes of the argument array} and {"ran", "from", "args"}.
# It quits with 0 once done() came back and the other client's greetings arrived,
# or with 1 after 60 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method: String, args: Array)
@rpc("any_peer") func ping(): ran.emit("ping", [])
@rpc("any_peer") func blob(b: PackedByteArray): ran.emit("blob", [b])
@rpc("any_peer") func one(a): ran.emit("one", [a])
@rpc("any_peer") func two(a, b): ran.emit("two", [a, b])
@rpc("any_peer") func three(a, b, c): ran.emit("three", [a, b, c])
@rpc("any_peer") func greet(text: String): ran.emit("greet", [text])
@rpc("any_peer") func shout(text: String): ran.emit("shout", [text])
@rpc("any_peer") func done(): ran.emit("done", [])
"""

var game: Node
var mp: SceneMultiplayer
var other := 0
var started := false
var got := {}
var frame := 0
var deadline := 0
var rng := RandomNumberGenerator.new()

func _initialize():
	rng.seed = int(OS.get_environment("SEED"))
	deadline = Time.get_ticks_msec() + 60000
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	game = Node.new()
	game.name = "Game"
	game.set_script(script)
	root.add_child(game)
	game.ran.connect(_ran)
	mp = get_multiplayer()
	var port := int(OS.get_environment("PORT"))
	var peer: MultiplayerPeer
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = ENetMultiplayerPeer.new()
		err = peer.create_client("127.0.0.1", port)
	elif OS.get_environment("TRANSPORT") == "wss":
		# The test's certificate is self-signed.
		peer = WebSocketMultiplayerPeer.new()
		err = peer.create_client("wss://127.0.0.1:%d" % port, TLSOptions.client_unsafe())
	else:
		peer = WebSocketMultiplayerPeer.new()
		err = peer.create_client("ws://127.0.0.1:%d" % port)
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(func(): print(JSON.stringify({"connected": mp.get_unique_id()})))
	mp.peer_connected.connect(_peer)
	mp.peer_disconnected.connect(func(id): print(JSON.stringify({"left": id})))

func _peer(id: int):
	print(JSON.stringify({"peer": id}))
	if id != 1 and other == 0:
		other = id

func _ran(method: String, args: Array):
	print(JSON.stringify({"ran": method, "from": mp.get_remote_sender_id(), "args": var_to_bytes(args).hex_encode()}))
	got[method + str(mp.get_remote_sender_id())] = true

func send(to: int, method: String, args: Array):
	print(JSON.stringify({"call": method, "to": to, "args": var_to_bytes(args).hex_encode()}))
	game.callv("rpc_id", [to, method] + args)

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": got.keys()}))
		quit(1)
		return true
	if other != 0 and not started:
		started = true
		send(other, "greet", ["hello from %d" % mp.get_unique_id()])
		print(JSON.stringify({"call": "shout", "to": 0, "args": var_to_bytes(["all"]).hex_encode()}))
		game.rpc("shout", "all")
		send(1, "ping", [])
		send(1, "blob", [PackedByteArray([1, 2, 3])])
		send(1, "one", [42])
		send(1, "two", [true, -300])
		send(1, "three", [70000, "hé", Vector3(1, 2, 3)])
		if OS.get_environment("TRANSPORT") == "enet":
			# Larger than a datagram: ENet sends it in fragments, both ways.
			var big := PackedByteArray()
			big.resize(50000)
			for i in big.size():
				big[i] = (i * 7) % 256
			send(1, "blob", [big])
	elif started:
		frame += 1
		if frame <= ROUNDS:
			for i in 10:
				var n := rng.randi_range(1, 3)
				var args := []
				for k in n:
					args.append(value(0))
				send(1, ["one", "two", "three"][n - 1], args)
		elif frame == ROUNDS + 1:
			send(1, "done", [])
	var greeted: bool = got.has("greet%d" % other) and got.has("shout%d" % other)
	if got.has("done1") and greeted:
		quit(0)
		return true
	return false

const ROUNDS := 20

func int_value() -> int:
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
	var kinds := 30 if depth < 2 else 26
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
		20: return Vector2i(rng.randi_range(-100, 100), 3)
		21: return Rect2i(1, 2, 3, 4)
		22: return Vector4(real(), 1, 2, 3)
		23: return Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12), Vector4(13, 14, 15, real()))
		24: return PackedInt64Array([int_value()])
		25: return PackedColorArray([Color(0.5, 0.25, 1, 0)])
		26, 27:
			var a := []
			for i in rng.randi() % 4:
				a.append(value(depth + 1))
			return a
		_:
			var d := {}
			for i in rng.randi() % 4:
				d[text()] = value(depth + 1)
			return d
