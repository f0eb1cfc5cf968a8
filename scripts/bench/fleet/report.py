"""The fleet bench's figures from what the downstream service recorded.
Usage: report.py REQUESTS_FILE TAPS COPIES_SENT KILLED_ROUTER ROUTER_A_LOG"""
import json
import sys

path, taps, copies, killed, router_log = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
requests = [line.split() for line in open(path) if line.strip()]
ids = [r[1] for r in requests]
unique = set(ids)
expected = {f"n{node}-{i:06d}" for node in (1, 2, 3) for i in range(taps) if i % 3 == node - 1}
by_router = {}
for time, _, router in requests:
    by_router.setdefault(router, []).append(float(time))
stopped = [json.loads(l) for l in open(router_log) if '"mqtt input stopped' in l]
dropped = stopped[-1].get("duplicates", "?") if stopped else "?"


def rate(times):
    return len(times) / (max(times) - min(times)) if len(times) > 1 and max(times) > min(times) else 0


span = max(float(r[0]) for r in requests) - min(float(r[0]) for r in requests) if requests else 0
print("| figure | value |")
print("| --- | --- |")
print(f"| taps published by 3 nodes | {taps} (+{copies} copies a node resent) |")
print(f"| taps that reached the webhook at least once | {len(unique & expected)} |")
print(f"| taps lost | {len(expected - unique)} |")
print(f"| requests at the webhook | {len(ids)} |")
print(f"| duplicates at the webhook (removed there by Idempotency-Key) | {len(ids) - len(unique)} |")
print(f"| copies dropped by router a's dedup | {dropped} |")
print(f"| router killed mid-run | {killed} |")
for router, times in sorted(by_router.items()):
    print(f"| router {router}: events delivered, events/s while it ran | {len(times)}, {rate(times):.0f} |")
print(f"| whole fleet: events/s at the webhook | {len(ids) / span if span else 0:.0f} |")
