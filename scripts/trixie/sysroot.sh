#!/usr/bin/env bash
# Makes (once) an arm64 sysroot from Debian 13's arm64 packages and a Swift SDK bundle around it
# for cross-compiling with Debian's swiftlang 6.0.3 (scripts/trixie/chroot.sh), and prints the
# bundle's folder (it holds trixie-arm64.artifactbundle; the SDK is named "trixie-arm64").
#
# The sysroot is the dependency closure of libc6-dev, libstdc++-14-dev, the product's -dev packages
# and swiftlang, extracted (not installed: no arm64 program runs) by mmdebstrap; of swiftlang only
# the Swift and clang resource folders are kept (the aarch64 standard library, static and shared).
# Cached under TRIXIE_CACHE in a folder keyed by the package list. Needs root and mmdebstrap.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/trixie/common.sh
source "$here/common.sh"

packages=(libc6-dev libstdc++-14-dev libgcc-14-dev swiftlang "${trixie_dev_packages[@]}")
make_bundle() {
    local bundle=$1
    shift
    local artifact=$bundle/trixie-arm64.artifactbundle
    local sysroot=$artifact/sysroot
    mkdir -p "$artifact"
    trixie_mmdebstrap arm64 extract "$sysroot" "$@"

    # Of the toolchain, only what a target build reads: the aarch64 Swift modules and runtime
    # (shared and static) and clang's headers.
    swift=$sysroot/usr/libexec/swift
    keep=$(mktemp -d)
    mv "$swift/lib/swift" "$swift/lib/swift_static" "$swift/lib/clang" "$keep/"
    rm -rf "$swift"
    mkdir -p "$swift/lib"
    mv "$keep"/* "$swift/lib/"
    rmdir "$keep"
    rm -rf "$sysroot"/usr/share/{doc,man,locale,info} "$sysroot"/var "$sysroot"/etc
    # Absolute symlinks point into the build machine's own root: make them relative to the sysroot.
    find "$sysroot" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
    done
    for folder in lib bin sbin; do [ -e "$sysroot/$folder" ] || ln -s "usr/$folder" "$sysroot/$folder"; done
    [ -e "$sysroot/lib64" ] || ln -s usr/lib64 "$sysroot/lib64"

    # The driver reads it from any SDK (and warns when it is missing), as swift-sdk-generator writes it.
    cat >"$sysroot/SDKSettings.json" <<JSON
{ "DisplayName": "Debian 13 arm64", "Version": "0.0.1", "VersionMap": {}, "CanonicalName": "linux" }
JSON
    cat >"$artifact/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "trixie-arm64": {
      "type": "swiftSDK",
      "version": "6.0.3",
      "variants": [{ "path": "." }]
    }
  }
}
JSON
    cat >"$artifact/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "sysroot",
      "swiftResourcesPath": "sysroot/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "sysroot/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
    cat >"$artifact/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "linker": { "path": "/usr/bin/ld.lld" },
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
JSON
}
trixie_tree sdk-arm64 make_bundle "${packages[@]}"
