#!/usr/bin/env bash
# Makes (once) a Debian 13 amd64 tree that boots with systemd as PID 1 under systemd-nspawn — what a
# fresh trixie machine has before tagrouter is installed: systemd, udev, dbus, the libraries the package
# depends on and recommends, pcscd (socket-activated, as Debian ships it) with vsmartcard's vpcd
# reader, and alsa-utils for the host sound — and prints its path. scripts/trixie/boot-test.sh installs
# the package in a throwaway overlay over it, so this tree stays as made. Cached under TRIXIE_CACHE
# (scripts/trixie/common.sh) keyed by the package list. Needs root. ~1.5 min the first time, mostly download.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/trixie/common.sh
source "$here/common.sh"

packages=(
    systemd systemd-sysv udev dbus procps adduser init-system-helpers
    "${trixie_runtime_packages[@]}"
    libcurl4t64 libmicrohttpd12t64 libsystemd0 # the package's Recommends, as trixie names them
    pcscd vsmartcard-vpcd                       # a PC/SC reader: pcscd and the virtual reader the simulator is the card of
    alsa-utils                                  # aplay, the host sound's player
)
make_root() {
    local folder=$1
    shift
    trixie_mmdebstrap amd64 minbase "$folder" "$@"
}
trixie_tree boot-amd64 make_root "${packages[@]}"
