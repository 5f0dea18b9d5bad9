#!/usr/bin/env bash
# The engines' own speed on the same bytes as our benchmark: Godot 3.6's
# bytes2var / var2bytes on FILE3 (tests/oracle/bench3.gd) and Godot 4's
# bytes_to_var / var_to_bytes on FILE4 (tests/oracle/bench4.gd), timed inside GDScript.
#
#   scripts/bench-engines.sh FILE3 FILE4      (from any directory)
#
# FILE3 and FILE4 hold one Variant each, in the bytes the engine itself writes (each
# script checks that var2bytes(bytes2var(b)) gives b back). Engines: $GODOT_BIN/godot3.6
# and $GODOT_BIN/godot4, default .godot-oracles/bin in the repository
# (scripts/setup-godot.sh). stdout is exactly two JSON lines, Godot 3 then Godot 4:
#   {"engine":"3.6.stable...","bytes":N,"decode_ns":...,"encode_ns":...,"decode_runs":[...],
#    "encode_runs":[...],"decode_cpu_ns":...,"encode_cpu_ns":...}
# (ns per call, medians of the runs; MB/s = bytes / ns * 1000; *_cpu_ns count only time
# on a CPU, see the .gd headers). Engine banners, calls per run, the share of each run
# spent waiting for a CPU and the load average go to stderr. Exit 1 if an engine fails,
# its round trip differs or it prints no result; 2 on bad arguments.
# Environment: BENCH_SECONDS (each timed run, default 1.5) and BENCH_RUNS (default 5)
# go to the scripts; BENCH_TIMEOUT (s, default 300) stops a hung engine. With the
# defaults the whole run takes about 31 s.
set -euo pipefail

usage() { echo "usage: $0 FILE3 FILE4" >&2; exit 2; }
[ $# -eq 2 ] || usage
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${GODOT_BIN:-$root/.godot-oracles/bin}
bin=$(cd "$bin" 2>/dev/null && pwd) || { echo "no engine folder: $bin" >&2; exit 2; }
files=()
for f in "$@"; do
  [ -f "$f" ] || { echo "no such file: $f" >&2; exit 2; }
  files+=("$(realpath -- "$f")")
done

# run NAME ENGINE-ARGS...: runs the engine, its result line to stdout, the rest to stderr.
run() {
  local name=$1 engine=$bin/$1 out rc=0 json
  shift
  [ -x "$engine" ] || { echo "$name: no engine at $engine" >&2; return 1; }
  echo "$name: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  out=$(timeout "${BENCH_TIMEOUT:-300}" "$engine" "$@") || rc=$?
  grep -v -e '^{"engine":' -e '^[[:space:]]*$' <<<"$out" >&2 || true
  json=$(grep '^{"engine":' <<<"$out" || true)
  if [ "$rc" -ne 0 ] || [ "$(grep -c . <<<"$json")" -ne 1 ]; then
    echo "$name failed (exit $rc)" >&2
    return 1
  fi
  printf '%s\n' "$json"
}

status=0
run godot3.6 --no-window --path "$root/tests/oracle" -s bench3.gd -- "${files[0]}" || status=1
run godot4 --headless --no-header --path "$root/tests/oracle/g4" -s ../bench4.gd -- "${files[1]}" || status=1
exit "$status"
