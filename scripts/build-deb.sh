#!/usr/bin/env bash
# `make deb`: builds dist/tagrouter_<version>-<revision>_<arch>.deb with dpkg-deb.
# The files are the ones `make install` installs (scripts/install-files.sh, with
# PREFIX=/usr); the version is Version.swift's, and packaging/debian/changelog
# must have an entry for it; Depends is what the binary links, as dpkg-shlibdeps
# reads it. Settings: BINARY (default .build/release/tagrouter), OUT (default dist),
# COMPRESSION (default xz; the tests use `gzip -z1`: xz takes a minute on 60 MB), ARCH (default
# this machine's; arm64 for a cross-built BINARY, then STRIP=aarch64-linux-gnu-strip and run where
# dpkg knows the arm64 libraries, as scripts/trixie/deb.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

BINARY=${BINARY:-.build/release/tagrouter}
OUT=${OUT:-dist}
COMPRESSION=${COMPRESSION:-xz}
[ -x "$BINARY" ] || { echo "error: $BINARY is not built (run \`make release\`, or set BINARY)" >&2; exit 1; }

upstream=$(sed -n 's/^public let tagrouterVersion = "\(.*\)"$/\1/p' Sources/TagCore/Version.swift)
version=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
if [[ $version != "$upstream"-* ]]; then
  echo "error: packaging/debian/changelog's newest entry is $version, Sources/TagCore/Version.swift says $upstream:" \
    "add an entry '$upstream-1' (dch -v $upstream-1)" >&2
  exit 1
fi
arch=${ARCH:-$(dpkg --print-architecture)}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
DESTDIR=$root PREFIX=/usr BINARY=$BINARY scripts/install-files.sh install >/dev/null
gzip -9n <packaging/debian/changelog >"$root/usr/share/doc/tagrouter/changelog.Debian.gz"

# Depends from the libraries the installed (stripped) binary links; dpkg-shlibdeps
# wants a debian/control to read, so give it a minimal one.
mkdir -p "$stage/debian"
printf 'Source: tagrouter\n\nPackage: tagrouter\nArchitecture: any\n' >"$stage/debian/control"
shlibs=$(cd "$stage" && DEB_HOST_ARCH=$arch dpkg-shlibdeps -O "$root/usr/bin/tagrouter" 2>/dev/null)
depends=${shlibs#shlibs:Depends=}
# The release link packs relative relocations (DT_RELR, Package.swift), which glibc loads from 2.36 on;
# dpkg-shlibdeps reads only the versioned symbols and would promise an older libc6.
if readelf -d "$root/usr/bin/tagrouter" | grep -q '(RELR)'; then
    depends=$(printf '%s' "$depends" | sed -E 's/libc6 \(>= 2\.(1?[0-9]|2[0-9]|3[0-5])(\.[0-9]+)?\)/libc6 (>= 2.36)/')
fi
# Libraries the daemon opens with dlopen only when a feature needs them (SystemKit's SharedLibrary), so they are
# not in the binary's DT_NEEDED and dpkg-shlibdeps does not see them: libcurl for a webhook action,
# libmicrohttpd for a metrics listener, libsystemd when run under systemd.
dlopened="libcurl4, libmicrohttpd12, libsystemd0"

mkdir "$root/DEBIAN"
install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
echo /etc/tagrouter/tagrouter.yaml >"$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
cat >"$root/DEBIAN/control" <<CONTROL
Package: tagrouter
Version: $version
Architecture: $arch
Maintainer: $(dpkg-parsechangelog -l packaging/debian/changelog -S Maintainer)
Installed-Size: $(du -k -s --exclude=DEBIAN "$root" | cut -f1)
Depends: adduser, $depends
Recommends: $dlopened
Suggests: mosquitto, pcscd, alsa-utils | pipewire-bin | pulseaudio-utils
Section: utils
Priority: optional
Description: NFC tag taps to actions: MQTT, Home Assistant, scripts, webhooks
 tagrouter watches NFC readers (PN532 boards, ACS ACR122U, anything libnfc
 drives), reads and decodes each tag that touches one (NDEF: URIs, text,
 Wi-Fi credentials, JSON) and turns the tap into actions chosen by rules in a
 YAML file: publish to MQTT (with Home Assistant discovery), run a command,
 open a link in the desktop session, call a webhook, or hand the event to a
 plugin of your own.
 .
 The package runs it as a hardened system service (user tagrouter) that logs
 every tap to the journal, with udev rules that let it open USB and serial
 readers. It also reads, writes and decodes tags from the command line, and
 simulates a PN532 reader for trying routes without hardware.
CONTROL

mkdir -p "$OUT"
package=$OUT/tagrouter_${version}_${arch}.deb
# shellcheck disable=SC2086 # COMPRESSION is an algorithm and, optionally, a level: "gzip -z1"
dpkg-deb --root-owner-group -Z$COMPRESSION --build "$root" "$package" >/dev/null
echo "$package"
