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
# libstdc++-14-dev: --static-swift-stdlib links libstdc++ statically; lld: Package.swift's release link.
packages=(swiftlang libstdc++-14-dev lld pkg-config "${trixie_dev_packages[@]}" dpkg-dev binutils-aarch64-linux-gnu)
# The arm64 runtime libraries beside the amd64 ones (multiarch), for dpkg-shlibdeps.
for library in "${trixie_runtime_packages[@]}"; do
    packages+=("$library:arm64")
done
make_chroot() {
    local folder=$1
    shift
    trixie_mmdebstrap amd64,arm64 minbase "$folder" "$@"
}
trixie_tree chroot-amd64 make_chroot "${packages[@]}"
