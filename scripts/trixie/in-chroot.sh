#!/usr/bin/env bash
# Runs a command in a chroot made by scripts/trixie/*.sh, with this checkout at its own path inside
# (so compiler messages name the files you edit), /proc (Debian's swift finds its libraries through
# /proc/self/exe), /dev and a tmpfs /tmp. Everything is mounted in a private mount namespace, so
# the mounts end with the command. Needs root.
#
#   [TRIXIE_BIND=FOLDER] scripts/trixie/in-chroot.sh CHROOT COMMAND...
#
# The command runs in this checkout's folder; TRIXIE_BIND, a folder (e.g. an SDK bundle), appears at
# its own path inside too.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 CHROOT COMMAND..." >&2; exit 64; }
[ "$(id -u)" = 0 ] || { echo "error: $0 needs root: it mounts and chroots" >&2; exit 77; }
root=$(realpath "$1")
shift
source=$(cd "$(dirname "$0")/../.." && pwd)
bind=${TRIXIE_BIND:-$source}
exec unshare --mount --propagation private -- /bin/sh -euc '
    root=$1 source=$2 bind=$3; shift 3
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root$source" "$root$bind"    # after /tmp: a checkout may live under /tmp
    mount --bind "$source" "$root$source"
    mount --bind "$bind" "$root$bind"
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb \
        /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$source" "$@"
' in-chroot "$root" "$source" "$bind" "$@"
