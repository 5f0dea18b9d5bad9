# Godot 4 throughput of the engine's own bytes_to_var / var_to_bytes on a file of
# Variant bytes, timed inside GDScript (engine startup is not counted).
# scripts/bench-engines.sh runs it; by hand:
#
#   godot4 --headless --no-header --path tests/oracle/g4 -s ../bench4.gd -- /abs/path/world4.bin
#
# The file is the one argument after `--` (OS.get_cmdline_user_args()); a relative path
# is taken from $PWD, since --path moves the engine into the project folder.
# Environment: BENCH_SECONDS (each timed run, default 1.5), BENCH_RUNS (default 5).
#
# First var_to_bytes(bytes_to_var(b)) must give back exactly b (the bytes are what this
# engine writes), else an error and exit code 1. Then, after 0.1 s of each as warm-up,
# decode (v = bytes_to_var(b)) and encode (e = var_to_bytes(v)) are each repeated for
# BENCH_SECONDS of wall time, BENCH_RUNS times (the two take turns), counting calls.
# Decode times include freeing the previous result (the assignment drops it); the loop
# itself costs about 0.06 µs a call. One JSON line goes to stdout, ns per call, the
# median of the runs first:
#   {"engine":"4.6.3.stable.debian4.6.3+ds-3","bytes":239052,"decode_ns":...,"encode_ns":...,
#    "decode_runs":[...],"encode_runs":[...],"decode_cpu_ns":...,"encode_cpu_ns":...}
# The *_cpu_ns fields (medians too) count only the time the main thread was on a CPU
# (Linux's /proc/self/schedstat; null elsewhere): when other processes compete for the
# CPUs they hold up better than the wall times (though not against a busy sibling
# hyperthread or shared cache). Calls per run and the share of each run spent waiting for
# a CPU go to stderr: well above 0% means the machine was oversubscribed. With --no-header
# nothing else goes to stdout.
extends SceneTree

func version() -> String:
	var i := Engine.get_version_info()
	var s := "%d.%d" % [i.major, i.minor]
	if i.patch != 0:
		s += ".%d" % i.patch
	return "%s.%s.%s" % [s, i.status, i.build]

func file_arg() -> String:
	var args := OS.get_cmdline_user_args()
	if args.is_empty():
		return ""
	var path: String = args[0]
	if not path.is_absolute_path() and OS.get_environment("PWD") != "":
		path = OS.get_environment("PWD").path_join(path)
	return path

# [ns on a CPU, ns waiting for one] of the main thread so far, from Linux's
# /proc/self/schedstat; [] where there is none.
func sched() -> Array:
	var f := FileAccess.open("/proc/self/schedstat", FileAccess.READ)
	if f == null:
		return []
	var p := f.get_line().split(" ")
	if p.size() < 2 or not p[0].is_valid_int() or not p[1].is_valid_int():
		return []
	return [int(p[0]), int(p[1])]

# One run: [calls, wall ns, CPU ns, ns waiting for a CPU] (-1, -1 without schedstat).
func run_result(n: int, wall_usec: int, s0: Array, s1: Array) -> Array:
	if s0.is_empty() or s1.is_empty():
		return [n, wall_usec * 1000, -1, -1]
	return [n, wall_usec * 1000, s1[0] - s0[0], s1[1] - s0[1]]

# bytes_to_var(b) for at least usec µs of wall time.
func time_decode(b: PackedByteArray, usec: int) -> Array:
	var v: Variant
	var n := 0
	var s0 := sched()
	var t0 := Time.get_ticks_usec()
	var end := t0 + usec
	var t := t0
	while t < end:
		v = bytes_to_var(b)
		n += 1
		t = Time.get_ticks_usec()
	return run_result(n, t - t0, s0, sched())

# var_to_bytes(v) for at least usec µs of wall time.
func time_encode(v: Variant, usec: int) -> Array:
	var e: PackedByteArray
	var n := 0
	var s0 := sched()
	var t0 := Time.get_ticks_usec()
	var end := t0 + usec
	var t := t0
	while t < end:
		e = var_to_bytes(v)
		n += 1
		t = Time.get_ticks_usec()
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
	return "null" if a.is_empty() else str(median(a))

func env_num(name: String, fallback: float) -> float:
	var s := OS.get_environment(name)
	return float(s) if s.is_valid_float() else fallback

func _init() -> void:
	var path := file_arg()
	if path == "":
		printerr("usage: godot4 --headless --no-header --path tests/oracle/g4 -s ../bench4.gd -- FILE")
		quit(2)
		return
	var f := FileAccess.open(path, FileAccess.READ)
	if f == null:
		printerr("cannot open ", path, ": ", error_string(FileAccess.get_open_error()))
		quit(1)
		return
	var b := f.get_buffer(f.get_length())
	f.close()

	var v: Variant = bytes_to_var(b)
	var again := var_to_bytes(v)
	if again != b:
		printerr("ERROR: round trip differs: var_to_bytes(bytes_to_var(b)) has ", again.size(),
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
	printerr("bench4: ", version(), ": calls per run: decode ", dec.calls, ", encode ", enc.calls,
		"; time waiting for a CPU: decode [", dec.wait, "], encode [", enc.wait, "]")
	print('{"engine":%s,"bytes":%d,"decode_ns":%d,"encode_ns":%d,"decode_runs":%s,"encode_runs":%s,"decode_cpu_ns":%s,"encode_cpu_ns":%s}' % [
		JSON.stringify(version()), b.size(), median(dec.wall), median(enc.wall), JSON.stringify(dec.wall),
		JSON.stringify(enc.wall), median_or_null(dec.cpu), median_or_null(enc.cpu)])
	quit(0)
