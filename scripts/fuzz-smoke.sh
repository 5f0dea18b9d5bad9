#!/usr/bin/env bash
# CI's fuzz smoke test: 30 seconds per fuzz target (scripts/fuzz.sh). cargo-fuzz needs
# a nightly toolchain; without one this is skipped (exit 0) and says so.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz smoke skipped: no nightly toolchain"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
exec "$root/scripts/fuzz.sh" 30
