# assetsync: `make deps build test bench`. See README.md.
SHELL := /bin/bash
export PATH := $(if $(wildcard /opt/swift/usr/bin),/opt/swift/usr/bin:,)$(PATH)

# Every Debian package that building, testing and benchmarking need.
DEBIAN_PACKAGES := libcurl4-openssl-dev libxml2-dev zlib1g-dev libisal-dev libssl-dev libsodium-dev pkg-config nginx curl gzip time util-linux python3 \
	ca-certificates openssl strace tmux python3-venv groff-base man-db zsh fish xfsprogs minisign zsync aria2
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
RELEASE_BIN := .build/release/assetsync
# A target that imports another without declaring it a dependency fails the build: the layers
# in Package.swift hold even where the build order would happen to make the module visible.
LAYERS := --explicit-target-dependency-import-check error

PREFIX ?= /usr/local
# An S3-compatible server and client (moto's server mode, boto3) in a virtual environment of the build's own.
MOTO_VENV := .build/moto
MOTO_PACKAGES := 'moto[s3]==5.2.5' 'flask==3.1.3' 'flask-cors==6.0.5'
# What `make install` puts under $(DESTDIR)$(PREFIX): the binary; the manual page and the bash, zsh
# and fish completions, which the binary prints from its own help and command specs; and the systemd
# units of docs/scheduling.md, as examples to copy to /etc/systemd/system and edit (their ExecStart=
# names the installed binary).
UNITS := share/doc/assetsync/contrib/systemd
INSTALLED := bin/assetsync share/man/man1/assetsync.1 share/bash-completion/completions/assetsync \
	share/zsh/site-functions/_assetsync share/fish/vendor_completions.d/assetsync.fish \
	$(UNITS)/assetsync-pull.service $(UNITS)/assetsync-pull.timer
# $(call put,COMMAND,FILE): what COMMAND prints, installed as FILE (mode 0644, replaced by a rename).
put = $(1) > $(DESTDIR)$(PREFIX)/$(2).new && chmod 0644 $(DESTDIR)$(PREFIX)/$(2).new && mv $(DESTDIR)$(PREFIX)/$(2).new $(DESTDIR)$(PREFIX)/$(2)
# A unit as installed: ExecStart= names the binary under PREFIX.
UNIT_FOR_PREFIX := sed 's|/usr/local/bin/assetsync|$(PREFIX)/bin/assetsync|g'

.PHONY: all deps build debug library docs api-dump api-check api-baseline install install-built uninstall test example demo bench bench-peers bench-s3 bench-manifest bench-pull bench-noop bench-verify bench-fleet bench-atomic bench-sha256 bench-delta bench-signing bench-profile fuzz sanitize torture soak clean

all: build

deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "Installing:" $$missing; \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@# moto's S3 server for ObjectStorageTests, from PyPI; without it those tests are skipped, with the reason.
	@if [ ! -x $(MOTO_VENV)/bin/moto_server ]; then \
	    echo "Installing moto (S3 server for the object-storage tests) into $(MOTO_VENV)"; \
	    rm -rf $(MOTO_VENV) && python3 -m venv $(MOTO_VENV) && \
	    $(MOTO_VENV)/bin/pip install -q --disable-pip-version-check $(MOTO_PACKAGES) \
	    || { rm -rf $(MOTO_VENV); echo "warning: moto could not be installed from PyPI: ObjectStorageTests will be skipped"; }; \
	fi

build: deps
	swift build -c release --product assetsync $(LAYERS)

debug: deps
	swift build $(LAYERS)

install: build
	$(MAKE) --no-print-directory install-built

# `make install` of the binary already at $(RELEASE_BIN), without building it (the install test runs this).
install-built:
	install -d $(addprefix $(DESTDIR)$(PREFIX)/,$(sort $(dir $(INSTALLED))))
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/assetsync
	$(call put,$(RELEASE_BIN) --generate-manual,share/man/man1/assetsync.1)
	$(call put,$(RELEASE_BIN) --generate-completion-script bash,share/bash-completion/completions/assetsync)
	$(call put,$(RELEASE_BIN) --generate-completion-script zsh,share/zsh/site-functions/_assetsync)
	$(call put,$(RELEASE_BIN) --generate-completion-script fish,share/fish/vendor_completions.d/assetsync.fish)
	$(call put,$(UNIT_FOR_PREFIX) contrib/systemd/assetsync-pull.service,$(UNITS)/assetsync-pull.service)
	$(call put,$(UNIT_FOR_PREFIX) contrib/systemd/assetsync-pull.timer,$(UNITS)/assetsync-pull.timer)

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))
	-rmdir $(DESTDIR)$(PREFIX)/$(UNITS) $(DESTDIR)$(PREFIX)/share/doc/assetsync/contrib $(DESTDIR)$(PREFIX)/share/doc/assetsync

# Integration tests run the release binary: hostile fixtures (gzip bombs) and
# transfers take seconds in a debug build but a fraction of that optimised. Then AssetSync's public
# API is checked against its baseline (`make api-check`).
test: deps
	swift build -c release --product assetsync $(LAYERS)
	swift build --build-tests $(LAYERS)
	ASSETSYNC_BIN=$(CURDIR)/$(RELEASE_BIN) swift test --skip-build
	Examples/run.sh
	$(MAKE) --no-print-directory api-check

# The library from a package of its own (Examples/PullExample, built in .build/examples) against a
# local nginx: pull, pull again, verify, a missing file, invalid input, Ctrl-C; see Examples/run.sh.
example: deps
	Examples/run.sh

# The AssetSync library, its documentation and its public API. `make docs` and `make api-check` both
# read the debug build's AssetSync module, as a client would see it: swift-symbolgraph-extract and
# swift-api-digester load it from .build/debug/Modules, with the directories of the C modules' maps
# it was built against (expanded only when a recipe runs, after `library` built them). Reading the
# built module rather than building with -emit-symbol-graph keeps the compiler's flags those of
# `make debug` and `make test`, so that neither rebuilds what the other built.
TRIPLE := $(shell uname -m)-unknown-linux-gnu
MODULE_SEARCH = -I .build/debug/Modules \
	$(patsubst %/module.modulemap,-I %,$(wildcard Sources/C*/module.modulemap .build/debug/C*.build/module.modulemap)) \
	-target $(TRIPLE) -module-cache-path .build/tools/ModuleCache
API_BASELINE := api/AssetSync.json
API_DUMP := .build/api/AssetSync.json

library: deps
	swift build --target AssetSync $(LAYERS)

# The DocC archive of AssetSync (Sources/AssetSync/AssetSync.docc and the module's symbol graph) at
# .build/docs/AssetSync.doccarchive; a docc warning (a broken link, an unknown symbol) fails it.
docs: library
	rm -rf .build/docs && mkdir -p .build/docs/symbol-graphs
	swift-symbolgraph-extract -module-name AssetSync $(MODULE_SEARCH) -minimum-access-level public \
	    -output-dir .build/docs/symbol-graphs
	docc convert Sources/AssetSync/AssetSync.docc --additional-symbol-graph-dir .build/docs/symbol-graphs \
	    --fallback-display-name AssetSync --fallback-bundle-identifier assetsync.AssetSync \
	    --warnings-as-errors --output-path .build/docs/AssetSync.doccarchive

# AssetSync's public API (swift-api-digester's dump, without paths or tool arguments) against the
# baseline committed in api/: any difference fails, with the breaking changes and the declarations
# added or removed. `make api-baseline` accepts the API as it now is.
api-dump: library
	@mkdir -p $(dir $(API_DUMP))
	swift-api-digester -dump-sdk -module AssetSync $(MODULE_SEARCH) -avoid-location -avoid-tool-args -abort-on-module-fail \
	    -o $(API_DUMP)
	api/public_only.py $(API_DUMP)

api-check: api-dump
	api/check.py $(API_BASELINE) $(API_DUMP)

api-baseline: api-dump
	cp $(API_DUMP) $(API_BASELINE)
	@echo "$(API_BASELINE) now holds AssetSync's public API: commit it with the change that made it."

# The main job end to end against a local nginx; see demo/run.sh.
demo: build
	demo/run.sh $(RELEASE_BIN)

# bench-peers first: its report (docs/performance.md) is the table issue 10 asks for; bench-s3 then
# writes its section of that file (which bench-peers keeps).
bench: bench-peers bench-s3 bench-manifest bench-pull bench-noop bench-verify bench-fleet bench-atomic bench-sha256 bench-delta bench-signing

bench-peers: build
	bench/peers/run.sh $(RELEASE_BIN)

# assetsync, aws s3 sync, rclone and s3cmd pulling sets B and C from moto with authentication on
# (moto from `make deps`, the peers from apt); its section of docs/performance.md.
bench-s3: build
	bench/s3/run.sh $(RELEASE_BIN)

bench-manifest: build
	bench/manifest/run.sh $(RELEASE_BIN)

bench-pull: build
	bench/pull/run.sh $(RELEASE_BIN)

bench-noop: build
	bench/noop/run.sh $(RELEASE_BIN)

bench-atomic: build
	bench/atomic/run.sh $(RELEASE_BIN)

bench-delta: build
	bench/delta/run.sh $(RELEASE_BIN)

bench-signing: build
	bench/signing/run.sh $(RELEASE_BIN)

# Not part of `make bench`: where a pull's threads spend their time, under strace (bench/profile).
bench-profile: build
	bench/profile/run.sh $(RELEASE_BIN)

bench-verify: build
	bench/verify/run.sh $(RELEASE_BIN)

# A SHA-256 per entry against a CRC-32 alone, on one large file and many small ones.
bench-sha256: build
	bench/sha256/run.sh $(RELEASE_BIN)

# Agents pulling one set at once, straight from an origin and through a site cache; see docs/fleet.md.
bench-fleet: build
	bench/fleet/run.sh $(RELEASE_BIN)

# Every K of every tortured syscall (TortureTests), then kill -9 at 100 random moments of a large pull
# (KillTortureTests), 50 pulls under a reader and 100 kills of --atomic pulls (AtomicTortureTests), with
# ASSETSYNC_TORTURE=1: prints the number of cases and every failure. Within 20 minutes here.
torture: deps
	swift build -c release --product assetsync $(LAYERS)
	swift build --build-tests $(LAYERS)
	set -o pipefail; ASSETSYNC_TORTURE=1 ASSETSYNC_BIN=$(CURDIR)/$(RELEASE_BIN) swift test --skip-build --filter 'TortureTests|RunInvariantsTests' \
	    2>&1 | grep -v '^↳ ///' | tee /dev/stderr | grep -E '^torture: [a-z -]+: [0-9]+ cases'

# Repeated `pull --delete` of about 300 files through a server that picks a fault for every request, with
# the manifest changing and SIGTERM at random (SoakTests, ASSETSYNC_SOAK=1), for ASSETSYNC_SOAK_SECONDS (600):
# prints runs, requests, faults, SIGTERMs, and peak RSS and descriptors. ASSETSYNC_SOAK_SEED replays a seed.
soak: deps
	swift build -c release --product assetsync $(LAYERS)
	swift build --build-tests $(LAYERS)
	set -o pipefail; ASSETSYNC_SOAK=1 ASSETSYNC_BIN=$(CURDIR)/$(RELEASE_BIN) swift test --skip-build --filter SoakTests \
	    2>&1 | grep -v '^↳ ///' | tee /dev/stderr | grep -E '^soak: '

# libFuzzer with the address sanitizer on the manifest readers, the on-disk records and the
# server-controlled HTTP text: 20 minutes in all (FUZZ_SECONDS per target). See fuzz/README.md.
fuzz: build
	fuzz/run.sh $(RELEASE_BIN)

# The unit tests and a pull of many files under the thread, then the address sanitizer, each
# built in its own build path (.build/tsan, .build/asan); fails on any report. See bench/README.md.
sanitize: deps
	bench/sanitize/run.sh

clean:
	rm -rf .build bench/out demo/out demo-cache
