#!/usr/bin/env bash
# Fuzzes the NDEF decoder, the Type 2 TLV walker and the JSON parser with libFuzzer for
# FUZZ_SECONDS (default 600). The target (Fuzz/NDEFFuzz.swift) is compiled with
# the NDEF sources by swiftc, outside Package.swift. The corpus lives in
# fuzz-corpus/ndef (seeded from the test vectors); crashes land in fuzz-corpus/crashes.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS="${FUZZ_SECONDS:-600}"
build=.build/fuzz
corpus=fuzz-corpus/ndef
crashes=fuzz-corpus/crashes
mkdir -p "$build" "$corpus" "$crashes"

# OrderedJSON (which NDEF imports) becomes a module of its own first.
mapfile -t json_sources < <(find Sources/OrderedJSON -name '*.swift' | sort)
swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name OrderedJSON \
  -emit-module -emit-module-path "$build/OrderedJSON.swiftmodule" -emit-object -wmo \
  -o "$build/OrderedJSON.o" "${json_sources[@]}"
mapfile -t sources < <(find Sources/NDEF -name '*.swift' | sort)
swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -I "$build" \
  Fuzz/NDEFFuzz.swift "${sources[@]}" "$build/OrderedJSON.o" -o "$build/ndef-fuzz"

# Seed the corpus with every vector's bytes (messages and Type 2 images).
python3 - "$corpus" <<'PY'
import glob, json, os, sys, hashlib
out = sys.argv[1]
for path in glob.glob("Tests/NDEFTests/Vectors/*.json"):
    for vector in json.load(open(path)):
        for key in ("message_hex", "memory_hex", "ndef_hex"):
            text = vector.get(key)
            if text:
                data = bytes.fromhex(text)
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out, name), "wb") as f:
                    f.write(data)
PY

export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0
exec "$build/ndef-fuzz" -max_total_time="$FUZZ_SECONDS" -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$crashes/" "$corpus"
