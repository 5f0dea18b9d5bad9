#!/usr/bin/env bash
# Regenerates the committed seed corpus fuzz/seeds/<target>/ from the engine fixtures
# (tests/fixtures/*/*.jsonl: bytes written by real Godot 3.2, 3.6 and 4.6 engines),
# one seed per fixture and target with that target's input layout (fuzz/src/lib.rs):
#
#   decode         selector (dialect | 8 if the fixture uses full objects), value
#   decode_struct  value (the target tries every dialect), plus GameState samples
#                  encoded in every dialect by `cargo run --example struct_seeds`
#   var_reader     selector (framing cycles over the three, dialect << 2, objects 16), frame
#                  plus one multi-frame stream per fixture file and framing
#   codec          selector as var_reader, chunk-size count and sizes, frame(s)
#   session3       records [op][len][packet] (fuzz_targets/session3.rs) of the client
#                  packets Godot 3.6 sent (multiplayer/tests/fixtures/godot3.6.jsonl)
#
# Seeds are named after the fixture; identical bytes (3.2 and 3.6 mostly agree) are
# written once. Usage: fuzz/seeds/make-seeds.sh (from any directory).
set -euo pipefail
seeds=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fuzz=$(dirname "$seeds")
root=$(dirname "$fuzz")

for t in decode decode_struct var_reader codec session3; do
  rm -rf "${seeds:?}/$t"
  mkdir -p "$seeds/$t"
done

python3 - "$root/tests/fixtures" "$seeds" <<'PY'
import hashlib, json, os, struct, sys

fixtures, out = sys.argv[1], sys.argv[2]
seen = {t: set() for t in ("decode", "decode_struct", "var_reader", "codec")}

def write(target, name, data):
    digest = hashlib.sha1(data).hexdigest()
    if digest in seen[target]:
        return
    seen[target].add(digest)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)

# framing index (fuzz/src/lib.rs stream_config): 0 StreamPeer LE, 1 StreamPeer BE, 2 PacketPeerStream
def prefix(framing, n):
    return struct.pack(">I" if framing == 1 else "<I", n)

STREAM_MAX = 8192  # the stream targets' -max_len in scripts/fuzz.sh
for path, tag, dialect in [
    ("godot3/godot3.2.jsonl", "g32", 1),
    ("godot3/godot3.6.jsonl", "g36", 1),
    ("godot4/godot4.6.jsonl", "g46", 2),
]:
    rows = [json.loads(line) for line in open(os.path.join(fixtures, path))]
    streams = {f: bytearray() for f in range(3)}
    for i, row in enumerate(rows):
        value = bytes.fromhex(row["hex"])
        name = f"{tag}-{row['name']}"
        objects = bool(row["objects"])
        write("decode", name, bytes([dialect | (8 if objects else 0)]) + value)
        write("decode_struct", name, value)
        framing = i % 3
        sel = framing | dialect << 2 | (16 if objects else 0)
        frame = prefix(framing, len(value)) + value
        write("var_reader", name, bytes([sel]) + frame)
        # Most codec seeds arrive in one chunk; every fourth in pieces of 1 and 7 bytes.
        chunks = bytes([2, 1, 7]) if i % 4 == 3 else bytes([0])
        write("codec", name, bytes([sel]) + chunks + frame)
        for f in range(3):
            if len(streams[f]) + len(frame) + 2 <= STREAM_MAX:
                streams[f] += prefix(f, len(value)) + value
    for f, stream in streams.items():
        sel = f | dialect << 2 | 16
        write("var_reader", f"{tag}-stream-framing{f}", bytes([sel]) + stream)
        write("codec", f"{tag}-stream-framing{f}", bytes([sel, 0]) + stream)
PY

python3 - "$root/multiplayer/tests/fixtures/godot3.6.jsonl" "$seeds/session3" <<'PY'
import json, os, sys

rows = [json.loads(line) for line in open(sys.argv[1])]
packets = [bytes.fromhex(r["hex"]) for r in rows if r.get("packet") == "c2s"]
packets = [p for p in packets if len(p) <= 255]

def rec(op, p=b""):
    return bytes([op, len(p)]) + p

def write(name, data):
    with open(os.path.join(sys.argv[2], name), "wb") as f:
        f.write(data)

# As client 2; as client 3 once it is Game's network master; with server calls, a
# disconnect and a reconnect between.
write("engine-client", b"".join(rec(0, p) for p in packets[:24]))
write("master-moved", rec(0xC1) + b"".join(rec(1, p) for p in packets[:24]))
first = b"".join(rec(2, p) for p in packets[:8])
write("server-calls", rec(0xE0) + first + rec(0xF2) + rec(0xF6) + first)
PY

cargo run -q --manifest-path "$fuzz/Cargo.toml" --example struct_seeds -- "$seeds/decode_struct"

for t in decode decode_struct var_reader codec session3; do
  printf '%-14s %4d seeds %8d bytes\n' "$t" "$(ls "$seeds/$t" | wc -l)" "$(cat "$seeds/$t"/* | wc -c)"
done
