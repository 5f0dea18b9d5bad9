#!/usr/bin/env bash
# Regenerates tests/fixtures/raw/*.jsonl: named raw packets as the real engines write
# them (tests/oracle/rawfacts3.gd, rawfacts4.gd). Engines from scripts/setup-godot.sh
# (or $GODOT_BIN).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GODOT_BIN:-.godot-oracles/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # engine, project config line, script, extra args, output
    mkdir -p "$tmp/p"
    printf '%s\n' "$2" > "$tmp/p/project.godot"
    cp "$3" "$tmp/p/s.gd"
    "$bin/$1" $4 --path "$tmp/p" -s s.gd | grep '^{' > "$5"
    echo "$5: $(wc -l < "$5") packets from $("$bin/$1" --version | head -1)"
}
run godot4 'config_version=5' tests/oracle/rawfacts4.gd "--headless --no-header" tests/fixtures/raw/godot4.6.jsonl
run godot3.6 'config_version=4' tests/oracle/rawfacts3.gd "--no-window" tests/fixtures/raw/godot3.6.jsonl
