#!/usr/bin/env bash
# Cross-compiles the release tagrouter for arm64 (a Raspberry Pi 3/4/5 on a 64-bit OS) on this x86_64
# machine: Debian's swiftlang 6.0.3 in the trixie chroot (scripts/trixie/chroot.sh) with the arm64
# sysroot and Swift SDK of scripts/trixie/sysroot.sh, the flags of `make release`
# (scripts/build-release.sh). The build folder is .build/trixie-arm64, so the host's .build/release
# stays the host's; prints the binary's path,
# .build/trixie-arm64/aarch64-unknown-linux-gnu/release/tagrouter. Needs root (chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(scripts/trixie/chroot.sh)
bundle=$(scripts/trixie/sysroot.sh)
sysroot=$bundle/trixie-arm64.artifactbundle/sysroot
scratch=.build/trixie-arm64
TRIXIE_BIND=$bundle scripts/trixie/in-chroot.sh "$root" env \
    PKG_CONFIG_LIBDIR="$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig" \
    PKG_CONFIG_SYSROOT_DIR="$sysroot" \
    scripts/build-release.sh --product tagrouter --scratch-path "$scratch" \
    --swift-sdks-path "$bundle" --swift-sdk trixie-arm64 "$@" >&2
echo "$scratch/aarch64-unknown-linux-gnu/release/tagrouter"
