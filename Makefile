# tagrouter — the two commands a user needs are `make run` and `make test`.
SWIFT      ?= swift
SWIFTFLAGS ?= -Xswiftc -warnings-as-errors
CONFIG     ?= config/tagrouter.yaml
PREFIX     ?= /usr/local
DESTDIR    ?=
HOST_ARCH  := $(shell dpkg --print-architecture)
ARCH       ?= $(HOST_ARCH)
SUITE      ?=

.PHONY: deps build release run demo test bench fuzz soak stress clean deb install uninstall check-603 pi-smoke boot-test

## Install the Debian packages we build and test with (only those missing); `make test` uses it.
deps:
	@scripts/install-deps.sh

## Build with what building needs only (`make run`, `make demo`: no test tools, no browser).
build:
	@scripts/install-deps.sh --build
	$(SWIFT) build $(SWIFTFLAGS)

## The deployable binary, .build/release/tagrouter (Swift runtime linked statically).
release:
	@scripts/install-deps.sh --build
	scripts/build-release.sh

## Build and run the daemon on the default config.
run: build
	$(SWIFT) run $(SWIFTFLAGS) tagrouter run --config $(CONFIG)

## The two-minute tour, nothing to set up: the simulator, the daemon on a demo config, five tags (`tagrouter demo`).
demo: build
	$(SWIFT) run $(SWIFTFLAGS) tagrouter demo

## The whole suite: unit, integration (libnfc + simulator, mosquitto, HTTP) and end to end.
test: deps
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	@# Tests/PackagingTests package the release binary: rebuild it when missing or older than a source file or
	@# than the release link's order and scripts, which swift build does not track: the stale binary goes first,
	@# so it is linked again (a stale one would test an old program; an unchanged tree skips this slow step).
	@[ -x .build/release/tagrouter ] && [ -z "$$(find Package.swift Sources Plugins Readers scripts/release scripts/build-release.sh -newer .build/release/tagrouter -print -quit)" ] \
	  || { rm -f .build/release/tagrouter; scripts/build-release.sh --product tagrouter; }
	@# The suite mostly waits on simulators, brokers and daemons: TEST_LANES (default 4) processes side by side,
	@# each running its group of tests one at a time (scripts/test-lanes.py, docs/development/testing.md).
	scripts/test-lanes.py

## The product built with Debian 13's own Swift (swiftlang 6.0.3, what `apt install swiftlang` gives a Raspberry Pi)
## in a cached trixie chroot; needs root (docs/packaging.md "Debian 13 and arm64").
check-603:
	@scripts/install-deps.sh --pi
	scripts/trixie/check-603.sh

## Figures: throughput, latency, CPU and memory, each beside its baseline.
bench: deps release
	@scripts/bench.sh

## Coverage-guided fuzzing: NDEF decoder + TLV walker + JSON parser, config loader, templates.
## FUZZ_SECONDS per target (default 600), FUZZ_TARGETS to pick some (ndef config template spool control command).
fuzz: deps
	@scripts/fuzz.sh

## SOAK_TAPS events (default 100000) through MQTT, webhook, shell and exec under faults; every event accounted for.
soak: deps release
	@scripts/soak.py

## Is the suite flaky? RUNS (default 10) consecutive `make test` from a fresh clone of HEAD, one CPU kept busy
## by stress-ng; the record is in docs/testing.md.
stress:
	@scripts/stress-test.sh

## The Debian package, dist/tagrouter_<version>-<revision>_<arch>.deb (docs/packaging.md), for this machine's
## Debian release. ARCH=arm64: cross-compiled for a Raspberry Pi on Debian 13 / Raspberry Pi OS trixie;
## SUITE=trixie: amd64 for Debian 13 (dist/trixie/). Both with Debian's own Swift 6.0.3 in a chroot (root).
deb:
	@if [ "$(ARCH)" = "$(HOST_ARCH)" ] && [ -z "$(SUITE)" ]; then \
	  scripts/install-deps.sh --build && scripts/build-release.sh --product tagrouter && scripts/build-deb.sh; \
	elif [ -z "$(SUITE)" ] || [ "$(SUITE)" = trixie ]; then \
	  scripts/install-deps.sh --pi && ARCH=$(ARCH) scripts/trixie/deb.sh; \
	else echo "SUITE=$(SUITE): packages are made for this machine's release or for trixie" >&2; exit 2; fi

## The arm64 build under qemu: version, decode, a tap from the simulator to mosquitto, and the package
## installed in an arm64 trixie root passing `tagrouter demo` (a CI step of its own: ~10 min; root).
pi-smoke:
	@scripts/install-deps.sh --pi
	scripts/trixie/arm64-smoke.sh

## The package as systemd runs it: a Debian 13 tree (cached) booted with systemd-nspawn, the trixie package
## installed with apt, the unit as shipped; one line per check (docs/packaging.md "The boot test"; root).
boot-test:
	@scripts/install-deps.sh --boot
	scripts/trixie/boot-test.sh

## Install the release binary, config, units, udev rules, man page, … under $(DESTDIR)$(PREFIX) (config in /etc).
install:
	@scripts/install-deps.sh --build
	scripts/build-release.sh --product tagrouter
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" scripts/install-files.sh install

## Remove what `make install` installed (a config you changed stays).
uninstall:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" scripts/install-files.sh uninstall

clean:
	rm -rf .build dist
