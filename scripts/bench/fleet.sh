#!/usr/bin/env bash
# A fleet on one machine (docs/fleet.md): three thin nodes (`run --events-from`,
# each publishing its taps with an `mqtt` action, QoS 1) and two central routers
# on one mosquitto shared subscription, posting every event to a webhook that
# records its Idempotency-Key. Router b is killed (SIGKILL; KILL=TERM for a clean
# stop) once half the taps have arrived, and started again on the same state_dir
# a second later, as systemd's Restart=always would (RESTART=0: it stays down; its
# share of the broker's messages then waits in its persistent session). Prints a
# Markdown table: taps that
# reached the webhook at least once, lost, duplicates, what dedup dropped, and
# the routers' events per second.
#   TAPS=10000 COPIES=5 DEDUP=10m scripts/bench/fleet.sh
#   TAGROUTER=.build/debug/tagrouter scripts/bench/fleet.sh   # skip the release build
set -euo pipefail
cd "$(dirname "$0")/../.."
taps=${TAPS:-10000} copies_percent=${COPIES:-5} dedup=${DEDUP:-10m} kill_signal=${KILL:-KILL} restart=${RESTART:-1}
if [[ -z "${TAGROUTER:-}" ]]; then
  scripts/build-release.sh --product tagrouter >&2
  TAGROUTER="$(swift build -c release --show-bin-path)/tagrouter"
fi
work=$(mktemp -d /tmp/tagrouter-fleet.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for SECONDS FILE TEXT
  for _ in $(seq $(($1 * 20))); do grep -q "$3" "$2" 2>/dev/null && return 0; sleep 0.05; done
  echo "timed out waiting for '$3' in $2" >&2; exit 1
}

broker_port=$(free_port) http_port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 1000000\n' "$broker_port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 & pids+=($!)
python3 scripts/bench/fleet/counter.py "$http_port" "$work/requests" & pids+=($!)

for router in a b; do
  cat >"$work/router-$router.yaml" <<YAML
state_dir: $work/state-$router
readers: []
mqtt: {host: 127.0.0.1, port: $broker_port, client_id: router-$router, protocol: "5"}
inputs:
  # max_age: the taps are published at once, and a killed router reaches the last long after 30s
  - mqtt: {topic: "\$share/routers/fleet/+/+/tag.arrived", node: "{{levels.1}}", dedup: $dedup, max_age: 10m, trust: broker}
routes:
  - name: door
    actions: [{webhook: {url: "http://127.0.0.1:$http_port/tap", headers: {X-Router: $router}}}]
YAML
done
start_router() {  # start_router NAME: runs it in the background, its pid in router_NAME
  "$TAGROUTER" run --config "$work/router-$1.yaml" --control "$work/router-$1.sock" --log-format json \
    >>"$work/router-$1.log" 2>&1 & pids+=($!)
  eval "router_$1=\$!"
}
for router in a b; do start_router "$router"; done
wait_for 20 "$work/router-a.log" '"mqtt subscribed"'
wait_for 20 "$work/router-b.log" '"mqtt subscribed"'

# Node n publishes taps n-1, n-1+3, …; every COPIES-th percent of them twice in a row (a resend).
copies=$(python3 - "$work" "$taps" "$copies_percent" <<'PY'
import json, sys
work, taps, percent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
copies = 0
for node in (1, 2, 3):
    with open(f"{work}/node-{node}.jsonl", "w") as out:
        for i in range(node - 1, taps, 3):
            line = json.dumps({"event": "tag.arrived", "id": f"n{node}-{i:06d}", "time": "2026-01-01T00:00:00.000Z",
                               "reader": "door", "tag": {"uid": f"04{i:08x}", "uid_dashed": "", "type": "ntag215"}, "ndef": None})
            out.write(line + "\n")
            if percent and i % (100 // percent) == 0:
                out.write(line + "\n")
                copies += 1
print(copies)
PY
)
node_pids=()
for node in 1 2 3; do
  cat >"$work/node-$node.yaml" <<YAML
state_dir: $work/state-node-$node
readers: []
mqtt: {host: 127.0.0.1, port: $broker_port, client_id: node-$node}
routes:
  - name: to-the-routers
    actions: [{mqtt: {topic: "fleet/node-$node/{{reader}}/{{event}}", qos: 1}}]
YAML
  "$TAGROUTER" run --config "$work/node-$node.yaml" --events-from "$work/node-$node.jsonl" --control "$work/node-$node.sock" \
    --log-format json >"$work/node-$node.log" 2>&1 & node_pids+=($!)
done

while [[ $(wc -l <"$work/requests" 2>/dev/null || echo 0) -lt $((taps / 2)) ]]; do sleep 0.02; done
kill -"$kill_signal" "$router_b"
if [[ $restart == 1 ]]; then
  wait "$router_b" 2>/dev/null || true
  sleep 1
  start_router b
fi
for pid in "${node_pids[@]}"; do wait "$pid"; done
# Settled: no new request for two seconds (a minute at most).
last=-1
for _ in $(seq 60); do
  now=$(wc -l <"$work/requests"); [[ $now == "$last" ]] && break; last=$now; sleep 2
done
kill -TERM "$router_a" "$router_b" 2>/dev/null || true
wait "$router_a" || true
wait "$router_b" 2>/dev/null || true
python3 scripts/bench/fleet/report.py "$work/requests" "$taps" "$copies" "b (SIG$kill_signal)" "$work/router-a.log"
