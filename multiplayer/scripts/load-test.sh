#!/usr/bin/env bash
# The multiplayer load test: the crate's server (multiplayer/examples/load_server.rs)
# and a Godot 4 headless server running the same logic in GDScript
# (multiplayer/tests/oracle/load_server4.gd), each driven by the same load generator
# (multiplayer/examples/loadgen.rs) on loopback: N clients, each sending 10 RPCs a
# second that the server forwards to 10 neighbours, over WebSocket and over ENet.
# Prints one Markdown table row per run: latency of the forwarded call (send to
# arrival), messages lost, the server's CPU (share of one core) and memory, and the
# load generator's own CPU (near a full core, its own delays count in the latency).
#
#   multiplayer/scripts/load-test.sh        (from any directory)
#
# Environment: LOAD_CLIENTS (default "100 300 600 1000"), LOAD_SECONDS (measured
# span, default 8), LOAD_SERVERS ("rust godot4"), LOAD_TRANSPORTS ("ws enet"),
# GODOT_BIN (engines, default .godot-oracles/bin), LOAD_PIN (default 1: with two
# CPUs or more and `taskset`, either server runs on CPU 0 and the load generator on
# the others, so that the generator's threads do not take the server's core from it
# mid-run, as they do unpinned once the two together need the whole machine; 0: not
# pinned). The load generator runs on the same machine, so at high counts it
# saturates its CPUs.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${GODOT_BIN:-.godot-oracles/bin}
clients=${LOAD_CLIENTS:-100 300 600 1000}
seconds=${LOAD_SECONDS:-8}
cargo build --release -q -p godot-bin-multiplayer --features websocket,enet \
    --example load_server --example loadgen
target=${CARGO_TARGET_DIR:-target}/release/examples
tmp=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
pin_server=()
pin_loadgen=()
cpus=$(nproc)
if [ "${LOAD_PIN:-1}" = 1 ] && [ "$cpus" -ge 2 ] && command -v taskset >/dev/null; then
  pin_server=(taskset -c 0)
  pin_loadgen=(taskset -c "1-$((cpus - 1))")
fi
printf 'config_version=5\n' > "$tmp/project.godot"
cp multiplayer/tests/oracle/load_server4.gd "$tmp/s.gd"
tck=$(getconf CLK_TCK)
port=9400
echo "| server | transport | clients | p50 ms | p99 ms | max ms | lost | server CPU (cores) | CPU µs per client-second | RSS KiB per client | load generator CPU (cores) |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for transport in ${LOAD_TRANSPORTS:-ws enet}; do
  for who in ${LOAD_SERVERS:-rust godot4}; do
    for n in $clients; do
      port=$((port + 1))
      life=$((seconds + 30 + n / 50))
      if [ "$who" = rust ]; then
        "${pin_server[@]}" "$target/load_server" --transport "$transport" --port "$port" --seconds "$life" > "$tmp/server.log" 2>&1 &
      else
        (cd "$tmp" && PORT=$port TRANSPORT=$transport SECONDS=$life exec timeout "$((life + 10))" \
            "${pin_server[@]}" "$OLDPWD/$bin/godot4" --headless --no-header --path . -s s.gd > "$tmp/server.log" 2>&1) &
      fi
      server=$!
      for _ in $(seq 50); do grep -q listening "$tmp/server.log" 2>/dev/null && break; sleep 0.2; done
      # The engine runs under `timeout` and a wrapper: measure the engine itself
      # (the newest process running the script).
      pid=$server
      if [ "$who" = godot4 ]; then pid=$(pgrep -n -f -- "--path . -s s.gd"); fi
      json=$("${pin_loadgen[@]}" "$target/loadgen" --transport "$transport" --port "$port" --clients "$n" \
          --seconds "$seconds" --pid "$pid" --clk-tck "$tck")
      kill "$server" 2>/dev/null || true
      pkill -P "$server" 2>/dev/null || true
      wait "$server" 2>/dev/null || true
      server=
      python3 - "$who" "$json" "$seconds" <<'PY'
import json, sys
who, j, secs = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
n = max(j["connected"], 1)
lost = j["expected"] - j["received"]
cpu = j["server_cpu_s"] / secs
short = "" if j["connected"] == j["clients"] else f" ({j['connected']} joined)"
print(f"| {who} | {j['transport']} | {j['clients']}{short} | {j['p50_us']/1000:.1f} | {j['p99_us']/1000:.1f} "
      f"| {j['max_us']/1000:.1f} | {lost} of {j['expected']} | {cpu:.2f} | {cpu*1e6/n:.0f} | {j['server_rss_kib']/n:.0f} "
      f"| {j['loadgen_cpu_s']/secs:.2f} |")
PY
      sleep 1
    done
  done
done
