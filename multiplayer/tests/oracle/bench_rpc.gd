# The engine's side of multiplayer/benches/rpc.rs: for each file in $BENCH_FILES
# (colon-separated; var_to_bytes of an RPC argument array), times var_to_bytes of the
# array and bytes_to_var of its bytes inside GDScript (startup excluded): the part
# of the engine's RPC path a script can time. Prints one JSON line per file:
# {"file", "bytes", "encode_ns", "decode_ns", "loop_ns"} (ns per call, median of
# $BENCH_RUNS runs of at least $BENCH_SECONDS each, the empty loop's ns per turn
# taken off).
extends SceneTree

# ns per call of `what` (0 encode, 1 decode, 2 the empty loop) over about `seconds`.
func timed(what: int, args, bytes: PackedByteArray, seconds: float) -> float:
	var n := 1000
	while true:
		var start := Time.get_ticks_usec()
		match what:
			0:
				for i in n:
					var_to_bytes(args)
			1:
				for i in n:
					bytes_to_var(bytes)
			_:
				for i in n:
					pass
		var took := Time.get_ticks_usec() - start
		if took > seconds * 1e6 or n > 1 << 30:
			return float(took) * 1000.0 / n
		n *= 2
	return 0.0

func median(a: Array) -> float:
	a.sort()
	return a[a.size() / 2]

func _initialize():
	var seconds := float(OS.get_environment("BENCH_SECONDS")) if OS.get_environment("BENCH_SECONDS") != "" else 1.0
	var runs := int(OS.get_environment("BENCH_RUNS")) if OS.get_environment("BENCH_RUNS") != "" else 5
	for path in OS.get_environment("BENCH_FILES").split(":"):
		var bytes := FileAccess.get_file_as_bytes(path)
		var args = bytes_to_var(bytes)
		if var_to_bytes(args) != bytes:
			print(JSON.stringify({"error": "round trip", "file": path}))
			quit(1)
			return
		var enc := []
		var dec := []
		var loop := []
		for r in runs:
			enc.append(timed(0, args, bytes, seconds))
			dec.append(timed(1, args, bytes, seconds))
			loop.append(timed(2, args, bytes, seconds))
		# The loop's own cost is taken off: what is left is the engine's call.
		var l := median(loop)
		print(JSON.stringify({"file": path, "bytes": bytes.size(), "encode_ns": median(enc) - l, "decode_ns": median(dec) - l, "loop_ns": l}))
	quit(0)
