# The engine's whole RPC path, the counterpart of the `session` groups of
# multiplayer/benches/rpc.rs: SceneMultiplayer (Godot 4) reading a remote call from a
# peer and calling the rpc method (`receive`), and `rpc_id()` building one and handing
# it to the peer (`send`), with no socket: bench_peer4.gd stands in for the transport.
# Reads $BENCH_DIR/rpc-<case>.bin (the argument array, var_to_bytes),
# rpc-<case>.packet (the crate's call packet: cache id 1, method id among chat, move,
# state) and rpc-simplify.packet (the crate's SIMPLIFY_PATH of "Game", cache id 1).
#
# What the peer costs is taken off: `receive` is the time to poll N call packets less
# the time to poll N packets SceneMultiplayer skips at once (`[07 00]`, an auth
# confirmation from a peer already admitted), `send` the time of N rpc_id() less N
# send_bytes() of as many bytes. Prints one JSON line per case, ns per call (median
# of $BENCH_RUNS runs of at least $BENCH_SECONDS each), and fails if the engine's
# call packet differs from the crate's or a call was lost.
extends SceneTree

const FROM := 2

var peer
var game
var mp: MultiplayerAPI

# Microseconds for `n` of `what` ("call"/"skipped" received, "rpc"/"bytes" sent).
func run(what: String, case: String, args: Array, packet: PackedByteArray, n: int) -> int:
	var start := 0
	match what:
		"call", "skipped":
			peer.packet = packet
			peer.left = n
			start = Time.get_ticks_usec()
			mp.poll()
		"bytes":
			var payload := packet.slice(1)
			start = Time.get_ticks_usec()
			for i in n:
				mp.send_bytes(payload, FROM)
		"rpc":
			match case:
				"move":
					var a0 = args[0]
					var a1 = args[1]
					var a2 = args[2]
					var a3 = args[3]
					start = Time.get_ticks_usec()
					for i in n:
						game.rpc_id(FROM, "move", a0, a1, a2, a3)
				_:
					var a0 = args[0]
					var a1 = args[1]
					start = Time.get_ticks_usec()
					for i in n:
						game.rpc_id(FROM, case, a0, a1)
	return Time.get_ticks_usec() - start

# ns per operation over about `seconds`, checking every call arrived or was sent.
func timed(what: String, case: String, args: Array, packet: PackedByteArray, seconds: float) -> float:
	var n := 1000
	while true:
		var calls: int = game.calls
		var sent: int = peer.sent
		var took := run(what, case, args, packet, n)
		if what == "call" and game.calls - calls != n or what in ["rpc", "bytes"] and peer.sent - sent != n:
			print(JSON.stringify({"error": "lost: %s %s" % [what, case]}))
			quit(1)
			return 0.0
		if took > seconds * 1e6 or n > 1 << 30:
			return float(took) * 1000.0 / n
		n *= 2
	return 0.0

func median(a: Array) -> float:
	a.sort()
	return a[a.size() / 2]

func file(dir: String, name: String) -> PackedByteArray:
	return FileAccess.get_file_as_bytes(dir.path_join(name))

func _initialize():
	game = Node.new()
	game.name = "Game"
	game.set_script(load("res://bench_game4.gd"))
	root.add_child(game)

# On the first frame: the node is in the tree only then.
func _process(_delta: float) -> bool:
	var seconds := float(OS.get_environment("BENCH_SECONDS")) if OS.get_environment("BENCH_SECONDS") != "" else 1.0
	var runs := int(OS.get_environment("BENCH_RUNS")) if OS.get_environment("BENCH_RUNS") != "" else 5
	var dir := OS.get_environment("BENCH_DIR")
	peer = load("res://bench_peer4.gd").new()
	mp = get_multiplayer()
	mp.multiplayer_peer = peer
	mp.poll()
	# Peer 2 names the node (its cache id 1); the engine confirms it.
	peer.packet = file(dir, "rpc-simplify.packet")
	peer.left = 1
	mp.poll()
	var confirmed := false
	for case in ["move", "chat", "state"]:
		var args: Array = bytes_to_var(file(dir, "rpc-%s.bin" % case))
		var packet := file(dir, "rpc-%s.packet" % case)
		if not confirmed:
			# The engine's first call names the node; peer 2 confirms its cache id 1,
			# so every call timed goes by id, as the crate's packet does.
			run("rpc", case, args, packet, 1)
			peer.packet = PackedByteArray([2, 1, 1, 0, 0, 0])
			peer.left = 1
			mp.poll()
			confirmed = true
		run("rpc", case, args, packet, 1)
		if peer.last_sent != packet:
			print(JSON.stringify({"error": "the engine's %s call differs from the crate's" % case, "engine": Marshalls.raw_to_base64(peer.last_sent)}))
			quit(1)
			return true
		var skipped := PackedByteArray([7, 0])
		var raw := PackedByteArray([3])
		raw.resize(packet.size())
		var rec := []
		var send := []
		for r in runs:
			rec.append(timed("call", case, args, packet, seconds) - timed("skipped", case, args, skipped, seconds))
			send.append(timed("rpc", case, args, packet, seconds) - timed("bytes", case, args, raw, seconds))
		print(JSON.stringify({"case": case, "bytes": packet.size(), "receive_ns": median(rec), "send_ns": median(send)}))
	quit(0)
	return true
