#!/usr/bin/env bash
# The reader's figures on the PN532 simulator, paced like a PN532 on a 115200-baud
# UART: detection latency (tag placed → tag.arrived printed by `tagrouter watch`,
# median and p99 over TAPS taps), idle CPU (% of one core over IDLE_SECONDS with a
# reader attached and no tag) and resident memory, for both polling modes, beside
# libnfc's own nfc-poll on the same simulator. Prints a Markdown table; the
# per-tap log goes to .bench/reader.log.
#   TAPS=200 IDLE_SECONDS=30 scripts/bench/reader.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .bench
scripts/build-release.sh --product tagrouter >&2
scripts/build-release.sh --product reader-bench >&2
bin=$(swift build -c release --show-bin-path)
"$bin/reader-bench" "$bin/tagrouter" "${TAPS:-200}" "${IDLE_SECONDS:-30}" 2>.bench/reader.log
