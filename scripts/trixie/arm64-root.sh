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
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
    { echo "error: this kernel cannot run arm64 programs: scripts/install-deps.sh --pi registers qemu" >&2; exit 1; }

packages=(adduser init-system-helpers "${trixie_runtime_packages[@]}")
make_root() {
    local folder=$1
    shift
    trixie_mmdebstrap arm64 minbase "$folder" "$@"
}
trixie_tree root-arm64 make_root "${packages[@]}"
