#!/usr/bin/env bash
# Rewrites scripts/release/tagrouter.order: the functions `tagrouter run` executes with a reader and an `mqtt`
# action, in the order they are first called. The release link (Package.swift, `releaseLinkLayout`) places them
# first in `.text`, so the daemon's code shares a few pages (docs/development/memory.md). Recorded with callgrind while
# Benchmarks/EndToEndBench drives the daemon as `scripts/bench/e2e-mqtt.sh` does (simulator, broker, taps);
# only the `run` process is recorded. Run it after large changes to the code the daemon runs, or a new toolchain,
# then rebuild (`scripts/build-release.sh`) and compare the daemon's memory with `scripts/bench/e2e-mqtt.sh`.
#   TAPS=50 scripts/release/link-order.sh   (the default)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build-release.sh >&2   # every product: the daemon and Benchmarks/EndToEndBench, which drives it
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The bench runs this in place of the binary: `run` under callgrind, the simulator as it is.
cat > "$work/tagrouter" <<EOF
#!/bin/sh
[ "\$1" = run ] && exec valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --dump-instr=no --demangle=no "$bin/tagrouter" "\$@"
exec "$bin/tagrouter" "\$@"
EOF
chmod +x "$work/tagrouter"
# Without the bridge's arguments the bench taps the daemon only: no baseline, nothing else to wait for.
"$bin/e2e-bench" "$work/tagrouter" "${TAPS:-50}" >/dev/null 2>"$work/bench.log" || { cat "$work/bench.log" >&2; exit 1; }
# Functions of the binary itself (not of the shared libraries), first appearance first. Only names defined once:
# lld places every section that defines a listed name, and the compiler's merged helpers (`objectdestroyTm`,
# `…WOhTm`) are local copies in dozens of object files, so one such name pulled ~1 MB of code that never runs
# (command-line commands, property-list and attributed-string coders) in among the hot sections.
nm --defined-only "$bin/tagrouter" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort | uniq -u >"$work/defined"
grep -oP '^c?fn=\(\d+\) \K.*' "$work/callgrind.out" | awk '!seen[$0]++' | grep -Fxf "$work/defined" >scripts/release/tagrouter.order
# SwiftPM does not know the link reads this file: remove the binary so the next build links it again.
rm -f "$bin/tagrouter"
echo "scripts/release/tagrouter.order: $(wc -l <scripts/release/tagrouter.order) functions; rebuild with scripts/build-release.sh" >&2
