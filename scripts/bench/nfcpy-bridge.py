#!/usr/bin/env python3
"""The bridge tagrouter is measured against (e2e-mqtt.sh): what a user writes with nfcpy and paho-mqtt.

It polls the PN532 on PTY (a `tagrouter simulate` pseudo-terminal) with nfcpy's defaults, and for each tag
publishes a tag.arrived event as JSON (QoS 1) to PREFIX/arrived, waits for the tag to leave, and publishes
tag.removed to PREFIX/removed. Two departures from nfcpy's defaults, both needed on the simulator and neither
making it faster: the pty is opened as a transport (nfcpy looks for its ttys in /dev by name only), and the line
stays at 115200 baud, as nfcpy itself does on a Raspberry Pi's ttyS0 (tagrouter talks at 115200 too).
Prints "ready" once connected to the broker and the reader.

Usage: nfcpy-bridge.py PTY HOST PORT PREFIX
"""
import datetime
import json
import sys
import uuid

import nfc
import nfc.clf.pn532
import nfc.clf.transport
import paho.mqtt.client as mqtt

pty, host, port, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="nfcpy-bridge")
client.connect(host, port)
client.loop_start()

nfc.clf.pn532.os.system = lambda command: 1  # `stty` to a faster rate "fails": stay at 115200 baud
transport = nfc.clf.transport.TTY(pty)
device = nfc.clf.pn532.init(transport)
device._path = pty
frontend = nfc.ContactlessFrontend()
frontend.device = device


def event(kind, tag):
    """The event as tagrouter's format has it, as far as nfcpy tells."""
    body = {"event": kind, "id": str(uuid.uuid4()),
            "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
            "reader": "front-door", "tag": {"uid": tag.identifier.hex(), "type": tag.product}}
    if kind == "tag.arrived" and tag.ndef is not None:
        records = [{"type": record.type, "uri": getattr(record, "iri", None)} for record in tag.ndef.records]
        body["ndef"] = {"records": records}
        body["uri"] = next((record["uri"] for record in records if record["uri"]), None)
    return json.dumps(body)


def arrived(tag):
    client.publish(prefix + "/arrived", event("tag.arrived", tag), qos=1)
    return True  # wait for the tag to leave, then on-release


def released(tag):
    client.publish(prefix + "/removed", event("tag.removed", tag), qos=1)


print("ready", flush=True)
# connect() returns False after a reader error (an answer late on a loaded machine; nfcpy logs it to a NullHandler),
# which ended the bridge without a word: it keeps going, as a bridge run as a service would be restarted.
while True:
    frontend.connect(rdwr={"on-connect": arrived, "on-release": released})
