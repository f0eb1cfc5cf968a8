#!/usr/bin/env bash
# The release build every deployment and benchmark uses: optimised, warnings as
# errors, and the Swift runtime and FoundationEssentials linked statically — that keeps the
# daemon ~6 MB smaller in memory (28 → 22 MB resident, measured with a reader and
# 40 taps) and starts faster. Extra arguments go to `swift build` (e.g. --product X).
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift build -c release --static-swift-stdlib -Xswiftc -warnings-as-errors "$@"
