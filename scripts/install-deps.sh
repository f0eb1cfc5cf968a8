#!/usr/bin/env bash
# Installs the Debian packages tagrouter builds and tests with, when any is missing.
# Idempotent: does nothing (and needs no network) when everything is there.
set -euo pipefail

packages=(
  libnfc-dev libnfc-bin libnfc-examples   # libnfc, nfc-list / nfc-poll / nfc-mfultralight
  libmosquitto-dev mosquitto mosquitto-clients
  libpcsclite-dev pcscd vsmartcard-vpcd   # PC/SC readers; pcscd + the vpcd virtual reader for the PC/SC tests
  libyaml-dev libssl-dev libcurl4-openssl-dev
  pkg-config python3 python3-venv
  python3-jsonschema                       # tests check every event kind against docs/event.schema.json
  libnotify-bin                            # notify-send, for `open` with `confirm: true`
  libsystemd-dev                           # sd_notify and the journal (CSystemd)
  dpkg-dev fakeroot lintian                # `make deb` and its checks (Tests/PackagingTests)
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
