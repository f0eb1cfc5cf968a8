#!/usr/bin/env bash
# `tagrouter decode --lines` as a whole process (hex lines in, JSON lines out)
# beside a Python script doing the same job with ndeflib (bytes.fromhex,
# ndef.message_decoder, json.dumps per line), measured in the same run on the same
# 100 000 lines of a URI + 2 Text message. The two sides take turns three times and
# each keeps its best wall time; CPU time (user + sys) is shown too, as it is
# disturbed less by other work on the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/build-release.sh --product tagrouter >&2
scripts/build-release.sh --product ndef-bench >&2
bin="$(swift build -c release --show-bin-path)"

venv=.bench/ndef-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv" >&2; fi
"$venv/bin/python" -c "import ndef" 2>/dev/null || "$venv/bin/pip" install -q ndeflib >&2

lines="${DECODE_LINES:-100000}"
input=.bench/decode-lines.hex
"$bin/ndef-bench" --hex | awk -v n="$lines" '$1 == "typical" { for (i = 0; i < n; i++) print $2 }' > "$input"

cat > .bench/decode-lines.py <<'PY'
"""decode --lines in Python: one JSON object per hex line, fields as tagrouter's."""
import json
import sys

import ndef

def record_json(record):
    fields = {"type": record.type, "id": record.name, "payload_hex": record.data.hex()}
    if isinstance(record, ndef.UriRecord):
        fields["uri"] = record.iri
    elif isinstance(record, ndef.TextRecord):
        fields.update(text=record.text, lang=record.language, encoding=record.encoding)
    return fields

out = sys.stdout
for line in sys.stdin:
    data = bytes.fromhex(line.strip())
    out.write(json.dumps({"records": [record_json(r) for r in ndef.message_decoder(data)]}, ensure_ascii=False) + "\n")
PY

python3 - "$bin/tagrouter" "$venv/bin/python" "$input" "$lines" <<'PY'
import os, subprocess, sys, time
tagrouter, python, path, lines = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def measure(command):
    """Wall and CPU seconds of one run, stdin from the hex file, stdout counted and dropped."""
    before = os.times()
    start = time.perf_counter()
    with open(path, "rb") as stdin:
        result = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    assert result.stdout.count(b"\n") == lines, command
    return wall, cpu

ours, theirs = [], []
for _ in range(3):
    ours.append(measure([tagrouter, "decode", "--lines"]))
    theirs.append(measure([python, ".bench/decode-lines.py"]))
wall, cpu = min(w for w, _ in ours), min(c for _, c in ours)
base_wall, base_cpu = min(w for w, _ in theirs), min(c for _, c in theirs)
print("| `decode --lines`, %s lines of URI + 2 Text | tagrouter | ndeflib 0.3.3 + json, Python | ratio |" % format(lines, ","))
print("| --- | ---: | ---: | ---: |")
print("| wall time (s) | %.3f | %.3f | %.1f× |" % (wall, base_wall, base_wall / wall))
print("| CPU time, user + sys (s) | %.3f | %.3f | %.1f× |" % (cpu, base_cpu, base_cpu / cpu))
print("| lines/s (wall) | %s | %s | |" % (format(int(lines / wall), ","), format(int(lines / base_wall), ",")))
PY
