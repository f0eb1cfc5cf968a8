#!/usr/bin/env bash
# The reader's figures on the PN532 simulator, paced like a PN532 on a 115200-baud
# UART, per polling mode (auto-poll, the default, as the baseline; fast;
# list-passive): `tagrouter run` routes every arrival to a feedback action and
# `tagrouter events` follows it. Measured: placed → tag.arrived on the event
# stream and placed → the feedback action's delivery (median and p90 over TAPS
# taps), then with no tag over IDLE_SECONDS the daemon's CPU (% of one core), the
# serial line's traffic (commands/s, bytes/s) and resident memory; beside them
# libnfc's own nfc-poll on the same simulator. Then `polling: fast` on an idle
# reader and after a quick swap, with and without the originality signature
# (SWAP_TAPS taps each; the idle reader reading it is the baseline). Prints
# Markdown tables; the per-tap log goes to .bench/reader.log.
#   TAPS=200 IDLE_SECONDS=30 SWAP_TAPS=100 scripts/bench/reader.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .bench
scripts/build-release.sh --product tagrouter >&2
scripts/build-release.sh --product reader-bench >&2
bin=$(swift build -c release --show-bin-path)
"$bin/reader-bench" "$bin/tagrouter" "${TAPS:-200}" "${IDLE_SECONDS:-30}" "${SWAP_TAPS:-100}" 2>.bench/reader.log
