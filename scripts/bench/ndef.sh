#!/usr/bin/env bash
# NDEF codec throughput (messages/s) beside Python's ndeflib on the same bytes,
# measured in the same run: a URI + 2 Text message and a 4 KiB MIME message.
# The two sides take turns five times and each keeps its best figure, so load
# from other work on the machine skews the ratio less.
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/build-release.sh --product ndef-bench >&2
bench="$(swift build -c release --show-bin-path)/ndef-bench"

venv=.bench/ndef-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv" >&2; fi
"$venv/bin/python" -c "import ndef" 2>/dev/null || "$venv/bin/pip" install -q ndeflib >&2

messages="$("$bench" --hex)"
measure_ndeflib() {
  "$venv/bin/python" - "$messages" <<'PY'
import sys, time
import ndef

def rate(body):
    """Calls per second: the best of three rounds of about 0.3 s (as ndef-bench measures)."""
    for _ in range(200):
        body()
    best = 0.0
    for _ in range(3):
        calls, start = 0, time.perf_counter()
        while True:
            for _ in range(100):
                body()
            calls += 100
            elapsed = time.perf_counter() - start
            if elapsed >= 0.3:
                break
        best = max(best, calls / elapsed)
    return best

for line in sys.argv[1].splitlines():
    name, hexdata = line.split()
    data = bytes.fromhex(hexdata)
    records = list(ndef.message_decoder(data))
    assert b"".join(ndef.message_encoder(records)) == data
    print(name, "decode", int(rate(lambda: list(ndef.message_decoder(data)))))
    print(name, "encode", int(rate(lambda: b"".join(ndef.message_encoder(records)))))
PY
}

ours="" theirs=""
for _ in 1 2 3 4 5; do
  ours+="$("$bench")"$'\n'
  theirs+="$(measure_ndeflib)"$'\n'
done

python3 - "$messages" "$ours" "$theirs" <<'PY'
import sys
def best(text):
    rates = {}
    for line in text.splitlines():
        if line.strip():
            name, op, rate = line.split()
            rates[(name, op)] = max(rates.get((name, op), 0), float(rate))
    return rates
sizes = {line.split()[0]: len(line.split()[1]) // 2 for line in sys.argv[1].splitlines()}
ours, theirs = best(sys.argv[2]), best(sys.argv[3])
labels = {"typical": "URI + 2 Text", "mime4k": "4 KiB MIME"}
print("| NDEF message | op | tagrouter (msgs/s) | ndeflib 0.3.3, Python (msgs/s) | ratio |")
print("| --- | --- | ---: | ---: | ---: |")
for name in ("typical", "mime4k"):
    for op in ("decode", "encode"):
        mine, base = ours[(name, op)], theirs[(name, op)]
        print("| %s (%d B) | %s | %s | %s | %.0f× |" % (labels[name], sizes[name], op, format(int(mine), ","),
                                                    format(int(base), ","), mine / base))
PY
