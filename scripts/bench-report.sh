#!/usr/bin/env bash
# Runs the world-snapshot benchmark and prints the README's table: median times and
# each format's time as a multiple of godot_bin's, from criterion's estimates.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench world "$@" >&2
python3 - "${CARGO_TARGET_DIR:-target}/criterion" <<'PY'
import json, os, sys
root = sys.argv[1]
def median(group, name):
    with open(os.path.join(root, group, name, "new", "estimates.json")) as f:
        return json.load(f)["median"]["point_estimate"] / 1000.0  # ns -> µs
print("| format | serialize µs | × godot_bin | deserialize µs | × godot_bin |")
print("|---|---:|---:|---:|---:|")
gs, gd = median("serialize", "godot_bin"), median("deserialize", "godot_bin")
for fmt in ["godot_bin", "bincode", "postcard", "rmp_serde", "serde_json"]:
    s, d = median("serialize", fmt), median("deserialize", fmt)
    print(f"| {fmt} | {s:.0f} | {s / gs:.2f} | {d:.0f} | {d / gd:.2f} |")
b = median("deserialize_borrowed", "godot_bin")
v, j = median("deserialize_dynamic", "godot_bin_Variant"), median("deserialize_dynamic", "serde_json_Value")
print(f"| godot_bin, borrowed `&str` | | | {b:.0f} | {b / gd:.2f} |")
print(f"\nDynamic: `Variant` {v:.0f} µs, `serde_json::Value` {j:.0f} µs ({j / v:.2f} × Variant).")
PY
