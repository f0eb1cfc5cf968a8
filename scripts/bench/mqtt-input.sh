#!/usr/bin/env bash
# How fast a central router takes messages from its `mqtt` input (docs/fleet.md,
# "When the router acknowledges"): `tagrouter run` with one route and one `log`
# action, once with `spool: true` (each message acknowledged only once its event
# is written ahead) and once with `spool: false`; COUNT distinct tagrouter events
# are published at QoS 1 in one burst (`mosquitto_pub -l`) to a mosquitto this
# script starts on a free loopback port. The rate is messages over the time from
# the start of the burst to the last event the action logged; the spool batches
# are the action's writes ahead (one file, one fsync pair each).
#   COUNT=3000 scripts/bench/mqtt-input.sh
#   TAGROUTER=.build/debug/tagrouter scripts/bench/mqtt-input.sh   # skip the release build
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${COUNT:-3000}
if [[ -z "${TAGROUTER:-}" ]]; then
  scripts/build-release.sh --product tagrouter >&2
  TAGROUTER="$(swift build -c release --show-bin-path)/tagrouter"
fi
work=$(mktemp -d /tmp/tagrouter-mqtt-input.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for_lines() {  # wait_for_lines SECONDS FILE COUNT TEXT
  for _ in $(seq $(($1 * 100))); do [[ $(grep -c "$4" "$2" 2>/dev/null) -ge $3 ]] && return 0; sleep 0.01; done
  echo "timed out waiting for $3 lines with '$4' in $2" >&2; exit 1
}

port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 1000000\n' "$port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 & pids+=($!)
python3 - "$work/taps.jsonl" "$count" <<'PY'
import json, sys
with open(sys.argv[1], "w") as out:
    for i in range(int(sys.argv[2])):
        out.write(json.dumps({"event": "tag.arrived", "id": f"tap-{i:06d}", "time": "2026-01-01T00:00:00.000Z",
                              "reader": "door", "tag": {"uid": f"04{i:08x}", "uid_dashed": "", "type": "ntag215"}, "ndef": None}) + "\n")
PY

echo "| action | messages | spool batches | seconds | messages/s |"
echo "| --- | --- | --- | --- | --- |"
for spool in true false; do
  cat >"$work/router-$spool.yaml" <<YAML
state_dir: $work/state-$spool
readers: []
mqtt: {host: 127.0.0.1, port: $port, client_id: bench-$spool}
# max_age: the messages are published at once, the last are older than the default 30s when routed
inputs: [{mqtt: {topic: "bench-$spool/+/tag.arrived", trust: broker, max_age: 10m}}]
routes: [{name: all, actions: [{log: {spool: $spool}}]}]
YAML
  "$TAGROUTER" run --config "$work/router-$spool.yaml" --control "$work/router-$spool.sock" --log-level debug --log-format json >"$work/out-$spool" 2>"$work/err-$spool" &
  router=$!
  pids+=("$router")
  wait_for_lines 30 "$work/err-$spool" 1 "mqtt subscribed"
  start=$(date +%s.%N)
  mosquitto_pub -p "$port" -q 1 -t "bench-$spool/a/tag.arrived" -l <"$work/taps.jsonl"
  wait_for_lines 300 "$work/out-$spool" "$count" "tap-"
  end=$(date +%s.%N)
  kill "$router"; wait "$router" 2>/dev/null || true
  batches=$(grep -c "written ahead to the spool" "$work/err-$spool" || true)
  python3 -c "import sys; n, s = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print(f'| log, spool: {sys.argv[4]} | {n:,} | {int(sys.argv[5]):,} | {s:.2f} | {int(n / s):,} |')" \
    "$count" "$start" "$end" "$spool" "$batches"
done
