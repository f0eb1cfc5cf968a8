#!/usr/bin/env bash
# Resident memory of the daemon delivering webhooks (libcurl), idle and after
# 200 taps, beside the same 200 POSTs from a FoundationNetworking Swift binary
# and from Python's urllib, all against one local HTTP server in this run.
# Needs .build/release/tagrouter (make bench builds it) with the webhook plugin registered.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=.bench/webhook-memory
rm -rf "$work" && mkdir -p "$work"
taps=200
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
private() { awk '/^Private_Dirty/ {print $2}' "/proc/$1/smaps_rollup"; }
mb() { awk -v kb="$1" 'BEGIN {printf "%.1f MB", kb / 1024}'; }
wait_for() { # wait_for SECONDS COMMAND…: poll until the command succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do [ $SECONDS -lt $deadline ] || { echo "timed out: $*" >&2; exit 1; }; sleep 0.05; done
}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

# The server counts requests into a file.
python3 - "$work/count" > "$work/port" <<'PY' &
import http.server, sys, threading
count = 0
lock = threading.Lock()
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_POST(self):
        global count
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
        with lock:
            count += 1
            with open(sys.argv[1], "w") as out: out.write(str(count))
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
pids+=($!)
wait_for 20 test -s "$work/port"
url="http://127.0.0.1:$(cat "$work/port")/hook"
served() { local count; count=$(cat "$work/count" 2>/dev/null || true); [ "${count:-0}" -ge "$1" ]; }

# tagrouter: events from a FIFO held open, one webhook route.
cat > "$work/tagrouter.yaml" <<YAML
routes:
  - name: hook
    actions:
      - webhook: {url: "$url", queue: 1000}
YAML
if ! .build/release/tagrouter check-config "$work/tagrouter.yaml" > "$work/check.log" 2>&1; then
  echo "| webhook delivery | skipped: this build cannot load a webhook action (see $work/check.log) |"
  echo "| --- | --- |"
  exit 0
fi
mkfifo "$work/events"
.build/release/tagrouter run --config "$work/tagrouter.yaml" --events-from "$work/events" \
  --state-dir "$work/state" --log-level warning 2> "$work/tagrouter.log" &
daemon=$!; pids+=($daemon)
exec 3> "$work/events"
sleep 1
idle=$(rss $daemon)
python3 - "$taps" >&3 <<'PY'
import json, sys, uuid
for n in range(int(sys.argv[1])):
    print(json.dumps({"event": "tag.arrived", "id": str(uuid.uuid4()), "time": "2026-11-29T15:42:52.123Z", "reader": "door",
        "tag": {"uid": "04a224b2c35e%02x" % (n % 256), "type": "ntag215"}, "ndef": None, "uri": "https://example.com/a", "text": "tap %d" % n}))
PY
wait_for 60 served $taps
busy=$(rss $daemon)
busy_private=$(private $daemon)
exec 3>&-
wait $daemon || true
echo 0 > "$work/count"

# FoundationNetworking: the same number of POSTs with URLSession.
cat > "$work/fn.swift" <<'SWIFT'
import Foundation
import FoundationNetworking
let url = URL(string: CommandLine.arguments[1])!
let session = URLSession(configuration: .default)
func post() {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data(#"{"event":"tag.arrived"}"#.utf8)
    let done = DispatchSemaphore(value: 0)
    session.dataTask(with: request) { _, _, _ in done.signal() }.resume()
    done.wait()
}
print("idle", terminator: "\n"); fflush(stdout)
_ = readLine()
for _ in 0..<Int(CommandLine.arguments[2])! { post() }
print("done"); fflush(stdout)
_ = readLine()
SWIFT
swiftc -O "$work/fn.swift" -o "$work/fn" 2> /dev/null
mkfifo "$work/fn-in"
"$work/fn" "$url" "$taps" < "$work/fn-in" > "$work/fn-out" &
fn=$!; pids+=($fn)
exec 4> "$work/fn-in"
wait_for 20 grep -q idle "$work/fn-out"
sleep 1
fn_idle=$(rss $fn)
echo >&4
wait_for 60 grep -q done "$work/fn-out"
fn_busy=$(rss $fn)
fn_private=$(private $fn)
exec 4>&-
wait $fn || true

# Python's urllib.
read -r py_busy py_private < <(python3 - "$url" "$taps" <<'PY'
import sys, urllib.request
for _ in range(int(sys.argv[2])):
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b'{"event":"tag.arrived"}', method="POST")).read()
def field(path, name):
    return next(line.split()[1] for line in open(path) if line.startswith(name))
print(field("/proc/self/status", "VmRSS:"), field("/proc/self/smaps_rollup", "Private_Dirty:"))
PY
)

echo "| webhook delivery | RSS idle | RSS after $taps POSTs | private dirty after |"
echo "| --- | --- | --- | --- |"
echo "| tagrouter daemon (libcurl) | $(mb "$idle") | $(mb "$busy") | $(mb "$busy_private") |"
echo "| Swift + FoundationNetworking (URLSession), baseline | $(mb "$fn_idle") | $(mb "$fn_busy") | $(mb "$fn_private") |"
echo "| Python urllib, baseline | – | $(mb "$py_busy") | $(mb "$py_private") |"
