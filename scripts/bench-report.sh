#!/usr/bin/env bash
# Runs the criterion benchmarks and prints Markdown tables from their estimates
# (medians): the README's world table, each dataset against the peers, pool arrays
# against memcpy, Variant throughput per dialect, and (growth) the cost per element
# at 10 thousand and 1 million elements.
#
#   scripts/bench-report.sh [--no-run] [--runs N] [world|datasets|pools|raw|growth ...] [-- CRITERION_ARGS...]
#
# With no bench named, all five run. --no-run prints from the results already in
# $CARGO_TARGET_DIR/criterion. --runs N runs the benches N times and prints, for each
# benchmark, the median of its N medians (this machine's speed swings by a third from
# minute to minute; one run can catch a slow spell for one format and not another).
# Ratios "× godot_bin" are the peer's time over ours (above 1: we are faster).
#
# ENGINE_JSON=FILE joins timings of the real engines (by default, when the world bench
# runs and .godot-oracles/bin has them, scripts/bench-engines.sh measures them), on the bytes that the
# world bench writes to $CARGO_TARGET_DIR/bench-data/world-{3,4}.bin: one JSON object a
# line, {"engine": "3.6", "bytes": N, "decode_ns": x, "encode_ns": y}; an engine "3.*"
# pairs with world-3.bin's Variant figures, "4.*" with world-4.bin's.
set -euo pipefail
cd "$(dirname "$0")/.."

run=1
runs=1
benches=()
while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
    --no-run) run=0 ;;
    --runs)
        [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "--runs needs a count of 1 or more" >&2; exit 2; }
        runs=$2
        shift
        ;;
    world | datasets | pools | raw | growth) benches+=("$1") ;;
    *)
        echo "usage: $0 [--no-run] [--runs N] [world|datasets|pools|raw|growth ...] [-- CRITERION_ARGS...]" >&2
        exit 2
        ;;
    esac
    shift
done
[[ ${#benches[@]} -gt 0 ]] || benches=(world datasets pools raw growth)

criterion=${CARGO_TARGET_DIR:-target}/criterion
roots=("$criterion")
if [[ $run == 1 ]]; then
    if [[ $runs -gt 1 ]]; then
        keep=$(mktemp -d)
        trap 'rm -rf "$keep"' EXIT
        roots=()
    fi
    for ((i = 1; i <= runs; i++)); do
        cargo bench "${benches[@]/#/--bench=}" "$@" >&2
        if [[ $runs -gt 1 ]]; then
            mkdir "$keep/$i"
            (cd "$criterion" && find . -path '*/new/*.json' -exec cp --parents {} "$keep/$i" \;)
            roots+=("$keep/$i")
        fi
    done
    # The engines on the very bytes the world bench just wrote, when they are here
    # (scripts/setup-godot.sh) and no timings were given.
    data=${CARGO_TARGET_DIR:-target}/bench-data
    engines=${GODOT_BIN:-.godot-oracles/bin}
    if [[ " ${benches[*]} " == *" world "* && -z ${ENGINE_JSON:-} && -x $engines/godot4 ]]; then
        export ENGINE_JSON=$data/engines.jsonl
        scripts/bench-engines.sh "$data/world-3.bin" "$data/world-4.bin" >"$ENGINE_JSON"
    fi
fi

ROOTS="$(printf "%s\n" "${roots[@]}")" python3 - "${benches[@]}" <<'PY'
import json, os, statistics, sys

roots, benches = os.environ["ROOTS"].splitlines(), sys.argv[1:]

# full_id ("datasets/log/serialize/godot_bin") -> (median ns, throughput bytes or None);
# with several runs, the median of the runs' medians.
runs = {}
for root in roots:
    for directory, _, files in os.walk(root):
        if os.path.basename(directory) == "new" and "estimates.json" in files:
            with open(os.path.join(directory, "benchmark.json")) as f:
                meta = json.load(f)
            with open(os.path.join(directory, "estimates.json")) as f:
                ns = json.load(f)["median"]["point_estimate"]
            runs.setdefault(meta["full_id"], []).append(
                (ns, (meta.get("throughput") or {}).get("Bytes")))
results = {id: (statistics.median(ns for ns, _ in r), r[0][1]) for id, r in runs.items()}
if len(roots) > 1:
    print(f"(Medians of {len(roots)} runs.)\n")

def ns(id):
    return results[id][0]

def us(id):
    return ns(id) / 1000.0

def mbps(id):
    """Throughput in MB/s (10^6 bytes) of a benchmark with Throughput::Bytes."""
    t, b = results[id]
    return b / t * 1000.0

def world():
    print("### World snapshot (1000 entities)\n")
    print("| format | serialize µs | × godot_bin | deserialize µs | × godot_bin |")
    print("|---|---:|---:|---:|---:|")
    gs, gd = us("serialize/godot_bin"), us("deserialize/godot_bin")
    for fmt in ["godot_bin", "bincode", "postcard", "rmp_serde", "serde_json"]:
        s, d = us(f"serialize/{fmt}"), us(f"deserialize/{fmt}")
        print(f"| {fmt} | {s:.0f} | {s / gs:.2f} | {d:.0f} | {d / gd:.2f} |")
    b = us("deserialize_borrowed/godot_bin")
    p = us("deserialize_borrowed/postcard")
    print(f"| godot_bin, borrowed `&str` | | | {b:.0f} | {b / gd:.2f} |")
    print(f"| postcard, borrowed `&str` | | | {p:.0f} | {p / gd:.2f} |")
    v = us("deserialize_dynamic/godot_bin_Variant")
    j = us("deserialize_dynamic/serde_json_Value")
    print(f"\nBorrowed postcard: {p / b:.2f} × borrowed godot_bin.")
    print(f"Dynamic: `Variant` {v:.0f} µs, `serde_json::Value` {j:.0f} µs ({j / v:.2f} × Variant).\n")

def datasets():
    formats = ["godot_bin", "rmp_serde", "serde_json", "ciborium", "bincode", "postcard"]
    for name in ["log", "mesh", "save", "snapshot"]:
        print(f"### Dataset `{name}`\n")
        print("| format | bytes | serialize µs | × godot_bin | deserialize µs | × godot_bin |")
        print("|---|---:|---:|---:|---:|---:|")
        s_id, d_id = f"datasets/{name}/serialize/", f"datasets/{name}/deserialize/"
        gs, gd = us(s_id + "godot_bin"), us(d_id + "godot_bin")
        for fmt in formats:
            s, d = us(s_id + fmt), us(d_id + fmt)
            size = results[s_id + fmt][1]
            print(f"| {fmt} | {size} | {s:.0f} | {s / gs:.2f} | {d:.0f} | {d / gd:.2f} |")
        print()

def pools():
    print("### Pool arrays (16 MiB)\n")
    fresh = mbps("pools/memcpy/fresh") / 1000.0
    pre = mbps("pools/memcpy/prealloc") / 1000.0
    print(f"memcpy: {fresh:.2f} GB/s into a fresh `Vec`, {pre:.2f} GB/s into a preallocated one; "
          "\"× memcpy\" is the fraction of the fresh one (encode and decode also fill a fresh `Vec`).\n")
    print("| payload | encode GB/s | × memcpy | decode GB/s | × memcpy |")
    print("|---|---:|---:|---:|---:|")
    for name, label in [
        ("real_with", "`Vec<f32>`, `pool::real`"),
        ("PoolRealArray", "`PoolRealArray`"),
        ("vector3_with", "`Vec<Vector3>`, `pool::vector3`"),
        ("PoolVector3Array", "`PoolVector3Array`"),
        ("PoolByteArray", "`PoolByteArray` (serde_bytes)"),
    ]:
        e = mbps(f"pools/encode/{name}") / 1000.0
        d = mbps(f"pools/decode/{name}") / 1000.0
        print(f"| {label} | {e:.2f} | {e / fresh:.2f} | {d:.2f} | {d / fresh:.2f} |")
    print()

def variant():
    print("### World snapshot as `Variant`\n")
    print("| dialect | bytes | encode µs | encode MB/s | decode µs | decode MB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for major in ["3", "4"]:
        e, d = f"variant/encode/godot{major}", f"variant/decode/godot{major}"
        print(f"| Godot {major} | {results[e][1]} | {us(e):.0f} | {mbps(e):.0f} "
              f"| {us(d):.0f} | {mbps(d):.0f} |")
    print()

def engines():
    """Joins ENGINE_JSON's engine timings with the Variant figures of the same dialect."""
    path = os.environ.get("ENGINE_JSON")
    if not path:
        return
    print("### godot_bin `Variant` against the engines (same bytes)\n")
    print("\"×\" is godot_bin's throughput over the engine's (above 1: godot_bin is faster).\n")
    print("| engine | bytes | decode MB/s engine | godot_bin | × | encode MB/s engine | godot_bin | × |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    for row in rows:
        major = str(row["engine"]).split(".")[0]
        cells = []
        for op in ["decode", "encode"]:
            ours = f"variant/{op}/godot{major}"
            theirs = row.get(f"{op}_ns")
            if ours not in results or not theirs:
                cells += ["–", "–", "–"]
                continue
            engine = row["bytes"] / theirs * 1000.0
            cells += [f"{engine:.0f}", f"{mbps(ours):.0f}", f"{mbps(ours) / engine:.2f}"]
        ours_bytes = results.get(f"variant/decode/godot{major}", (0, None))[1]
        bytes_cell = str(row["bytes"])
        if ours_bytes is not None and ours_bytes != row["bytes"]:
            bytes_cell += f" (godot_bin: {ours_bytes})"
        print(f"| {row['engine']} | {bytes_cell} | " + " | ".join(cells) + " |")
    print()

if "world" in benches:
    world()
if "datasets" in benches:
    datasets()
if "pools" in benches:
    pools()
def raw():
    print("### Raw StreamPeer layout (Freeblox packets)\n")
    print("| packet | bytes | format | serialize ns | × godot_bin | deserialize ns | × godot_bin |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name, label in [("stream_transform", "STREAM_TRANSFORM"), ("player_movement", "PLAYER_MOVEMENT"),
                        ("transform_batch", "1000 × STREAM_TRANSFORM")]:
        s_id, d_id = f"raw/{name}/serialize/", f"raw/{name}/deserialize/"
        gs, gd = ns(s_id + "godot_bin raw"), ns(d_id + "godot_bin raw")
        for fmt in ["godot_bin raw", "postcard", "bincode 2 fixint"]:
            s, d = ns(s_id + fmt), ns(d_id + fmt)
            size = results[s_id + "godot_bin raw"][1] if fmt == "godot_bin raw" else ""
            print(f"| {label} | {size} | {fmt} | {s:.0f} | {s / gs:.2f} | {d:.0f} | {d / gd:.2f} |")
    print()

if "raw" in benches:
    raw()

def growth():
    print("### Cost per element as values grow (benches/growth.rs)\n")
    print("| shape | operation | ns per element at 10 thousand | at 1 million | growth |")
    print("|---|---|--:|--:|--:|")
    for shape in ["items", "points"]:
        for op, label in [("encode", "godot_bin to_vec"), ("encode_into", "godot_bin to_vec_into"),
                          ("decode", "godot_bin from_slice"), ("postcard_encode", "postcard to_allocvec"),
                          ("postcard_decode", "postcard from_bytes")]:
            small = ns(f"growth/{shape}/{op}/10000") / 1e4
            big = ns(f"growth/{shape}/{op}/1000000") / 1e6
            print(f"| {shape} | {label} | {small:.1f} | {big:.1f} | {big / small:.2f}× |")
    print()

if "growth" in benches:
    growth()
if "world" in benches:
    variant()
engines()
PY
