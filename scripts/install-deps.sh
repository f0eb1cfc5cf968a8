#!/usr/bin/env bash
# Installs the Debian packages tagrouter builds and tests with, when any is missing, and the
# Python packages the tests use (scripts/test-requirements.txt) in .build/test-venv.
# Idempotent: does nothing (and needs no network) when everything is there.
#   --build  only what building and packaging need (`make release`, `make deb`, `make install`: a Pi
#            needs no test tools), and Debian's own Swift (swiftlang, Debian 13) when no `swift` is on PATH
#   --pi     also the tools of the Debian 13 / arm64 steps (scripts/trixie: `make check-603`,
#            `make deb ARCH=arm64`, `make pi-smoke`), and the binfmt entry that runs arm64 programs under qemu
#   --boot   also the tools of `make boot-test` (scripts/trixie/boot-test.sh): a Debian 13 tree booted with
#            systemd-nspawn, with the package built for it in the trixie chroot
set -euo pipefail
mode=${1:-}

packages=(                                 # building and packaging
  libnfc-dev libmosquitto-dev libpcsclite-dev libyaml-dev libssl-dev libcurl4-openssl-dev
  libsystemd-dev                           # sd_notify and the journal (CSystemd)
  libmicrohttpd-dev                        # the metrics and live-page listener (CMicroHTTPD)
  pkg-config dpkg-dev
)
if ! command -v swift >/dev/null || dpkg-query -W -f='${Status}' swiftlang 2>/dev/null | grep -q "ok installed"; then
  packages+=(swiftlang libstdc++-14-dev lld) # Debian 13's Swift 6.0.3; a static Swift runtime needs libstdc++
fi
if [ "$mode" != --build ]; then
  packages+=(
    libnfc-bin libnfc-examples             # nfc-list / nfc-poll / nfc-mfultralight
    mosquitto mosquitto-clients
    pcscd vsmartcard-vpcd                  # pcscd + the vpcd virtual reader for the PC/SC tests
    python3 python3-venv
    python3-jsonschema                     # tests check every event kind against docs/event.schema.json
    libnotify-bin                          # notify-send, for `open` with `confirm: true`
    alsa-utils                             # aplay: readers[].feedback.sound played into ALSA's null device
    chromium chromium-driver               # the live page tested in a real headless browser
    fakeroot lintian                       # `make deb`'s checks (Tests/PackagingTests)
    stress-ng                              # `make stress`: the suite run again and again beside a busy CPU
  )
fi
if [ "$mode" = --pi ]; then
  packages+=(
    mmdebstrap arch-test                   # the trixie chroot (Debian's swiftlang 6.0.3), the arm64 sysroot and root
    qemu-user-static binfmt-support        # runs the arm64 binary, and an arm64 chroot, on this machine
    binutils-aarch64-linux-gnu             # aarch64-linux-gnu-strip for the arm64 package
  )
fi
if [ "$mode" = --boot ]; then
  packages+=(
    mmdebstrap                             # the trixie trees: the chroot that builds the package, the tree that boots
    systemd-container                      # systemd-nspawn boots that tree with systemd as PID 1
  )
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing missing packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# arm64 programs that start others (dpkg in an arm64 chroot) need the kernel to know qemu.
if [ "$mode" = --pi ] && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  [ -e /proc/sys/fs/binfmt_misc/register ] || $sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  $sudo update-binfmts --enable qemu-aarch64
fi

[ "$mode" != --build ] || exit 0

# The test venv, (re)made when the requirements changed since it was made.
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build/test-venv"
requirements="$root/scripts/test-requirements.txt"
if ! cmp -s "$requirements" "$venv/requirements.txt"; then
  echo "Installing the tests' Python packages in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
