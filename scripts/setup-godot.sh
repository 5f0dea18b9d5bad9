#!/usr/bin/env bash
# setup-godot.sh [DIR] - install the real Godot engines that the tests compare against.
#
#   DIR/bin/godot3.2   Godot 3.2.3  Debian bookworm's godot3-server, installed with apt
#   DIR/bin/godot3.6   Godot 3.6    Debian trixie's godot3-server, in DIR/godot3.6/root
#   DIR/bin/godot4     Godot 4.6.x  Debian sid's godot, in DIR/godot4/root, always headless
#
# Target: Debian bookworm x86_64, run as root (CI). trixie and sid need a newer glibc
# than bookworm has, so those two engines never touch the system: a private apt
# configuration under DIR (the host's /etc/apt is neither used nor changed) downloads
# the engine and the libraries it maps, dpkg-deb unpacks them into a private root, and
# a wrapper starts the engine through that root's own ld.so with --inhibit-cache and
# an explicit --library-path. A known, small library set is tried first; if anything is
# unresolved or a host library still gets loaded, the whole Depends closure is used.
# Without root (and without bookworm's godot3-server installed) Godot 3.2.3 is unpacked
# the same way from bookworm.
#
# DIR defaults to <repo>/.godot-oracles (git-ignored). Engines that already run are
# kept, so re-running is cheap. The last line printed is DIR/bin.
#
# Environment: GODOT_SETUP_ONLY="godot4 godot3.6" (subset), GODOT_SETUP_FORCE=1 (rebuild),
# GODOT_SETUP_FULL=1 (skip the small library set), GODOT32_PRIVATE=1 (3.2.3 in a private
# root even as root), GODOT_SETUP_MIRROR=URL,
# GODOT36_VERSION=3.6+ds-2, GODOT4_VERSION=4.6.3+ds-3 (pins; "any" = archive candidate).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$REPO/.godot-oracles}
MIRROR=${GODOT_SETUP_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PIN36=${GODOT36_VERSION:-3.6+ds-2}
PIN4=${GODOT4_VERSION:-4.6.3+ds-3}
ONLY=${GODOT_SETUP_ONLY:-godot3.2 godot3.6 godot4}

# Libraries each engine maps at run time (ld.so --list plus LD_DEBUG=files), by package.
# Only a first try: a rename in the archive makes the script fall back to the closure.
LIBS_SID="libasound2t64 libasyncns0 libatomic1 libbrotli1 libbz2-1.0 libc6 libcairo2
  libdbus-1-3 libdecor-0-0 libdrm2 libembree4-4 libenet7 libexpat1 libffi8 libflac14
  libfontconfig1 libfreetype6 libfribidi0 libgbm1 libgcc-s1 libglib2.0-0t64
  libgraphite2-3 libharfbuzz-icu0 libharfbuzz0b libicu78 libjsoncpp26 libmbedcrypto16
  libmbedtls21 libmbedx509-7 libminiupnpc21 libmp3lame0 libmpg123-0t64 libogg0
  libopenxr-loader1 libopus0 libpcre2-32-0 libpcre2-8-0 libpixman-1-0 libpng16-16t64
  libpulse0 librecast1debian0 libsdl3-0 libsharpyuv0 libsndfile1 libspeechd2 libstdc++6
  libsystemd0 libtbb12 libtbbmalloc2 libtheoradec2 libtheoraenc2 libturbojpeg0 libudev1
  libvorbis0a libvorbisenc2 libwayland-client0 libwayland-cursor0 libwayland-egl1
  libwebp7 libwslay1 libx11-6 libx11-xcb1 libxau6 libxcb-render0 libxcb-shm0 libxcb1
  libxcursor1 libxdmcp6 libxext6 libxfixes3 libxi6 libxinerama1 libxkbcommon0
  libxrandr2 libxrender1 libxss1 libxtst6 libzstd1 zlib1g"
LIBS_TRIXIE="libbrotli1 libbullet3.24t64 libbz2-1.0 libc6 libcairo2 libenet7 libexpat1
  libfontconfig1 libfreetype6 libgcc-s1 libgomp1 libminiupnpc18 libogg0 libopus0
  libpcre2-32-0 libpixman-1-0 libpng16-16t64 librecast1 libsharpyuv0 libsquish0
  libstdc++6 libtheoradec1 libvorbis0a libvpx9 libwebp7 libwslay1 libx11-6 libxau6
  libxcb-render0 libxcb-shm0 libxcb1 libxdmcp6 libxext6 libxrender1 libzstd1 zlib1g"
LIBS_BOOKWORM="libbrotli1 libbsd0 libc6 libcairo2 libenet7 libexpat1 libfontconfig1
  libfreetype6 libgcc-s1 libgomp1 libmd0 libogg0 libopus0 libpcre2-32-0 libpixman-1-0
  libpng16-16 libsquish0 libstdc++6 libtheora0 libvorbis0a libvpx7 libwebp7 libx11-6
  libxau6 libxcb-render0 libxcb-shm0 libxcb1 libxdmcp6 libxext6 libxrender1 zlib1g"

say() { echo "[setup-godot] $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "only x86_64 is supported"
for tool in apt-get apt-cache dpkg-deb flock timeout realpath; do
  command -v "$tool" >/dev/null || die "missing $tool"
done
mkdir -p "$DIR/bin" "$DIR/home" "$DIR/.work"
DIR=$(cd "$DIR" && pwd)
exec 8>"$DIR/.lock"
flock -w 1200 8 || die "another setup is running on $DIR"

# ---------------------------------------------------------------------------------------
# version_of BINARY: what `BINARY --version` prints last (3.2.3 exits with 255 there)
version_of() { { timeout 60 "$1" --version 2>/dev/null || true; } | tail -n1; }

# smoke WRAPPER KIND VERSION_PREFIX: the engine has the expected version, runs a script
# and var2bytes(1) / var_to_bytes(1) gives the right bytes.
smoke() {
  local bin=$1 kind=$2 want=$3 tmp out
  [ -x "$bin" ] || return 1
  out=$(version_of "$bin")
  case "$out" in "$want"*) ;; *) say "$bin is '$out', wanted $want*"; return 1 ;; esac
  tmp=$(mktemp -d "$DIR/.work/smoke.XXXXXX")
  if [ "$kind" = 4 ]; then
    echo 'config_version=5' >"$tmp/project.godot"
    printf 'extends SceneTree\nfunc _init():\n\tprint("SMOKE ", var_to_bytes(1).hex_encode())\n\tquit()\n' >"$tmp/s.gd"
  else
    printf 'config_version=4\n[logging]\nfile_logging/enable_file_logging=false\nfile_logging/enable_file_logging.pc=false\n' >"$tmp/project.godot"
    printf 'extends SceneTree\nfunc _init():\n\tvar h = ""\n\tfor b in var2bytes(1):\n\t\th += "%%02x" %% b\n\tprint("SMOKE ", h)\n\tquit()\n' >"$tmp/s.gd"
  fi
  out=$(timeout 120 "$bin" --path "$tmp" -s s.gd 2>&1) || true
  rm -rf "$tmp"
  grep -qx 'SMOKE 0200000001000000' <<<"$out" && return 0
  say "smoke test of $bin failed:"; tail -n 15 <<<"$out" >&2
  return 1
}

# Lines every wrapper starts with: find DIR from the wrapper's own location (so DIR can
# be moved) and keep the engines' user data and caches inside DIR/home.
wrapper_head() {
  cat <<'EOF'
#!/bin/sh
# Written by scripts/setup-godot.sh.
top=$(dirname "$(dirname "$(readlink -f "$0")")")
export XDG_DATA_HOME="$top/home/data" XDG_CONFIG_HOME="$top/home/config" XDG_CACHE_HOME="$top/home/cache"
unset LD_PRELOAD
EOF
}
# Godot 3 complains about the C locale on every start.
# shellcheck disable=SC2016 # expanded by the wrapper, not here
WRAP_LOCALE='case "${LANG:-C}" in C | C.* | POSIX) export LANG=en_US.UTF-8 ;; esac'
# Godot 4 cannot start without a display unless it is headless; add --headless unless
# the arguments (before a "--") already have it.
# shellcheck disable=SC2016 # expanded by the wrapper, not here
WRAP_HEADLESS='h=; for a in "$@"; do case "$a" in --headless) h=1 ;; --) break ;; esac; done
[ -n "$h" ] || set -- --headless "$@"'

# ------------------------------------------------------------------ private roots ------
# apt_setup WORK SUITE: a private apt configuration in WORK for one Debian suite.
apt_setup() {
  local w=$1 suite=$2
  mkdir -p "$w/lists/partial" "$w/archives/partial" "$w/parts" "$w/prefs" "$w/debs"
  : >"$w/status"
  echo "deb [signed-by=$KEYRING] $MIRROR $suite main" >"$w/sources.list"
  # Dir::Etc::Parts keeps the host's apt.conf.d (hooks, docker-clean, pkgcache "") out;
  # snapshots of the archive may carry an expired Valid-Until (signatures still count).
  cat >"$w/apt.conf" <<EOF
Dir::Etc::Main "/dev/null";
Dir::Etc::Parts "$w/parts";
Dir::Etc::SourceList "$w/sources.list";
Dir::Etc::SourceParts "/dev/null";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$w/prefs";
Dir::State "$w";
Dir::State::Lists "$w/lists";
Dir::State::status "$w/status";
Dir::Cache "$w";
Dir::Cache::Archives "$w/archives";
Dir::Cache::pkgcache "pkgcache.bin";
Dir::Cache::srcpkgcache "srcpkgcache.bin";
Dir::Log "$w";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::Retries "3";
Acquire::Check-Valid-Until "false";
Acquire::Check-Date "false";
EOF
}

# loader ROOT: the root's own ld.so (a real file, not bookworm's absolute symlink)
loader() {
  local f
  for f in "$1/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$1/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"; do
    if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$f"; return 0; fi
  done
  return 1
}

# libpath ROOT BINARY: print a --library-path (folders inside ROOT) under which ld.so
# resolves every library of BINARY inside ROOT, or fail. Folders are added for sonames
# found elsewhere in ROOT (libpulse's RUNPATH names /usr/lib/x86_64-linux-gnu/pulseaudio,
# which ld.so would look up on the host).
libpath() {
  local root=$1 bin=$2 ld lp="" d out missing found _
  ld=$(loader "$root") || { say "no ld.so in $root"; return 1; }
  for d in usr/lib/x86_64-linux-gnu lib/x86_64-linux-gnu; do
    [ -d "$root/$d" ] && lp=${lp:+$lp:}$root/$d
  done
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    out=$("$ld" --inhibit-cache --library-path "$lp" --list "$root/$bin" 2>&1) || true
    missing=$(awk -v r="$root/" '
      /error while loading shared libraries/ { sub(/.*libraries: /, ""); sub(/:.*/, ""); print; exit }
      $2 == "=>" && $3 == "not" { print $1; exit }
      $2 == "=>" && $3 ~ /^\// && index($3, r) != 1 { print $1; exit }' <<<"$out")
    if [ -z "$missing" ]; then
      grep -q "=> $root/" <<<"$out" || { say "ld.so --list: $out"; return 1; }
      echo "$lp"; return 0
    fi
    found=$(find "$root" -name "${missing##*/}" \( -type f -o -type l \) -print -quit)
    [ -n "$found" ] || { say "$bin needs ${missing##*/}, which is not in the root"; return 1; }
    case ":$lp:" in *":$(dirname "$found"):"*) say "cannot resolve $missing"; return 1 ;; esac
    lp="$lp:$(dirname "$found")"
  done
  return 1
}

# no_leak ROOT LIBPATH BINARY KIND: run an empty script under LD_DEBUG=files and fail if
# the engine process initialises any shared object from outside ROOT (libraries that
# are dlopen()ed at run time are not visible to ld.so --list).
no_leak() {
  local root=$1 lp=$2 bin=$3 kind=$4 t f bad=0 extra=()
  t=$(mktemp -d "$DIR/.work/leak.XXXXXX")
  if [ "$kind" = 4 ]; then echo 'config_version=5' >"$t/project.godot"; extra=(--headless)
  else echo 'config_version=4' >"$t/project.godot"; fi
  printf 'extends SceneTree\nfunc _init():\n\tquit()\n' >"$t/s.gd"
  HOME=$t XDG_DATA_HOME=$t/x XDG_CONFIG_HOME=$t/x XDG_CACHE_HOME=$t/x LD_DEBUG=files LD_DEBUG_OUTPUT=$t/ld \
    timeout 120 "$(loader "$root")" --inhibit-cache --library-path "$lp" "$root/$bin" \
    "${extra[@]}" --path "$t" -s s.gd >/dev/null 2>&1 || true
  for f in "$t"/ld.*; do
    [ -e "$f" ] || continue
    # only the engine itself: a child like `sh -c xdg-user-dir` rightly uses the host
    grep -q "calling init: $root/" "$f" || continue
    if grep 'calling init: /' "$f" | grep -v "calling init: $root/" >&2; then bad=1; fi
  done
  rm -rf "$t"
  [ "$bad" = 0 ] || say "host libraries were loaded (above)"
  return "$bad"
}

# private_engine NAME SUITE PACKAGE PIN BINARY KIND VERSION_PREFIX LIBS
private_engine() {
  local name=$1 suite=$2 pkg=$3 pin=$4 bin=$5 kind=$6 want=$7 libs=$8
  local w="$DIR/.work/$name" root="$DIR/.work/$name/root" ver lp="" ld mode t0=$SECONDS
  if [ -z "${GODOT_SETUP_FORCE:-}" ] && smoke "$DIR/bin/$name" "$kind" "$want" 2>/dev/null; then
    say "$name: already works"; return 0
  fi
  say "$name: $pkg from Debian $suite, unpacked into $DIR/$name/root"
  rm -rf "$w"; mkdir -p "$w"
  apt_setup "$w" "$suite"
  export APT_CONFIG="$w/apt.conf"
  apt-get -q update >"$w/update.log" 2>&1 || { cat "$w/update.log" >&2; die "$name: apt-get update ($suite) failed"; }

  ver=$(apt-cache policy "$pkg" | awk '$1 == "Candidate:" { print $2 }')
  case "$ver" in "" | "(none)") die "$name: no $pkg in $suite" ;; esac
  if [ "$pin" != any ] && [ "$pin" != "$ver" ]; then
    if apt-cache show "$pkg=$pin" >/dev/null 2>&1; then ver=$pin
    else say "WARNING: $pkg $pin is gone from $suite, taking $ver"; fi
  fi
  case "$ver" in "$want"*) ;; *) say "WARNING: $pkg $ver may not be Godot $want" ;; esac

  # fetch_unpack PACKAGES...: download into w/debs and unpack everything there
  fetch_unpack() {
    (cd "$w/debs" && apt-get -q download "$@") >>"$w/download.log" 2>&1 || return 1
    rm -rf "$root"; mkdir -p "$root"
    local deb link
    for deb in "$w"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
    # absolute symlinks (bookworm's /lib64/ld-linux-x86-64.so.2 ...) would lead out of
    # the root into the host: point them at the same path inside the root instead
    find "$root" -type l -lname '/*' | while IFS= read -r link; do
      ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$(readlink "$link")")" "$link"
    done
  }
  closure() {
    apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
      --no-replaces --no-enhances "$pkg=$ver" | grep -v '^[ <]' | sort -u
  }

  mode=small
  [ -z "${GODOT_SETUP_FULL:-}" ] || mode=full
  if [ "$mode" = small ]; then
    # shellcheck disable=SC2086 # one word per package
    if ! fetch_unpack "$pkg=$ver" $libs; then
      tail -n 3 "$w/download.log" >&2; mode=full
    elif ! lp=$(libpath "$root" "$bin") || ! no_leak "$root" "$lp" "$bin" "$kind"; then
      mode=full
    fi
    [ "$mode" = small ] || say "WARNING: $name: the known library set is not enough, using the whole Depends closure"
  fi
  if [ "$mode" = full ]; then
    # shellcheck disable=SC2046 # one word per package
    fetch_unpack $(closure | grep -vx "$pkg") "$pkg=$ver" || { cat "$w/download.log" >&2; die "$name: download failed"; }
    lp=$(libpath "$root" "$bin") || die "$name: libraries unresolved even with the whole closure"
    no_leak "$root" "$lp" "$bin" "$kind" || say "WARNING: $name: host libraries are loaded"
  fi
  unset APT_CONFIG

  # move the root into place and write the wrapper (paths relative to DIR)
  (cd "$w/debs" && for deb in *.deb; do dpkg-deb -f "$deb" Package Version | paste -sd' ' | sed 's/^Package: //; s/ Version: / /'; done) \
    | sort >"$w/packages.txt"
  rm -rf "${DIR:?}/$name"; mkdir -p "$DIR/$name"
  mv "$root" "$DIR/$name/root"; mv "$w/packages.txt" "$DIR/$name/packages.txt"
  lp=$(tr ':' '\n' <<<"$lp" | sed "s|^$root/|\$R/|" | paste -sd:)
  ld=$(loader "$DIR/$name/root")
  {
    wrapper_head
    echo "# $pkg $ver from Debian $suite, started by the root's own loader: no host library is used."
    echo "R=\"\$top/$name/root\""
    if [ "$kind" = 4 ]; then echo "$WRAP_HEADLESS"; else echo "$WRAP_LOCALE"; fi
    echo "exec \"\$R/${ld#"$DIR/$name/root/"}\" --inhibit-cache --library-path \"$lp\" \"\$R/$bin\" \"\$@\""
  } >"$DIR/bin/$name.new"
  chmod 755 "$DIR/bin/$name.new"; mv "$DIR/bin/$name.new" "$DIR/bin/$name"
  smoke "$DIR/bin/$name" "$kind" "$want" || die "$name: the installed engine does not work"
  rm -rf "$w"
  say "$name: ready ($pkg $ver, $mode library set, $(wc -l <"$DIR/$name/packages.txt") packages, $((SECONDS - t0)) s)"
}

# ------------------------------------------------------------------ Godot 3.2.3 --------
godot32() {
  if [ -z "${GODOT_SETUP_FORCE:-}" ] && smoke "$DIR/bin/godot3.2" 3 3.2.3 2>/dev/null; then
    say "godot3.2: already works"; return 0
  fi
  if [ -n "${GODOT32_PRIVATE:-}" ] || [[ "$(version_of /usr/bin/godot3-server)" != 3.2.3* ]]; then
    if [ -n "${GODOT32_PRIVATE:-}" ] || [ "$(id -u)" != 0 ]; then
      say "godot3.2: bookworm's godot3-server goes into a private root"
      private_engine godot3.2 bookworm godot3-server any usr/bin/godot3-server 3 3.2.3 "$LIBS_BOOKWORM"
      return
    fi
    say "godot3.2: apt-get install godot3-server"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -q update >&2 || say "WARNING: apt-get update reported errors"
    apt-get install -y -q --no-install-recommends godot3-server >&2 || die "godot3.2: apt-get install failed"
  fi
  if [[ "$(version_of /usr/bin/godot3-server)" != 3.2.3* ]]; then
    say "godot3.2: the system's godot3-server is not 3.2.3 (not bookworm?), using a private bookworm root"
    private_engine godot3.2 bookworm godot3-server any usr/bin/godot3-server 3 3.2.3 "$LIBS_BOOKWORM"
    return
  fi
  { wrapper_head; echo "# Godot 3.2.3: Debian bookworm's godot3-server, installed in the system."
    echo "$WRAP_LOCALE"; echo 'exec /usr/bin/godot3-server "$@"'; } >"$DIR/bin/godot3.2.new"
  chmod 755 "$DIR/bin/godot3.2.new"; mv "$DIR/bin/godot3.2.new" "$DIR/bin/godot3.2"
  smoke "$DIR/bin/godot3.2" 3 3.2.3 || die "godot3.2: /usr/bin/godot3-server does not work"
  say "godot3.2: ready (system godot3-server $(dpkg-query -W -f='${Version}' godot3-server 2>/dev/null))"
}

setup() {
  case "$1" in
    godot3.2) godot32 ;;
    godot3.6) private_engine godot3.6 trixie godot3-server "$PIN36" usr/bin/godot3-server 3 3.6 "$LIBS_TRIXIE" ;;
    godot4) private_engine godot4 sid godot "$PIN4" usr/bin/godot 4 4.6 "$LIBS_SID" ;;
    *) die "unknown engine $1 (known: godot3.2 godot3.6 godot4)" ;;
  esac
}

# The engines are independent (the private ones never touch the system's apt), so they
# are set up side by side.
t0=$SECONDS
pids=()
for e in $ONLY; do
  [ -r "$KEYRING" ] || [ "$e" = godot3.2 ] || die "missing $KEYRING (apt-get install debian-archive-keyring)"
  setup "$e" &
  pids+=("$!")
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
[ "$failed" = 0 ] || die "setup failed (see above)"
rmdir "$DIR/.work" 2>/dev/null || true

for e in godot3.2 godot3.6 godot4; do
  [ -x "$DIR/bin/$e" ] && printf '%-9s %s\n' "$e" "$(version_of "$DIR/bin/$e")"
done >"$DIR/versions.txt" || true
sed 's/^/[setup-godot] /' "$DIR/versions.txt" >&2
say "done in $((SECONDS - t0)) s; $DIR uses $(du -sh "$DIR" 2>/dev/null | cut -f1)"
echo "$DIR/bin"
