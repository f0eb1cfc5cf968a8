#!/usr/bin/env python3
"""A tagrouter exec plugin: appends "time reader uid text" for each tag to a file.
Protocol (docs/plugins.md): a hello line, then one event per line; answer one line each, naming the event's id."""
import json, sys

hello = json.loads(sys.stdin.readline())
if hello.get("protocol") != 2:
    sys.exit(f"exec-plugin.py speaks protocol 2, not {hello.get('protocol')}")
path = sys.argv[1] if len(sys.argv) > 1 else "taps.log"
for line in sys.stdin:
    event = json.loads(line)
    try:
        with open(path, "a") as out:
            out.write(f"{event['time']} {event['reader']} {event.get('tag', {}).get('uid', '-')} {event.get('text') or ''}\n")
        reply = {"ok": True, "id": event["id"]}
    except OSError as error:
        reply = {"ok": False, "id": event["id"], "error": str(error), "retry": True}
    print(json.dumps(reply), flush=True)
    # Anything on stderr becomes an info line of tagrouter's log: keep it for what needs attention.
