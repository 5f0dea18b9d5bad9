#!/usr/bin/env bash
# Regenerates multiplayer/tests/fixtures/godot4.6.jsonl and godot3.6.jsonl: the
# multiplayer packets as Godot 4 and Godot 3 send them (multiplayer/tests/oracle/
# mp4.gd, mp3.gd), broadcast4.6.jsonl and broadcast3.6.jsonl: what a client sends
# to all and to all but one (broadcast4.gd, broadcast3.gd), and replication4.6.jsonl:
# Godot 4's spawn, despawn and sync packets with what the receiving engine made of
# them (replicate4.gd). Engines from
# scripts/setup-godot.sh at the workspace root (or $GODOT_BIN).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${GODOT_BIN:-.godot-oracles/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'config_version=5\n' > "$tmp/project.godot"
# The Godot 4 oracles' script peer.
cp multiplayer/tests/oracle/link4.gd "$tmp/"
cp multiplayer/tests/oracle/mp4.gd "$tmp/s.gd"
out=multiplayer/tests/fixtures/godot4.6.jsonl
"$bin/godot4" --headless --no-header --path "$tmp" -s s.gd | grep '^{' > "$out"
echo "$out: $(wc -l < "$out") lines from $("$bin/godot4" --version | head -1)"
cp multiplayer/tests/oracle/broadcast4.gd "$tmp/s.gd"
out=multiplayer/tests/fixtures/broadcast4.6.jsonl
"$bin/godot4" --headless --no-header --path "$tmp" -s s.gd | grep '^{' > "$out"
echo "$out: $(wc -l < "$out") lines from $("$bin/godot4" --version | head -1)"
cp multiplayer/tests/oracle/replicate4.gd "$tmp/s.gd"
out=multiplayer/tests/fixtures/replication4.6.jsonl
"$bin/godot4" --headless --no-header --path "$tmp" -s s.gd | grep '^{' > "$out"
echo "$out: $(wc -l < "$out") lines from $("$bin/godot4" --version | head -1)"
printf 'config_version=4\n' > "$tmp/project.godot"
cp multiplayer/tests/oracle/mp3.gd "$tmp/s.gd"
out=multiplayer/tests/fixtures/godot3.6.jsonl
"$bin/godot3.6" --no-window --path "$tmp" -s s.gd | grep '^{' > "$out"
echo "$out: $(wc -l < "$out") lines from $("$bin/godot3.6" --version | head -1)"
cp multiplayer/tests/oracle/broadcast3.gd "$tmp/s.gd"
out=multiplayer/tests/fixtures/broadcast3.6.jsonl
"$bin/godot3.6" --no-window --path "$tmp" -s s.gd | grep '^{' > "$out"
echo "$out: $(wc -l < "$out") lines from $("$bin/godot3.6" --version | head -1)"
