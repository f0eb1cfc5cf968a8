#!/usr/bin/env bash
# The whole product, end to end, against the release build: `tagrouter simulate`
# (paced, 115200 baud as shipped) → `tagrouter run` → mosquitto on a free loopback
# port → mosquitto_sub. Place → MQTT message at the subscriber (median, p99 over
# TAPS taps) and the daemon's resident memory after them (where it is: anonymous,
# its own file, shared libraries; E2E_SMAPS=FILE keeps its smaps), beside libnfc's own
# nfc-poll detection plus a fresh mosquitto_pub's latency to the same subscriber,
# and a Python nfcpy + paho-mqtt bridge (scripts/bench/nfcpy-bridge.py, in
# .bench/bridge-venv from PyPI) tapped the same way, measured in the same run
# (Benchmarks/EndToEndBench). Prints a Markdown table.
#   TAPS=1000 scripts/bench/e2e-mqtt.sh   (the default; the memory target is after 1,000 taps)
set -euo pipefail
cd "$(dirname "$0")/../.."
for product in tagrouter e2e-bench; do
  scripts/build-release.sh --product "$product" >&2
done
bin=$(swift build -c release --show-bin-path)
mkdir -p .bench   # per-tap progress: .bench/e2e-mqtt.log
venv=.bench/bridge-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv" >&2; fi
"$venv/bin/python" -c "import nfc, paho.mqtt" 2>/dev/null || "$venv/bin/pip" install -q nfcpy==1.0.4 paho-mqtt==2.2.0 >&2
"$bin/e2e-bench" "$bin/tagrouter" "${TAPS:-1000}" "$venv/bin/python" scripts/bench/nfcpy-bridge.py 2>.bench/e2e-mqtt.log
# The table's last row: the binary as shipped (the .deb strips it).
stripped=$(mktemp)
strip -o "$stripped" "$bin/tagrouter"
echo "| release binary, stripped | $(numfmt --to=iec-i --suffix=B --format=%.1f "$(stat -c %s "$stripped")") | — (Python: the interpreter and packages) | | nfc-poll: $(numfmt --to=iec-i --suffix=B --format=%.1f "$(stat -c %s /usr/bin/nfc-poll)") (+ libnfc, shared) |"
rm -f "$stripped"
