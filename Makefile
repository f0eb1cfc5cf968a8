# tagrouter — the two commands a user needs are `make run` and `make test`.
SWIFT      ?= swift
SWIFTFLAGS ?= -Xswiftc -warnings-as-errors
CONFIG     ?= config/tagrouter.yaml

.PHONY: deps build release run test bench fuzz clean

## Install the Debian packages we build against (only those missing).
deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFTFLAGS)

## The deployable binary, .build/release/tagrouter (Swift runtime linked statically).
release: deps
	scripts/build-release.sh

## Build and run the daemon on the default config.
run: build
	$(SWIFT) run $(SWIFTFLAGS) tagrouter run --config $(CONFIG)

## The whole suite: unit, integration (libnfc + simulator, mosquitto, HTTP) and end to end.
test: deps
	$(SWIFT) build $(SWIFTFLAGS)
	$(SWIFT) test $(SWIFTFLAGS)

## Figures: throughput, latency, CPU and memory, each beside its baseline.
bench: deps release
	@scripts/bench.sh

## Coverage-guided fuzzing of the NDEF decoder and the Type 2 TLV walker.
fuzz: deps
	@scripts/fuzz.sh

clean:
	rm -rf .build
