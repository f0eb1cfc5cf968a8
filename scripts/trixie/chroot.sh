#!/usr/bin/env bash
# Makes (once) a Debian 13 amd64 chroot with Debian's own Swift (swiftlang 6.0.3), the product's
# -dev packages, and what packaging for trixie needs (dpkg-dev; for arm64 the aarch64 strip and the
# arm64 runtime libraries, which dpkg-shlibdeps reads), and prints its path. Cached under TRIXIE_CACHE (scripts/trixie/common.sh) in a
# folder keyed by the package list; a second run prints the cached path at once. Needs root
# (mmdebstrap in root mode) and mmdebstrap. ~1.5 min and ~3 GB the first time, mostly download.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/trixie/common.sh
source "$here/common.sh"
[ "$(id -u)" = 0 ] || { echo "error: $0 needs root: mmdebstrap makes the chroot as root" >&2; exit 77; }
trixie_require mmdebstrap mmdebstrap

# libstdc++-14-dev: --static-swift-stdlib links libstdc++ statically; lld: Package.swift's release link.
packages=(swiftlang libstdc++-14-dev lld pkg-config "${trixie_dev_packages[@]}" dpkg-dev binutils-aarch64-linux-gnu)
# The arm64 runtime libraries beside the amd64 ones (multiarch), for dpkg-shlibdeps.
for library in "${trixie_runtime_packages[@]}"; do
    packages+=("$library:arm64")
done
cache=$(trixie_cache)
root=$cache/$(trixie_key chroot-amd64 "${packages[@]}")
if [ -x "$root/usr/bin/swift" ] && [ -e "$root/.complete" ]; then echo "$root"; exit 0; fi

exec 9>"$root.lock"
flock 9
if [ ! -e "$root/.complete" ]; then
    rm -rf "$root" "$root.partial"
    mirror=$(trixie_mirror)
    echo "Making a trixie chroot with swiftlang in $root from $mirror" >&2
    mmdebstrap --quiet --mode=root --variant=minbase --architectures=amd64,arm64 \
        --include="$(IFS=,; echo "${packages[*]}")" \
        trixie "$root.partial" "deb [signed-by=$trixie_keyring] $mirror trixie main" >&2
    touch "$root.partial/.complete"
    mv "$root.partial" "$root"
fi
echo "$root"
