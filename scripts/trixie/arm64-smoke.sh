#!/usr/bin/env bash
# `make pi-smoke`: the arm64 build tried on this x86_64 machine under qemu-user-static, as a Pi would run it.
#   1. the binary (scripts/trixie/build-arm64.sh) is aarch64, prints its version and decodes an NDEF message;
#   2. as `tagrouter run` it reads a tap from this machine's (amd64) `tagrouter simulate` over the
#      simulator's pseudo-terminal and publishes it to a real mosquitto;
#   3. the package (as `make deb ARCH=arm64` makes it, in .build/pi-smoke) is lintian-clean, installs with apt in an arm64
#      trixie root (scripts/trixie/arm64-root.sh) in a throwaway overlay (scripts/deb-sandbox.sh), its
#      maintainer scripts run under qemu, and `tagrouter demo` passes there.
# Needs root, qemu's binfmt entry and the tools of `scripts/install-deps.sh --pi`. HOST_TAGROUTER is the
# amd64 tagrouter that simulates (default .build/release/tagrouter, built when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "error: $0 needs root: it mounts and chroots" >&2; exit 77; }
# shellcheck source=scripts/trixie/common.sh
source scripts/trixie/common.sh # until_true

binary=$(scripts/trixie/build-arm64.sh)
sysroot=$(scripts/trixie/sysroot.sh)/trixie-arm64.artifactbundle/sysroot
host=${HOST_TAGROUTER:-.build/release/tagrouter}
[ -x "$host" ] || scripts/build-release.sh --product tagrouter >&2
version=$(sed -n 's/^public let tagrouterVersion = "\(.*\)"$/\1/p' Sources/TagCore/Version.swift)

work=$(mktemp -d /tmp/tagrouter-pi-smoke.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for log in "$work"/*.log; do echo "--- $log" >&2; tail -n 30 "$log" >&2; done; exit 1; }
arm64() { qemu-aarch64-static -L "$sysroot" "$binary" "$@"; }

echo "== 1. the arm64 binary"
readelf -h "$binary" | grep -q 'Machine:.*AArch64' || fail "$binary is not an aarch64 program"
arm64 --version | tee "$work/version.out"
grep -q "$version" "$work/version.out" || fail "--version does not say $version"
# An NFC Forum URI record: https://example.com (prefix code 4 + "example.com").
arm64 decode d1010c55046578616d706c652e636f6d | tee "$work/decode.out"
grep -q '"uri" *: *"https://example.com"' "$work/decode.out" || fail "decode did not give the URI"

echo "== 2. arm64 tagrouter run: a tap from the amd64 simulator to a real mosquitto"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\n' "$port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
pids+=($!)
until_true 30 grep -q "Opening ipv4 listen socket on port $port" "$work/mosquitto.log" || fail "mosquitto did not start"
# Every message on one line, topic first: the daemon's reader.connected, then the tap.
mosquitto_sub -h 127.0.0.1 -p "$port" -t 'pi-smoke/#' -v >"$work/received.out" 2>"$work/sub.log" &
pids+=($!)
"$host" simulate --link "$work/pn532" --control "$work/sim.sock" >"$work/simulate.log" 2>&1 &
pids+=($!)
until_true 30 test -S "$work/sim.sock" || fail "the simulator did not start"
cat >"$work/tagrouter.yaml" <<YAML
readers:
  - name: door
    device: pn532_uart:$work/pn532
mqtt:
  host: 127.0.0.1
  port: $port
routes:
  - name: smoke
    match: { event: [reader.connected, tag.arrived] }
    actions:
      - mqtt: { topic: "pi-smoke/{{reader}}/{{event}}", qos: 1 }
YAML
# qemu itself in the background (not through arm64(), a subshell), so the cleanup stops the daemon.
qemu-aarch64-static -L "$sysroot" "$binary" run --config "$work/tagrouter.yaml" --control "$work/control.sock" --state-dir "$work/state" \
    --log-format json >"$work/run.log" 2>&1 &
pids+=($!)
# The tag goes on once the daemon has told the broker its reader is open, so the tap cannot be missed.
until_true 180 grep -q '^pi-smoke/door/reader.connected ' "$work/received.out" ||
    fail "no reader.connected from the arm64 daemon reached mosquitto"
"$host" simulate --control "$work/sim.sock" \
    --request '{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://example.com/pi"}]}' >/dev/null
until_true 120 grep -q '^pi-smoke/door/tag.arrived ' "$work/received.out" || fail "no tap reached mosquitto"
cat "$work/received.out"
tap=$(grep '^pi-smoke/door/tag.arrived ' "$work/received.out")
[[ $tap == *04a224b2c35e80* ]] || fail "the published tap does not carry the tag's UID"
[[ $tap == *https://example.com/pi* ]] || fail "the published tap does not carry the tag's URI"

echo "== 3. the arm64 package in an arm64 trixie root"
package=$(ARCH=arm64 OUT=.build/pi-smoke COMPRESSION="gzip -z1" scripts/trixie/deb.sh)
dpkg-deb -f "$package" Architecture Depends
lintian --fail-on error --tag-display-limit 0 "$package" || fail "lintian finds errors in $package"
root=$(scripts/trixie/arm64-root.sh)
mkdir -p "$work/sandbox/upper/root"
cp "$package" "$work/sandbox/upper/root/tagrouter.deb"
LOWER=$root scripts/deb-sandbox.sh "$work/sandbox" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -euxc '
        uname -m; dpkg --print-architecture
        apt-get install -y -q --no-install-recommends /root/tagrouter.deb
        getent passwd tagrouter
        tagrouter --version
        tagrouter demo
    ' >"$work/package.log" 2>&1 || fail "installing the package or its demo failed"
cat "$work/package.log"
echo "OK: the arm64 build runs, routes a tap to mosquitto, and its package installs and passes the demo"
