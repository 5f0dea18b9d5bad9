#!/usr/bin/env bash
# Builds each of the workspace's packages with the oldest Rust it declares
# (`rust-version` in its Cargo.toml), as a user on that toolchain would: dependencies
# resolved by Cargo's MSRV-aware resolver (the newest release of each that supports
# the oldest Rust of the workspace), not from the committed Cargo.lock, whose newest
# releases need a newer Rust.
#
#   scripts/check-msrv.sh [PACKAGE...]   (default: every package; needs rustup, and
#                                          installs the toolchains it lacks)
#
# Works on a copy of HEAD in a temporary directory; the repository is not touched.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
declare -A manifest=([godot_bin]=Cargo.toml [godot-bin-multiplayer]=multiplayer/Cargo.toml
  [godot-bin-cli]=cli/Cargo.toml)
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(godot_bin godot-bin-multiplayer godot-bin-cli)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$root" archive HEAD | tar -x -C "$work"
cd "$work"
rm -f Cargo.lock
# The stable Cargo resolves (older ones have no MSRV-aware resolver) for the workspace's
# oldest `rust-version`; each package then builds with its own.
CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo +stable generate-lockfile --quiet
for p in "${packages[@]}"; do
  [ -n "${manifest[$p]:-}" ] || { echo "unknown package: $p" >&2; exit 2; }
  msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "${manifest[$p]}")
  rustup toolchain list | grep -q "^$msrv-" || rustup toolchain install "$msrv" --profile minimal
  echo "== $p with Rust $msrv"
  CARGO_TARGET_DIR="$work/target" cargo "+$msrv" build --quiet --package "$p" --all-features
done
echo "ok: ${packages[*]} build with the Rust they declare"
