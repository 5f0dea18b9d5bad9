#!/usr/bin/env bash
# Instructions per world snapshot (benches/instructions.rs) under callgrind: typed
# encode (to a new Vec, and into a reused one), typed decode, borrowed decode and
# `Variant` decode, for godot_bin and postcard; and `Config::to_variant` of an RPC's
# movement arguments. Each figure is (count of N=20 runs -
# count of N=10 runs) / 10, so setup is taken off. Unlike timings on this machine,
# these do not move from run to run, but they do move with how the program built
# around the operation leaves the heap. `encode` repeats `to_vec` of one snapshot,
# whose output then starts at its size (the best case of `to_vec`'s starting size:
# a first encode grows its output, and copies as it grows); `encode_into` writes
# into a buffer kept from the run before.
#
#   scripts/count-instructions.sh        (from any directory; needs valgrind:
#                                         apt-get install -y valgrind)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install -y valgrind)" >&2; exit 1; }
bin=$(cargo bench --bench instructions --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*instructions[^"]*\)".*/\1/p' | tail -n1)
[ -x "$bin" ] || { echo "could not build benches/instructions.rs" >&2; exit 1; }

count() { # MODE N -> instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
    sed -n 's/.*refs: *//p' | tr -d ,
}
per_run() { echo $((($(count "$1" 20) - $(count "$1" 10)) / 10)); }

echo "| operation | godot_bin | postcard | × postcard |"
echo "|---|--:|--:|--:|"
for op in encode encode_into decode borrowed; do
  g=$(per_run "godot_bin/$op")
  p=$(per_run "postcard/$op")
  echo "| $op | $g | $p | $(awk -v g="$g" -v p="$p" 'BEGIN { printf "%.2f", g / p }') |"
done
echo "| variant (decode to Variant) | $(per_run godot_bin/variant) | | |"
echo "| to_variant of a (Vector3, Vector3, i64, bool) tuple | $(per_run godot_bin/to_variant) | | |"
