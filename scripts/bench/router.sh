#!/usr/bin/env bash
# Router figures beside a bare AsyncStream pass-through doing the same work, in
# the same run: throughput of 100 000 events through 100 routes (only the last
# matches) with the `log` action writing to /dev/null, and the latency the
# router adds per event (send → action starts; median and p99 of 2 000 events
# sent one at a time), and the cost of turning one tag.arrived (URI + Text) into
# JSON text beside Foundation's JSONSerialization of the same members; and the
# spool's write-ahead (one route, one action, `spool: true` beside `spool: false`:
# a burst of events/s, and the latency of one event at a time, which pays its own
# fsyncs; the spool is under .build, on a real disk). Best of three runs, so
# load from other work skews less.
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/build-release.sh --product router-bench >&2
bench="$(swift build -c release --show-bin-path)/router-bench"

runs=""
for _ in 1 2 3; do runs+="$("$bench" "${ROUTER_BENCH_EVENTS:-100000}")"$'\n'; done

python3 - "$runs" <<'PY'
import sys
best = {}
for line in sys.argv[1].splitlines():
    if not line.strip():
        continue
    name, value = line.split()
    value = float(value)
    better = max if name.endswith("per_s") else min
    best[name] = better(best.get(name, value), value)

print("| figure | tagrouter | baseline |")
print("| --- | --- | --- |")
print(f"| routing throughput, 100 routes, `log` to /dev/null (events/s) | {best['router_events_per_s']:,.0f} | {best['baseline_events_per_s']:,.0f} (AsyncStream → same JSON line) |")
print(f"| added latency per event, median (µs) | {best['router_latency_median_us']:.1f} | {best['baseline_latency_median_us']:.1f} (AsyncStream pass-through) |")
print(f"| added latency per event, p99 (µs) | {best['router_latency_p99_us']:.1f} | {best['baseline_latency_p99_us']:.1f} (AsyncStream pass-through) |")
print(f"| spooled action (write-ahead, group commit), burst (events/s) | {best['spooled_events_per_s']:,.0f} | {best['unspooled_events_per_s']:,.0f} (same action, `spool: false`) |")
print(f"| spooled action, one event at a time, latency median (µs) | {best['spooled_latency_median_us']:.1f} | {best['unspooled_latency_median_us']:.1f} (same action, `spool: false`) |")
print(f"| spooled action, one event at a time, latency p99 (µs) | {best['spooled_latency_p99_us']:.1f} | {best['unspooled_latency_p99_us']:.1f} (same action, `spool: false`) |")
print(f"| event → JSON text, tag.arrived with URI + Text (µs) | {best['event_json_us']:.2f} | {best['baseline_event_json_us']:.2f} (Foundation JSONSerialization) |")
PY
