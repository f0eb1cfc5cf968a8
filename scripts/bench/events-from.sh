#!/usr/bin/env bash
# `tagrouter run --events-from FILE` as a whole process: 100 000 tag.arrived
# events (URI + Text, as `watch` prints them) through 100 routes (only the last
# matches, so every event is tried against all of them) to a `log` action on
# stdout, beside a Python script doing the same job (json.loads per line, the
# same 100 globs with fnmatch, json.dumps of {"route", "event"} per line) on the
# same file, in the same run. Every event must come out: both sides' lines are
# counted. The two sides take turns three times and each keeps its best wall
# time; CPU time (user + sys) is shown too, as it is disturbed less by other work.
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/build-release.sh --product tagrouter >&2
bin="$(swift build -c release --show-bin-path)"

events="${EVENTS_FROM_EVENTS:-100000}"
routes=100
mkdir -p .bench
input=.bench/events-from.jsonl
config=.bench/events-from.yaml

python3 - "$events" "$routes" "$input" "$config" <<'PY'
import json, sys
events, routes, input_path, config_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(config_path, "w") as config:
    config.write("state_dir: .bench/events-from-state\nroutes:\n")
    for index in range(routes):
        uri = "https://example.com/tap/*" if index == routes - 1 else "https://example.com/route-%d/*" % index
        config.write('  - name: route-%d\n    match: { uri: "%s", event: tag.arrived }\n    actions: [log]\n' % (index, uri))
with open(input_path, "w") as out:
    for index in range(events):
        uri = "https://example.com/tap/%d" % index
        event = {
            "event": "tag.arrived", "id": "bench-%08d" % index, "time": "2026-11-29T15:42:52.123Z", "reader": "front-door",
            "tag": {"uid": "04a224b2c35e80", "uid_dashed": "04-A2-24-B2-C3-5E-80", "type": "ntag215", "nfc_forum_type": 2,
                    "atqa": "0044", "sak": "00", "ndef_capacity": 492, "writable": True},
            "tag_id": "04-A2-24-B2-C3-5E-80",
            "ndef": {"records": [
                {"tnf": 1, "type": "U", "id": "", "payload_hex": "04" + uri[len("https://"):].encode().hex(), "uri": uri},
                {"tnf": 1, "type": "T", "id": "", "payload_hex": "02656e436865656b20746f20436865656b", "text": "Cheek to Cheek", "lang": "en", "encoding": "UTF-8"},
            ]},
            "uri": uri, "text": "Cheek to Cheek",
        }
        out.write(json.dumps(event, separators=(",", ":")) + "\n")
PY

cat > .bench/events-from.py <<'PY'
"""run --events-from in Python: each JSON line tried against the same 100 routes, the first match printed as tagrouter's log action does."""
import fnmatch, json, sys

routes = [("route-%d" % i, "https://example.com/tap/*" if i == 99 else "https://example.com/route-%d/*" % i) for i in range(100)]
out = sys.stdout
with open(sys.argv[1]) as lines:
    for line in lines:
        event = json.loads(line)
        for name, uri in routes:
            if event.get("event") == "tag.arrived" and fnmatch.fnmatchcase(event.get("uri", ""), uri):
                out.write(json.dumps({"route": name, "event": event}, ensure_ascii=False, separators=(",", ":")) + "\n")
                break
PY

python3 - "$bin/tagrouter" "$input" "$config" "$events" <<'PY'
import os, subprocess, sys, time
tagrouter, path, config, events = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def measure(command):
    """Wall and CPU seconds of one run, stdout counted and dropped; every event must be printed."""
    before = os.times()
    start = time.perf_counter()
    result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    delivered = result.stdout.count(b'{"route":"route-99"')
    assert delivered == events, "%s: %d of %d events delivered" % (command[0], delivered, events)
    return wall, cpu

ours, theirs = [], []
for _ in range(3):
    ours.append(measure([tagrouter, "run", "--config", config, "--events-from", path, "--log-level", "warning", "--control", ".bench/events-from.sock"]))
    theirs.append(measure(["python3", ".bench/events-from.py", path]))
wall, cpu = min(w for w, _ in ours), min(c for _, c in ours)
base_wall, base_cpu = min(w for w, _ in theirs), min(c for _, c in theirs)
print("| `run --events-from`, %s events, 100 routes, `log` | tagrouter | Python json + fnmatch | ratio |" % format(events, ","))
print("| --- | ---: | ---: | ---: |")
print("| wall time (s) | %.3f | %.3f | %.1f× |" % (wall, base_wall, base_wall / wall))
print("| CPU time, user + sys (s) | %.3f | %.3f | %.1f× |" % (cpu, base_cpu, base_cpu / cpu))
print("| events/s (wall), all delivered | %s | %s | |" % (format(int(events / wall), ","), format(int(events / base_wall), ",")))
PY
