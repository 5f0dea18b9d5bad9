#!/usr/bin/env bash
# Regenerates the encrypted-file fixtures (tests/fixtures/encrypted/) with the real
# engines, through tests/oracle/encrypted3.gd (Godot 3) and encrypted4.gd (Godot 4):
#
#   scripts/gen-encrypted-fixtures.sh [BIN_DIR]
#
# BIN_DIR holds the wrappers godot3.2, godot3.6 and godot4 (scripts/setup-godot.sh makes
# them); default $GODOT_BIN, else <repo>/.godot-oracles/bin. For each engine it writes
#
#   <engine>.save        open_encrypted_with_pass with PASSWORD, every value stored
#   <engine>.jsonl       those values as the engine printed them: var2bytes hex and the
#                        UTF-8 hex of var2str, one JSON line each
#   <engine>-key.save    open_encrypted with KEY (32 ASCII bytes), every value stored
#   <engine>-empty.save  open_encrypted_with_pass with PASSWORD, nothing stored
#   engine-versions.txt
#
# PASSWORD and KEY are tests/encrypted.rs's. Godot 4 files change with every run: their
# IV is random.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${1:-${GODOT_BIN:-$ROOT/.godot-oracles/bin}}
OUT=$ROOT/tests/fixtures/encrypted
PASSWORD='pässwörd ✓'
KEY=0123456789abcdef0123456789ABCDEF

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT" "$work/p3" "$work/p4"
printf 'config_version=4\n[logging]\nfile_logging/enable_file_logging=false\nfile_logging/enable_file_logging.pc=false\n' >"$work/p3/project.godot"
printf 'config_version=5\n' >"$work/p4/project.godot"
cp "$ROOT/tests/oracle/encrypted3.gd" "$work/p3/s.gd"
cp "$ROOT/tests/oracle/encrypted4.gd" "$work/p4/s.gd"

# run ENGINE FILE [VAR=VALUE...]: the engine writes FILE; prints the script's JSON lines
run() {
  local engine=$1 file=$2 args
  shift 2
  if [ "$engine" = godot4 ]; then args=(--headless --no-header --path "$work/p4"); else args=(--path "$work/p3"); fi
  env ENC_OP=write ENC_FILE="$file" "$@" timeout 120 "$BIN/$engine" "${args[@]}" -s s.gd 2>"$work/err" |
    grep '^{' || { cat "$work/err" >&2; echo "gen-encrypted-fixtures: $engine failed" >&2; exit 1; }
}

# check LINES: the last line says the file opened (err 0)
check() {
  tail -n1 <<<"$1" | grep -q '"err":0' || { echo "gen-encrypted-fixtures: $1" >&2; exit 1; }
}

: >"$OUT/engine-versions.txt"
for e in godot3.2 godot3.6 godot4; do
  [ -x "$BIN/$e" ] || { echo "gen-encrypted-fixtures: no $BIN/$e (run scripts/setup-godot.sh)" >&2; exit 1; }
  lines=$(run "$e" "$OUT/$e.save" ENC_PASS="$PASSWORD")
  check "$lines"
  grep '"hex"' <<<"$lines" >"$OUT/$e.jsonl"
  check "$(run "$e" "$OUT/$e-key.save" ENC_KEY="$KEY")"
  check "$(run "$e" "$OUT/$e-empty.save" ENC_PASS="$PASSWORD" ENC_COUNT=0)"
  printf '%-9s %s\n' "$e" "$("$BIN/$e" --version 2>/dev/null | tail -n1)" >>"$OUT/engine-versions.txt"
  echo "$e: $(wc -l <"$OUT/$e.jsonl") values" >&2
done
