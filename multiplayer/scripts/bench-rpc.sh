#!/usr/bin/env bash
# RPC speed: the crate's Godot 4 remote calls (multiplayer/benches/rpc.rs, criterion)
# against the engine, timed inside GDScript (startup excluded). Prints two Markdown
# tables, ns per call and the engine's time over ours (above 1: we are faster):
# - the codec: the crate's packet encode / decode against the engine's var_to_bytes /
#   bytes_to_var of the same argument arrays (multiplayer/tests/oracle/bench_rpc.gd,
#   loop cost taken off);
# - the whole path: a `Session` sending a call with `rpc` (to a `Transmit`) and
#   receiving one (to an `Event::Call` whose arguments `Call::args` reads into the
#   handler's types; in place, `receive_call`; and to `Variant`s) against
#   SceneMultiplayer's `rpc_id()` and its receiving a call and running the rpc
#   method, over a MultiplayerPeer that stands in for the transport (bench_rpc_path.gd, bench_peer4.gd, bench_game4.gd; the peer's
#   own cost taken off).
#
#   multiplayer/scripts/bench-rpc.sh [-- CRITERION_ARGS...]   (from any directory)
#
# Engines: $GODOT_BIN/godot4 (default .godot-oracles/bin, scripts/setup-godot.sh).
# BENCH_SECONDS and BENCH_RUNS go to the engine script (defaults 1 and 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ ${1:-} == -- ]] && shift
bin=${GODOT_BIN:-.godot-oracles/bin}
target=${CARGO_TARGET_DIR:-target}
cargo bench -p godot-bin-multiplayer --bench rpc -- "$@" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'config_version=5\n' > "$tmp/project.godot"
cp multiplayer/tests/oracle/bench_rpc.gd "$tmp/s.gd"
files=""
for c in move chat state; do files+="${files:+:}$(realpath "$target/bench-data/rpc-$c.bin")"; done
BENCH_FILES=$files timeout 600 "$bin/godot4" --headless --no-header --path "$tmp" -s s.gd \
    | grep '^{' > "$tmp/engine.jsonl"
cp multiplayer/tests/oracle/bench_rpc_path.gd multiplayer/tests/oracle/bench_peer4.gd \
    multiplayer/tests/oracle/bench_game4.gd "$tmp/"
BENCH_DIR=$(realpath "$target/bench-data") timeout 900 "$bin/godot4" --headless --no-header \
    --path "$tmp" -s bench_rpc_path.gd | grep '^{' > "$tmp/path.jsonl"
if grep -q '"error"' "$tmp/path.jsonl" "$tmp/engine.jsonl"; then
    cat "$tmp/path.jsonl" "$tmp/engine.jsonl" >&2
    exit 1
fi
python3 - "$target/criterion" "$tmp/engine.jsonl" "$tmp/path.jsonl" <<'PY'
import json, os, sys
crit, engine, path = sys.argv[1], sys.argv[2], sys.argv[3]
def ours(case, op):
    # criterion turns the group name rpc/<case> into the folder rpc_<case>.
    with open(os.path.join(crit, f"rpc_{case}", op, "new", "estimates.json")) as f:
        return json.load(f)["median"]["point_estimate"]
print("| arguments | bytes | encode ns (crate / engine) | × | decode ns (crate / engine) | × |")
print("|---|--:|--:|--:|--:|--:|")
for line in open(engine):
    e = json.loads(line)
    case = os.path.basename(e["file"])[4:-4]
    oe, od = ours(case, "encode"), ours(case, "decode")
    print(f"| {case} | {e['bytes']} | {oe:.0f} / {e['encode_ns']:.0f} | {e['encode_ns']/oe:.1f} "
          f"| {od:.0f} / {e['decode_ns']:.0f} | {e['decode_ns']/od:.1f} |")
    if case == "move":
        move_engine = e["decode_ns"]
oa = ours("move", "args")
print(f"\nCall::args of move as (Vector3, Vector3, i64, bool): {oa:.0f} ns "
      f"({move_engine/oa:.1f}x the engine's bytes_to_var of the same arguments)")
ot = ours("move", "decode_typed")
print(f"The move packet read in place to those types (CallRef::decode, Args::get): {ot:.0f} ns "
      f"({move_engine/ot:.1f}x the engine's bytes_to_var of the same arguments)")
print()
print("| arguments | bytes | send ns (crate / engine) | × | receive ns (crate / engine) | × | in place ns | × | to Variants ns | × |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for line in open(path):
    e = json.loads(line)
    case = e["case"]
    os_, or_ = ours(case, "session_send"), ours(case, "session_receive")
    oi, ov = ours(case, "session_receive_in_place"), ours(case, "session_receive_variants")
    print(f"| {case} | {e['bytes']} | {os_:.0f} / {e['send_ns']:.0f} | {e['send_ns']/os_:.1f} "
          f"| {or_:.0f} / {e['receive_ns']:.0f} | {e['receive_ns']/or_:.1f} "
          f"| {oi:.0f} | {e['receive_ns']/oi:.1f} | {ov:.0f} | {e['receive_ns']/ov:.1f} |")
    if case == "chat":
        chat_engine = e["receive_ns"]
ob = ours("chat", "session_receive_borrowed")
print(f"\nchat received in place with its text borrowed, as (&str, i64): {ob:.0f} ns "
      f"({chat_engine/ob:.1f}x the engine's receive)")
PY
