#!/usr/bin/env bash
# `make deb ARCH=arm64` and `make deb SUITE=trixie`: a package for Debian 13 (trixie) — Raspberry Pi OS
# trixie on arm64 — built with Debian's own swiftlang 6.0.3 and packed by scripts/build-deb.sh in the
# trixie chroot (scripts/trixie/chroot.sh), so Depends: names trixie's libraries (libssl3t64, libc6 of
# trixie). arm64 is cross-compiled (scripts/trixie/build-arm64.sh); its man page and completion come
# from the arm64 binary itself, run by qemu (binfmt). Writes dist/tagrouter_<version>_arm64.deb, or for
# amd64 dist/trixie/tagrouter_<version>_amd64.deb (beside the host's own dist/…_amd64.deb). Needs root.
#
#   ARCH=arm64|amd64 scripts/trixie/deb.sh      (COMPRESSION, and OUT inside this checkout, as for
#                                                 scripts/build-deb.sh; prints the package's path)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${ARCH:-$(dpkg --print-architecture)}
root=$(scripts/trixie/chroot.sh)
case $arch in
    arm64)
        binary=$(scripts/trixie/build-arm64.sh)
        strip=aarch64-linux-gnu-strip
        out=${OUT:-dist}
        ;;
    amd64)
        scripts/trixie/check-603.sh >&2
        binary=.build/swift-6.0.3/x86_64-pc-linux-gnu/release/tagrouter  # Debian's swift names the host x86_64-pc-linux-gnu
        strip=strip
        out=${OUT:-dist/trixie}
        ;;
    *) echo "error: ARCH=$arch: Debian 13 packages are made for arm64 and amd64" >&2; exit 64 ;;
esac
exec scripts/trixie/in-chroot.sh "$root" env ARCH="$arch" BINARY="$binary" STRIP="$strip" OUT="$out" \
    COMPRESSION="${COMPRESSION:-xz}" scripts/build-deb.sh
