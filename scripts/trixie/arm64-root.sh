#!/usr/bin/env bash
# Makes (once) a minimal Debian 13 arm64 root — what a Raspberry Pi OS trixie image has before
# tagrouter is installed: adduser and the libraries the package depends on — and prints its path.
# Its maintainer scripts run under qemu (binfmt: scripts/install-deps.sh --pi), a few minutes the
# first time. Cached under TRIXIE_CACHE keyed by the package list; scripts/trixie/arm64-smoke.sh
# installs the package in a throwaway overlay over it, so this root stays as made. Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/trixie/common.sh
source "$here/common.sh"
[ "$(id -u)" = 0 ] || { echo "error: $0 needs root: mmdebstrap makes the root as root" >&2; exit 77; }
trixie_require mmdebstrap mmdebstrap
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
    { echo "error: this kernel cannot run arm64 programs: scripts/install-deps.sh --pi registers qemu" >&2; exit 1; }

packages=(adduser init-system-helpers "${trixie_runtime_packages[@]}")
cache=$(trixie_cache)
root=$cache/$(trixie_key root-arm64 "${packages[@]}")
if [ -e "$root/.complete" ]; then echo "$root"; exit 0; fi

exec 9>"$root.lock"
flock 9
if [ ! -e "$root/.complete" ]; then
    rm -rf "$root" "$root.partial"
    mirror=$(trixie_mirror)
    echo "Making an arm64 trixie root in $root from $mirror (under qemu)" >&2
    mmdebstrap --quiet --mode=root --variant=minbase --architectures=arm64 \
        --include="$(IFS=,; echo "${packages[*]}")" \
        trixie "$root.partial" "deb [signed-by=$trixie_keyring] $mirror trixie main" >&2
    touch "$root.partial/.complete"
    mv "$root.partial" "$root"
fi
echo "$root"
