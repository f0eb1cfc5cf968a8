#!/usr/bin/env bash
# The PN532 simulator: how long libnfc's own tools take against it at the
# modelled 115200-baud UART and RF pace, beside the same run with --no-pacing
# (the simulator's own overhead) — both measured in this run, best of three —
# and the CPU an idle `tagrouter simulate` uses while nfc-poll waits on it.
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/build-release.sh --product tagrouter >&2
tagrouter="$(swift build -c release --show-bin-path)/tagrouter"
work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export LIBNFC_AUTO_SCAN=false LIBNFC_INTRUSIVE_SCAN=false

# start_simulator NAME [--no-pacing]: a simulator with an NTAG216 holding an 800-byte message.
start_simulator() {
  local name="$1"; shift
  "$tagrouter" simulate --link "$work/$name" --control "$work/$name.sock" "$@" \
    --tag '{"type":"ntag216","uid":"04a224b2c35e80","records":[{"mime":"text/plain","data":"'"$(printf 'x%.0s' $(seq 800))"'"}]}' \
    > "$work/$name.out" &
  pids+=($!)
  for _ in $(seq 100); do grep -q '^control:' "$work/$name.out" 2>/dev/null && return; sleep 0.05; done
  echo "simulator $name did not start" >&2; exit 1
}

# best_ms NAME TOOL ARGS…: the best wall time of three runs, in ms.
best_ms() {
  local name="$1"; shift
  local best=""
  for _ in 1 2 3; do
    local start end
    start=$(date +%s%N)
    (cd "$work" && LIBNFC_DEVICE="pn532_uart:$work/$name" "$@" > /dev/null 2>&1)
    end=$(date +%s%N)
    local ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}

start_simulator paced
start_simulator unpaced --no-pacing

list_paced=$(best_ms paced nfc-list)
list_unpaced=$(best_ms unpaced nfc-list)
dump_paced=$(best_ms paced nfc-mfultralight r dump.mfd)
dump_unpaced=$(best_ms unpaced nfc-mfultralight r dump.mfd)

# Idle: nfc-poll blocks in InAutoPoll on an empty field; sample the simulator's CPU time over 10 s.
"$tagrouter" simulate --control "$work/paced.sock" --request '{"op":"remove"}' > /dev/null
(LIBNFC_DEVICE="pn532_uart:$work/paced" nfc-poll > /dev/null 2>&1 &
 echo $! > "$work/poll.pid"; wait) &
sleep 1
pids+=("$(cat "$work/poll.pid")")
sim_pid="${pids[0]}"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
before=$(ticks "$sim_pid"); sleep 10; after=$(ticks "$sim_pid")
hz=$(getconf CLK_TCK)
idle_cpu=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.2f", 100 * t / hz / 10 }')
rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$sim_pid/status")

echo "### PN532 simulator"
echo
echo "| figure | simulator (115200-baud pacing) | baseline: same run, --no-pacing |"
echo "| --- | --- | --- |"
echo "| \`nfc-list\` with an NTAG216 (open, init, list all modulations), best of 3 | ${list_paced} ms | ${list_unpaced} ms |"
echo "| \`nfc-mfultralight r\` of an NTAG216 (231 pages), best of 3 | ${dump_paced} ms | ${dump_unpaced} ms |"
echo "| simulator CPU while nfc-poll waits on an empty field (10 s) | ${idle_cpu} % of a core | — |"
echo "| simulator resident memory | $((rss_kb / 1024)) MB | — |"
