#!/usr/bin/env bash
# `make check-603`: builds the product (tagrouter, release, warnings as errors, as `make release`
# builds it) with Debian 13's own Swift, swiftlang 6.0.3, in a trixie chroot (scripts/trixie/chroot.sh)
# — the toolchain a Raspberry Pi gets from `apt install swiftlang`. The build folder is
# .build/swift-6.0.3, apart from the host toolchain's. Needs root (chroot). Extra arguments go to
# `swift build`.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(scripts/trixie/chroot.sh)
scripts/trixie/in-chroot.sh "$root" swift --version
exec scripts/trixie/in-chroot.sh "$root" \
    scripts/build-release.sh --product tagrouter --scratch-path .build/swift-6.0.3 "$@"
