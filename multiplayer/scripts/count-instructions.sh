#!/usr/bin/env bash
# Instructions per RPC operation (multiplayer/benches/instructions.rs) under
# callgrind: a `Session` sending a call, receiving one to an `Event::Call` (its
# arguments read into the handler's types, and as `Variant`s) and in place into
# the handler's types, and the packet codec alone, for the `move`, `chat`
# and `state` cases of benches/rpc.rs; and a Godot 3 server receiving them. Each
# figure is (count of N=2000 runs - count of N=1000 runs) / 1000, so setup is taken
# off. Unlike timings on this machine, these do not move from run to run.
#
#   multiplayer/scripts/count-instructions.sh    (from any directory; needs valgrind:
#                                                 apt-get install -y valgrind)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install -y valgrind)" >&2; exit 1; }
bin=$(cargo bench -p godot-bin-multiplayer --bench instructions --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*instructions[^"]*\)".*/\1/p' | tail -n1)
[ -x "$bin" ] || { echo "could not build multiplayer/benches/instructions.rs" >&2; exit 1; }

count() { # MODE N -> instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
    sed -n 's/.*refs: *//p' | tr -d ,
}
per_run() { echo $((($(count "$1" 2000) - $(count "$1" 1000)) / 1000)); }

echo "| operation | move | chat | state |"
echo "|---|--:|--:|--:|"
row() { # LABEL OP CASES...
  local label=$1 op=$2; shift 2
  local cells=()
  for case in move chat state; do
    if [[ " $* " == *" $case "* ]]; then cells+=("$(per_run "$op/$case")"); else cells+=(""); fi
  done
  echo "| $label | ${cells[0]} | ${cells[1]} | ${cells[2]} |"
}
row "send: \`Session::rpc\` to a \`Transmit\`" send move chat state
row "receive to an \`Event::Call\`, then \`Call::args\`" receive move chat state
row "receive to an \`Event::Call\`, then \`Arguments::into_variants\`" receive_variants move chat state
row "receive in place (\`receive_call\`, \`Args::get\`)" in_place move chat state
row "receive in place, text borrowed" borrowed chat
row "codec: \`Packet::encode_into\`" encode move chat state
row "codec: \`Packet::decode\`" decode move chat state
row "codec: \`CallRef::decode\`, \`Args::get\`" decode_in_place move
row "Godot 3: receive to an \`Event::Call\`, then \`Call::args\`" receive3 move chat state
row "Godot 3: receive in place (\`receive_call3\`, \`Args::get\`)" in_place3 move chat state
