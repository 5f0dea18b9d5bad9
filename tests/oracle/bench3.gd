# Godot 3 throughput of the engine's own bytes2var / var2bytes on a file of Variant
# bytes, timed inside GDScript (engine startup is not counted). scripts/bench-engines.sh
# runs it; by hand:
#
#   godot3.6 --no-window --path tests/oracle -s bench3.gd -- /abs/path/world3.bin
#
# The file is the one argument after `--` (Godot 3 has no get_cmdline_user_args: the
# script takes what follows "--" in OS.get_cmdline_args()); a relative path is taken
# from $PWD, since --path moves the engine into the project folder.
# Environment: BENCH_SECONDS (each timed run, default 1.5), BENCH_RUNS (default 5).
#
# First var2bytes(bytes2var(b)) must give back exactly b (the bytes are what this engine
# writes), else an error and exit code 1. Then, after 0.1 s of each as warm-up, decode
# (v = bytes2var(b)) and encode (e = var2bytes(v)) are each repeated for BENCH_SECONDS of
# wall time, BENCH_RUNS times (the two take turns), counting calls. Decode times include
# freeing the previous result (the assignment drops it); the loop itself costs about
# 0.15 µs a call. One JSON line goes to stdout, ns per call, the median of the runs first:
#   {"engine":"3.6.stable.debian3.6+ds-2","bytes":239052,"decode_ns":...,"encode_ns":...,
#    "decode_runs":[...],"encode_runs":[...],"decode_cpu_ns":...,"encode_cpu_ns":...}
# The *_cpu_ns fields (medians too) count only the time the main thread was on a CPU
# (Linux's /proc/self/schedstat; null elsewhere): when other processes compete for the
# CPUs they hold up better than the wall times (though not against a busy sibling
# hyperthread or shared cache). Calls per run and the share of each run spent waiting for
# a CPU go to stderr: well above 0% means the machine was oversubscribed. The engine's
# banner (two lines) also goes to stdout: the result is the line starting with "{".
extends SceneTree

func version() -> String:
	var i := Engine.get_version_info()
	var s := "%d.%d" % [i.major, i.minor]
	if i.patch != 0:
		s += ".%d" % i.patch
	return "%s.%s.%s" % [s, i.status, i.build]

func file_arg() -> String:
	var args := OS.get_cmdline_args()
	var at := args.find("--")
	if at < 0 or at + 1 >= args.size():
		return ""
	var path: String = args[at + 1]
	if not path.is_abs_path() and OS.get_environment("PWD") != "":
		path = OS.get_environment("PWD").plus_file(path)
	return path

# [value], or null when bytes2var refused the bytes: Godot 3's bytes2var has no error
# return; on bad input it raises a SCRIPT ERROR that aborts the *calling* function,
# which then returns null (were that _init, quit() would never run).
func decode(b: PoolByteArray):
	var v = bytes2var(b)
	return [v]

# [ns on a CPU, ns waiting for one] of the main thread so far, from Linux's
# /proc/self/schedstat; [] where there is none.
func sched() -> Array:
	var f := File.new()
	if f.open("/proc/self/schedstat", File.READ) != OK:
		return []
	var p := f.get_line().split(" ")
	f.close()
	if p.size() < 2 or not p[0].is_valid_integer() or not p[1].is_valid_integer():
		return []
	return [int(p[0]), int(p[1])]

# One run: [calls, wall ns, CPU ns, ns waiting for a CPU] (-1, -1 without schedstat).
func run_result(n: int, wall_usec: int, s0: Array, s1: Array) -> Array:
	if s0.empty() or s1.empty():
		return [n, wall_usec * 1000, -1, -1]
	return [n, wall_usec * 1000, s1[0] - s0[0], s1[1] - s0[1]]

# bytes2var(b) for at least usec µs of wall time.
func time_decode(b: PoolByteArray, usec: int) -> Array:
	var v
	var n := 0
	var s0 := sched()
	var t0 := OS.get_ticks_usec()
	var end := t0 + usec
	var t := t0
	while t < end:
		v = bytes2var(b)
		n += 1
		t = OS.get_ticks_usec()
	return run_result(n, t - t0, s0, sched())

# var2bytes(v) for at least usec µs of wall time.
func time_encode(v, usec: int) -> Array:
	var e: PoolByteArray
	var n := 0
	var s0 := sched()
	var t0 := OS.get_ticks_usec()
	var end := t0 + usec
	var t := t0
	while t < end:
		e = var2bytes(v)
		n += 1
		t = OS.get_ticks_usec()
	return run_result(n, t - t0, s0, sched())

func median(a: Array) -> int:
	var s := a.duplicate()
	s.sort()
	var m := s.size() / 2
	if s.size() % 2 == 1:
		return s[m]
	return int(round((s[m - 1] + s[m]) / 2.0))

# Adds one run to stats {wall: [ns per call...], cpu: [...], calls: [...], wait: "a%, ..."}.
func add_run(stats: Dictionary, r: Array) -> void:
	stats.calls.append(r[0])
	stats.wall.append(int(round(r[1] / float(r[0]))))
	if r[2] >= 0:
		stats.cpu.append(int(round(r[2] / float(r[0]))))
		stats.wait += "%s%.1f%%" % [", " if stats.wait != "" else "", 100.0 * r[3] / r[1]]

func new_stats() -> Dictionary:
	return {"wall": [], "cpu": [], "calls": [], "wait": ""}

func median_or_null(a: Array) -> String:
	return "null" if a.empty() else str(median(a))

func env_num(name: String, default: float) -> float:
	var s := OS.get_environment(name)
	return float(s) if s.is_valid_float() else default

func _init():
	var path := file_arg()
	if path == "":
		printerr("usage: godot3.6 --no-window --path tests/oracle -s bench3.gd -- FILE")
		quit(2)
		return
	var f := File.new()
	var err := f.open(path, File.READ)
	if err != OK:
		printerr("cannot open ", path, ": ", err)
		quit(1)
		return
	var b := f.get_buffer(f.get_len())
	f.close()

	var decoded = decode(b)
	if decoded == null:
		printerr("ERROR: bytes2var refused ", path)
		quit(1)
		return
	var v = decoded[0]
	var again := var2bytes(v)
	if again != b:
		printerr("ERROR: round trip differs: var2bytes(bytes2var(b)) has ", again.size(),
			" bytes, the file ", b.size(), " (", path, ")")
		quit(1)
		return

	var usec := int(max(1.0, env_num("BENCH_SECONDS", 1.5) * 1e6))
	var runs := int(max(1.0, env_num("BENCH_RUNS", 5)))
	# Warm-up, then decode and encode runs take turns, so that a burst of load from
	# elsewhere on the machine does not land on one of them only.
	time_decode(b, 100000)
	time_encode(v, 100000)
	var dec := new_stats()
	var enc := new_stats()
	for _i in range(runs):
		add_run(dec, time_decode(b, usec))
		add_run(enc, time_encode(v, usec))
	printerr("bench3: ", version(), ": calls per run: decode ", dec.calls, ", encode ", enc.calls,
		"; time waiting for a CPU: decode [", dec.wait, "], encode [", enc.wait, "]")
	print('{"engine":%s,"bytes":%d,"decode_ns":%d,"encode_ns":%d,"decode_runs":%s,"encode_runs":%s,"decode_cpu_ns":%s,"encode_cpu_ns":%s}' % [
		to_json(version()), b.size(), median(dec.wall), median(enc.wall), to_json(dec.wall),
		to_json(enc.wall), median_or_null(dec.cpu), median_or_null(enc.cpu)])
	quit(0)
