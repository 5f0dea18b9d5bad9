#!/usr/bin/env bash
# Installs the real Godot engines the tests compare against, headless, on Debian
# bookworm x86_64 (run as root):
#   DIR/bin/godot3.2  Godot 3.2.3, Debian bookworm's godot3-server (apt-get install)
#   DIR/bin/godot3.6  Godot 3.6,   Debian trixie's godot3-server, unpacked privately
#   DIR/bin/godot4    Godot 4.6,   Debian sid's godot, unpacked privately
# The private engines run from their own root with their own dynamic loader, so
# nothing of trixie or sid touches the system. Usage: setup-godot.sh [DIR]
# (default ./.godot-oracles). Engines that already work are kept. Prints DIR/bin last.
set -euo pipefail

DIR=${1:-./.godot-oracles}
mkdir -p "$DIR/bin" "$DIR/home"
DIR=$(cd "$DIR" && pwd)
MIRROR=${GODOT_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
export DEBIAN_FRONTEND=noninteractive

say() { echo "[setup-godot] $*" >&2; }

# smoke BIN KIND: the engine runs a script and var2bytes(1) is right.
smoke() {
  local bin=$1 kind=$2 p out
  p=$(mktemp -d)
  if [ "$kind" = 4 ]; then
    echo 'config_version=5' > "$p/project.godot"
    printf 'extends SceneTree\nfunc _init():\n\tprint("SMOKE ", var_to_bytes(1).hex_encode())\n\tquit()\n' > "$p/s.gd"
  else
    printf 'config_version=4\n[logging]\nfile_logging/enable_file_logging=false\nfile_logging/enable_file_logging.pc=false\n' > "$p/project.godot"
    printf 'extends SceneTree\nfunc _init():\n\tvar s = ""\n\tfor b in var2bytes(1):\n\t\ts += "%%02x" %% b\n\tprint("SMOKE ", s)\n\tquit()\n' > "$p/s.gd"
  fi
  out=$(timeout 120 "$bin" --path "$p" -s s.gd 2>&1 || true)
  rm -rf "$p"
  grep -qx 'SMOKE 0200000001000000' <<< "$out" || { say "smoke test of $bin failed:"; tail -n 20 <<< "$out" >&2; return 1; }
}

# The wrapper keeps the engines' user data in DIR/home and sets a locale Godot 3 likes.
wrapper_env() {
  cat <<'EOF'
D=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0")")/.." && pwd)
export XDG_DATA_HOME="$D/home/data" XDG_CONFIG_HOME="$D/home/config" XDG_CACHE_HOME="$D/home/cache"
case "${LANG:-C}" in C|C.*|POSIX) export LANG=en_US.UTF-8;; esac
EOF
}

setup_godot32() {
  if [ -x "$DIR/bin/godot3.2" ] && smoke "$DIR/bin/godot3.2" 3 2>/dev/null; then
    say "godot3.2 ready"; return
  fi
  if ! /usr/bin/godot3-server --version 2>/dev/null | grep -q '^3\.2\.3'; then
    say "apt-get install godot3-server (bookworm: Godot 3.2.3)"
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends godot3-server >&2
  fi
  { echo '#!/bin/sh'; wrapper_env; echo 'exec /usr/bin/godot3-server "$@"'; } > "$DIR/bin/godot3.2"
  chmod +x "$DIR/bin/godot3.2"
  smoke "$DIR/bin/godot3.2" 3
  say "godot3.2: $("$DIR/bin/godot3.2" --version | tail -n1)"
}

# private NAME SUITE PACKAGE BINARY KIND: unpack PACKAGE and everything it depends on
# from SUITE into DIR/NAME/root and write a wrapper that starts BINARY with the
# root's own loader and libraries.
private() {
  local name=$1 suite=$2 pkg=$3 binary=$4 kind=$5
  if [ -x "$DIR/bin/$name" ] && smoke "$DIR/bin/$name" "$kind" 2>/dev/null; then
    say "$name ready"; return
  fi
  say "$name: $pkg from Debian $suite"
  local apt="$DIR/.apt-$suite" root="$DIR/$name/root"
  rm -rf "$apt" "$DIR/$name"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" "$apt/prefs" "$apt/debs" "$root"
  : > "$apt/status"
  echo "deb [signed-by=$KEYRING] $MIRROR $suite main" > "$apt/sources.list"
  # A configuration of its own: the host's sources, hooks and package state stay out.
  # The archive may be a frozen snapshot, so expired Release files are accepted
  # (signatures are still checked).
  cat > "$apt/apt.conf" <<EOF
Dir::Etc::Main "/dev/null";
Dir::Etc::Parts "$apt/parts";
Dir::Etc::SourceList "$apt/sources.list";
Dir::Etc::SourceParts "/dev/null";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$apt/prefs";
Dir::State "$apt";
Dir::State::Lists "$apt/lists";
Dir::State::status "$apt/status";
Dir::Cache "$apt";
Dir::Cache::archives "$apt/archives";
Dir::Cache::pkgcache "$apt/pkgcache.bin";
Dir::Cache::srcpkgcache "$apt/srcpkgcache.bin";
Dir::Log "$apt";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::Retries "3";
Acquire::Check-Valid-Until "false";
Acquire::Check-Date "false";
EOF
  export APT_CONFIG="$apt/apt.conf"
  apt-get -q update >&2
  local pkgs
  pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$pkg" | grep -v '^[ <]' | sort -u)
  (cd "$apt/debs" && apt-get -q download $pkgs >&2)
  for deb in "$apt"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
  unset APT_CONFIG
  # Absolute symlinks would point into the host: make them relative, inside the root.
  find "$root" -type l -lname '/*' | while IFS= read -r link; do
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$(readlink "$link")")" "$link"
  done
  local loader
  loader=$(find "$root/usr/lib/x86_64-linux-gnu" "$root/lib/x86_64-linux-gnu" -maxdepth 1 -type f \
    -name 'ld-linux-x86-64.so.2' 2>/dev/null | head -n1 || true)
  [ -n "$loader" ] || { say "no loader in $root"; return 1; }
  # Every folder holding shared libraries, as paths relative to the root.
  local libdirs
  libdirs=$(find "$root" -name '*.so*' \( -type f -o -type l \) -printf '%h\n' | sort -u \
    | sed "s|^$root/||" | paste -sd: -)
  {
    echo '#!/bin/sh'
    wrapper_env
    echo "R=\"\$D/$name/root\""
    echo "LP=\$(printf '%s' '$libdirs' | tr ':' '\\n' | sed \"s|^|\$R/|\" | paste -sd: -)"
    echo 'unset LD_PRELOAD'
    if [ "$kind" = 4 ]; then
      # Godot 4 needs a display unless it runs headless.
      echo 'if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then set -- --headless "$@"; fi'
    fi
    echo "exec \"\$R/${loader#"$root/"}\" --inhibit-cache --library-path \"\$LP\" \"\$R/$binary\" \"\$@\""
  } > "$DIR/bin/$name"
  chmod +x "$DIR/bin/$name"
  rm -rf "$apt"
  smoke "$DIR/bin/$name" "$kind"
  say "$name: $("$DIR/bin/$name" --version 2>/dev/null | tail -n1)"
}

[ "$(uname -m)" = x86_64 ] || { say "x86_64 only"; exit 1; }
[ -r "$KEYRING" ] || apt-get install -y -q debian-archive-keyring >&2
for tool in dpkg-deb apt-get realpath; do command -v "$tool" >/dev/null || { say "missing $tool"; exit 1; }; done

ONLY=${GODOT_ONLY:-"godot3.2 godot3.6 godot4"}
for engine in $ONLY; do
  case "$engine" in
    godot3.2) setup_godot32 ;;
    godot3.6) private godot3.6 trixie godot3-server usr/bin/godot3-server 3 ;;
    godot4) private godot4 sid godot usr/bin/godot 4 ;;
    *) say "unknown engine $engine"; exit 1 ;;
  esac
done
echo "$DIR/bin"
