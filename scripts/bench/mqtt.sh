#!/usr/bin/env bash
# Sustained MQTT publish rate of tagrouter's client (Plugins/MQTTPlugin, driven
# by the `mqtt-bench` tool) beside mosquitto_pub publishing the same payloads,
# against a mosquitto this script starts on a free loopback port and stops.
# Prints a Markdown table. Rates are wall-clock, process start and connect included.
set -euo pipefail
cd "$(dirname "$0")/../.."

COUNT=${MQTT_BENCH_COUNT:-50000}
BENCH=.build/release/mqtt-bench
scripts/build-release.sh --product mqtt-bench >&2

work=$(mktemp -d)
broker_pid=""
cleanup() {
  if [ -n "$broker_pid" ]; then kill "$broker_pid" 2>/dev/null || true; wait "$broker_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
user $(id -un)
max_queued_messages 1000000
CONF
/usr/sbin/mosquitto -c "$work/mosquitto.conf" 2>/dev/null &
broker_pid=$!
for _ in $(seq 1 200); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done

# One tag event as tagrouter publishes it (one line, so mosquitto_pub -l sends it as one message).
payload='{"event":"tag.arrived","id":"8b1f0c52-5b8e-4f5c-9d7e-0c2f3a1b4d6e","time":"2026-11-29T15:42:52.123Z","reader":"front-door","tag":{"uid":"04a224b2c35e80","uid_dashed":"04-A2-24-B2-C3-5E-80","type":"ntag215","nfc_forum_type":2,"atqa":"0044","sak":"00","ndef_capacity":492,"writable":true},"tag_id":"04a224b2c35e80","ndef":{"records":[{"tnf":1,"type":"U","id":"","payload_hex":"046578616d706c652e636f6d2f61","uri":"https://example.com/a"}]},"uri":"https://example.com/a","text":null}'
printf '%s' "$payload" > "$work/payload.json"
for _ in $(seq 1 "$COUNT"); do printf '%s\n' "$payload"; done > "$work/lines.txt"
bytes=${#payload}

now() { date +%s.%N; }
rate() { python3 -c "import sys; print(f'{int(int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))):,}')" "$1" "$2" "$3"; }

ours() { # qos [--serial] [count]
  local count=${3:-$COUNT} start end
  start=$(now)
  "$BENCH" publish --port "$port" --topic bench/tagrouter --qos "$1" --count "$count" --payload-file "$work/payload.json" ${2:+"$2"} \
    >/dev/null 2>"$work/bench.log" || { cat "$work/bench.log" >&2; exit 1; }
  end=$(now)
  rate "$count" "$start" "$end"
}

theirs() { # qos
  local start end
  start=$(now)
  mosquitto_pub -h 127.0.0.1 -p "$port" -t bench/mosquitto_pub -q "$1" -l < "$work/lines.txt"
  end=$(now)
  rate "$COUNT" "$start" "$end"
}

ours0=$(ours 0); theirs0=$(theirs 0)
ours1=$(ours 1); theirs1=$(theirs 1)
serial1=$(ours 1 --serial $((COUNT / 5)))

echo "### MQTT publish rate ($COUNT messages of $bytes bytes, loopback mosquitto, events/s)"
echo
echo "| figure | tagrouter | baseline: mosquitto_pub -l |"
echo "| --- | --- | --- |"
echo "| publish QoS 0 | $ours0 | $theirs0 |"
echo "| publish QoS 1, pipelined (every PUBACK awaited) | $ours1 | $theirs1 |"
echo "| publish QoS 1, one at a time (one router action) | $serial1 | $theirs1 |"
