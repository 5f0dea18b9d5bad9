#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ one after another.
#
#   scripts/fuzz.sh SECONDS [TARGET...]     (from any directory)
#
# Builds every target (`cargo +nightly fuzz build`: release, debug assertions, ASan),
# then runs each named target (default: all) for SECONDS on fuzz/corpus/<target>,
# which starts as a copy of the committed seeds fuzz/seeds/<target>/ and keeps what
# the fuzzer adds (git-ignored). Prints executions, exec/s and new crash artifacts per
# target; a crashing target leaves its input in fuzz/artifacts/<target>/ and makes the
# script exit 1. Full logs: fuzz/target/fuzz-logs/.
#
# Environment: FUZZ_BUILD_FLAGS (extra `cargo fuzz build/run` flags, e.g. "-s none");
# FUZZ_ALLOW_REENCODE (fuzz/src/lib.rs) only to get a long campaign past a finding
# already recorded, never in CI.
set -euo pipefail

usage() { echo "usage: $0 SECONDS [TARGET...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
secs=$1; shift
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || usage

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
all=(decode decode_struct var_reader codec text dissect raw scene4 session session3 scene3 enet)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [ -f "fuzz/fuzz_targets/$t.rs" ] || { echo "unknown target: $t (have: ${all[*]})" >&2; exit 2; }
done

# Longest input per target: one value for the decoders, a few frames for the streams.
max_len() { case $1 in var_reader | codec) echo 8192 ;; *) echo 4096 ;; esac; }

read -r -a flags <<<"${FUZZ_BUILD_FLAGS:-}"
echo "== cargo +nightly fuzz build ${flags[*]}"
cargo +nightly fuzz build "${flags[@]}"

logs=fuzz/target/fuzz-logs
mkdir -p "$logs"
count_crashes() { find "fuzz/artifacts/$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) 2>/dev/null | sort; }

summary=()
failed=0
for t in "${targets[@]}"; do
  corpus=fuzz/corpus/$t
  mkdir -p "$corpus" "fuzz/artifacts/$t"
  # Seeds the corpus; files the fuzzer already has are left alone.
  for f in fuzz/seeds/"$t"/*; do
    [ -e "$f" ] || continue
    [ -e "$corpus/${f##*/}" ] || cp "$f" "$corpus/"
  done
  before=$(count_crashes "$t")
  log=$logs/$t-$(date +%Y%m%d-%H%M%S).log
  echo "== $t: ${secs}s, corpus $corpus ($(ls "$corpus" | wc -l) files), log $log"
  start=$SECONDS
  status=0
  cargo +nightly fuzz run "${flags[@]}" "$t" "$corpus" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
    -timeout=30 -print_final_stats=1 >"$log" 2>&1 || status=$?
  elapsed=$((SECONDS - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
  new=$(comm -13 <(echo "$before") <(count_crashes "$t") | sed '/^$/d')
  ncrash=$(printf '%s' "$new" | grep -c . || true)
  line=$(printf '%-14s executions %12s  exec/s %7s  seconds %6s  new crashes %s' \
    "$t" "${execs:-?}" "${rate:-?}" "$elapsed" "$ncrash")
  echo "$line"
  if [ "$ncrash" -gt 0 ] || [ "$status" -ne 0 ]; then
    failed=1
    [ -n "$new" ] && printf '   artifact: %s\n' $new
    [ "$status" -ne 0 ] && echo "   cargo fuzz run exited $status; end of $log:" && tail -n 40 "$log" | cut -c1-300 | sed 's/^/   | /'
  fi
  summary+=("$line")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
