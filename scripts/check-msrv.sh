#!/usr/bin/env bash
# Builds the workspace's packages with the oldest Rust they declare (`rust-version`,
# 1.75), as a user on that toolchain would: dependencies resolved by Cargo's
# MSRV-aware resolver (the newest release of each that supports 1.75), not from the
# committed Cargo.lock, whose newest releases need a newer Rust.
#
#   scripts/check-msrv.sh [PACKAGE...]   (default: godot_bin godot-bin-multiplayer
#                                          godot-bin-cli; needs rustup, installs 1.75)
#
# Works on a copy of HEAD in a temporary directory; the repository is not touched.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$root/Cargo.toml")
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(godot_bin godot-bin-multiplayer godot-bin-cli)

rustup toolchain list | grep -q "^$msrv-" || rustup toolchain install "$msrv" --profile minimal
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$root" archive HEAD | tar -x -C "$work"
cd "$work"
rm -f Cargo.lock
# The stable Cargo resolves (1.75's Cargo has no MSRV-aware resolver); 1.75 builds.
CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo +stable generate-lockfile --quiet
for p in "${packages[@]}"; do
  echo "== $p with Rust $msrv"
  CARGO_TARGET_DIR="$work/target" cargo "+$msrv" build --quiet --package "$p" --all-features --lib --bins
done
echo "ok: ${packages[*]} build with Rust $msrv"
