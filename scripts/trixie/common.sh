# shellcheck shell=bash
# Sourced by the scripts/trixie/*.sh steps: where Debian 13 ("trixie") comes from and where its
# trees are cached. Nothing here changes the machine's apt sources: every step uses the mirror
# named by TRIXIE_MIRROR (default: the Debian mirror of this machine's own apt sources) and
# keeps its apt state in its own folder.
#
#   TRIXIE_MIRROR  the Debian archive URL (default: this machine's, else http://deb.debian.org/debian)
#   TRIXIE_CACHE   where chroots and sysroots are kept between runs (default /var/cache/tagrouter as
#                  root, else ~/.cache/tagrouter); each tree's folder name carries a hash of the
#                  package list that made it, so a changed list makes a new tree (remove old ones
#                  by hand: rm -rf "$TRIXIE_CACHE").

trixie_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# The first Debian archive (not -security, not a third party) in this machine's apt sources.
trixie_mirror() {
    if [ -n "${TRIXIE_MIRROR:-}" ]; then echo "$TRIXIE_MIRROR"; return; fi
    local found
    found=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v -- '-security' | head -n1 | tr -d ' ') || true
    echo "${found:-http://deb.debian.org/debian}"
}

trixie_cache() {
    local cache=${TRIXIE_CACHE:-}
    if [ -z "$cache" ]; then
        if [ "$(id -u)" = 0 ]; then cache=/var/cache/tagrouter; else cache=${XDG_CACHE_HOME:-$HOME/.cache}/tagrouter; fi
    fi
    mkdir -p "$cache"
    echo "$cache"
}

# trixie_key NAME PACKAGE... — NAME-<12 hex digits of the hash of the package list>.
trixie_key() {
    local name=$1
    shift
    echo "$name-$(printf '%s\n' "$@" | sha256sum | cut -c1-12)"
}

# trixie_tree NAME MAKE PACKAGE... — the cached tree for this package list: made once, when missing, by
# the function MAKE FOLDER PACKAGE... into FOLDER (a .partial folder moved into place when complete), under
# a lock so that two runs share one tree. Prints the tree's path.
trixie_tree() {
    local name=$1 make=$2
    shift 2
    [ "$(id -u)" = 0 ] || { echo "error: making the $name tree needs root (mmdebstrap, chroot)" >&2; exit 77; }
    trixie_require mmdebstrap mmdebstrap
    local tree
    tree=$(trixie_cache)/$(trixie_key "$name" "$@")
    if [ ! -e "$tree/.complete" ]; then
        exec 9>"$tree.lock"
        flock 9
        if [ ! -e "$tree/.complete" ]; then
            rm -rf "$tree" "$tree.partial"
            echo "Making $tree from $(trixie_mirror)" >&2
            "$make" "$tree.partial" "$@"
            touch "$tree.partial/.complete"
            mv "$tree.partial" "$tree"
        fi
        exec 9>&-
    fi
    echo "$tree"
}

# trixie_mmdebstrap ARCHITECTURES VARIANT FOLDER PACKAGE... — trixie from the mirror into FOLDER.
trixie_mmdebstrap() {
    local architectures=$1 variant=$2 folder=$3
    shift 3
    mmdebstrap --quiet --mode=root --variant="$variant" --architectures="$architectures" \
        --include="$(IFS=,; echo "$*")" \
        trixie "$folder" "deb [signed-by=$trixie_keyring] $(trixie_mirror) trixie main" >&2
}

# until_true SECONDS COMMAND... — polls the state COMMAND checks; the limit only stops a hang.
until_true() {
    local limit=$1 waited=0
    shift
    until "$@"; do
        sleep 0.2
        waited=$((waited + 1))
        [ "$waited" -lt $((limit * 5)) ] || return 1
    done
}

# trixie_require COMMAND PACKAGE — stops with the package to install when a tool is missing.
trixie_require() {
    command -v "$1" >/dev/null || { echo "error: $1 is missing: apt-get install $2 (or scripts/install-deps.sh --trixie)" >&2; exit 1; }
}

# The -dev packages of the product's system-library targets (Package.swift, Sources/C*), as Debian names them.
trixie_dev_packages=(
    libnfc-dev libmosquitto-dev libpcsclite-dev libyaml-dev libssl-dev
    libcurl4-openssl-dev libsystemd-dev libmicrohttpd-dev
)

# The libraries the product links (readelf -d … | grep NEEDED) as trixie names them: what dpkg-shlibdeps
# reads for an arm64 package, and what an arm64 root has before the package goes in.
trixie_runtime_packages=(libc6 libgcc-s1 libnfc6 libusb-0.1-4 libmosquitto1 libssl3t64 libyaml-0-2 libpcsclite1)
