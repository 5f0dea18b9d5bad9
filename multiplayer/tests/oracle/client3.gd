# A Godot 3 client of a MultiplayerAPI server on WebSocket ($TRANSPORT=enet: ENet), for
# godot-bin-multiplayer's tests (multiplayer/tests/ws_engines.rs): WebSocketClient
# as network_peer (the 9-byte header). It connects to ws://127.0.0.1:$PORT, waits
# until the server has announced one other client, then greets that client directly
# and everyone by broadcast (both relayed by the server's transport), calls ping(),
# one/two/three with fixed and seeded random arguments (on ENet, one() with 50,000
# bytes too, which ENet sends in fragments) ($SEED; the first calls go by
# path, later ones by cached id), and done(). Every call made and every call run is
# printed as a JSON line: {"call", "to", "args": var2bytes of the argument array}
# and {"ran", "from", "args"}. It quits with 0 once done() came back and the other
# client's greetings arrived, or with 1 after 60 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method, args)
remote func ping(): emit_signal("ran", "ping", [])
remote func one(a): emit_signal("ran", "one", [a])
remote func two(a, b): emit_signal("ran", "two", [a, b])
remote func three(a, b, c): emit_signal("ran", "three", [a, b, c])
remote func greet(text): emit_signal("ran", "greet", [text])
remote func shout(text): emit_signal("ran", "shout", [text])
remote func done(): emit_signal("ran", "done", [])
"""

var game: Node
var client := WebSocketClient.new()
var other := 0
var started := false
var got := {}
var frame := 0
var deadline := 0
var rng := RandomNumberGenerator.new()
const ROUNDS := 20

func _initialize():
	rng.seed = int(OS.get_environment("SEED"))
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
		err = enet.create_client("127.0.0.1", int(OS.get_environment("PORT")))
		network_peer = enet
	else:
		err = client.connect_to_url("ws://127.0.0.1:%s" % OS.get_environment("PORT"), PoolStringArray(), true)
		network_peer = client
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	connect("connected_to_server", self, "_connected")
	connect("network_peer_connected", self, "_peer")
	connect("network_peer_disconnected", self, "_left")

func _connected():
	print(JSON.print({"connected": get_network_unique_id()}))

func _peer(id: int):
	print(JSON.print({"peer": id}))
	if id != 1 and other == 0:
		other = id

func _left(id: int):
	print(JSON.print({"left": id}))

func _ran(method: String, args: Array):
	print(JSON.print({"ran": method, "from": get_rpc_sender_id(), "args": var2bytes(args).hex_encode()}))
	got[method + str(get_rpc_sender_id())] = true

func send(to: int, method: String, args: Array):
	print(JSON.print({"call": method, "to": to, "args": var2bytes(args).hex_encode()}))
	game.callv("rpc_id", [to, method] + args)

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"timeout": got.keys()}))
		quit(1)
		return true
	if other != 0 and not started:
		started = true
		send(other, "greet", ["hello from %d" % get_network_unique_id()])
		print(JSON.print({"call": "shout", "to": 0, "args": var2bytes(["all"]).hex_encode()}))
		game.rpc("shout", "all")
		send(1, "ping", [])
		send(1, "one", [42])
		send(1, "two", [true, -300])
		send(1, "three", [70000, "hé", Vector3(1, 2, 3)])
		if OS.get_environment("TRANSPORT") == "enet":
			# Larger than a datagram: ENet sends it in fragments (range-coded), both ways.
			var big := PoolByteArray()
			big.resize(50000)
			for i in big.size():
				big.set(i, (i * 7) % 256)
			send(1, "one", [big])
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
