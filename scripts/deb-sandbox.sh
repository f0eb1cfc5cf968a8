#!/usr/bin/env bash
# Runs a command as root in a throwaway copy of this machine: an overlay over /
# whose changes land in SANDBOX/upper, in a private mount namespace, so
# `dpkg -i`, the maintainer scripts, adduser and `dpkg --purge` run for real
# without touching the machine itself. /dev, /proc and /sys are the machine's;
# /run is empty, so the scripts see no running systemd or udev (as in a chroot or
# an image build) and talk to neither.
#
#   scripts/deb-sandbox.sh SANDBOX COMMAND...
#
# Calls with the same SANDBOX folder see each other's changes (install, then
# upgrade, then purge). Files put under SANDBOX/upper before the first call appear
# in the sandbox (e.g. SANDBOX/upper/root/tagrouter.deb is /root/tagrouter.deb).
# Remove SANDBOX when done. Needs root (mount, chroot). LOWER=ROOT overlays another root
# instead of / (scripts/trixie/arm64-smoke.sh: an arm64 Debian 13 root, run under qemu).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 SANDBOX COMMAND..." >&2; exit 64; }
[ "$(id -u)" = 0 ] || { echo "error: $0 needs root: it mounts an overlay and chroots into it" >&2; exit 77; }
sandbox=$(realpath -m "$1")
shift
mkdir -p "$sandbox/upper" "$sandbox/work" "$sandbox/merged"

exec unshare --mount --propagation private -- /bin/sh -euc '
    sandbox=$1 lower=$2; shift 2
    mount -t overlay overlay -o "lowerdir=$lower,upperdir=$sandbox/upper,workdir=$sandbox/work" "$sandbox/merged"
    for folder in dev proc sys; do mount --rbind "/$folder" "$sandbox/merged/$folder"; done
    mount -t tmpfs tmpfs "$sandbox/merged/run"
    mount -t tmpfs tmpfs "$sandbox/merged/tmp"
    exec chroot "$sandbox/merged" "$@"
' deb-sandbox "$sandbox" "$(realpath "${LOWER:-/}")" "$@"
