# Tributary: the two commands README.md gives are `make demo` and `make test`.
# Both install what a fresh Debian 12 machine with the Swift toolchain lacks (libcurl headers,
# the tools the tests run) and use the release binary users run: .build/release/tributary,
# linked with the Swift runtime statically, so it needs no toolchain at run time.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The binary `make release` builds.
RELEASE_BIN := .build/release/tributary
# C libraries the build links: libcurl (OpenSSL flavour), libcrypto and SQLite, found through pkg-config.
APT_PACKAGES := libcurl4-openssl-dev libssl-dev libsqlite3-dev pkg-config
# Tools the tests run: readelf (binutils).
TOOL_PACKAGES := binutils

# Written by commit-header, git-ignored, read by Sources/CBuildInfo/build_info.c.
COMMIT_HEADER := Sources/CBuildInfo/generated/commit.h

.PHONY: deps test-tools commit-header build release demo test bench clean

# apt_ensure PACKAGES: install the packages with apt-get unless all of them are installed.
define apt_ensure
	@if ! dpkg -s $(1) >/dev/null 2>&1; then \
		echo "installing $(1) (apt-get)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(1) >/dev/null; \
	fi
endef

## deps: install the C libraries the build links if missing
deps:
	$(call apt_ensure,$(APT_PACKAGES))

## test-tools: install the tools the tests run if missing
test-tools:
	$(call apt_ensure,$(TOOL_PACKAGES))

## commit-header: write the commit (`git rev-parse --short HEAD`, `-dirty` with uncommitted
## changes) into $(COMMIT_HEADER) when it differs from what is there, so an unchanged commit
## rebuilds nothing and a new one recompiles one C file and relinks. Touching build_info.c
## also covers the header's first appearance, which the compiler's dependency file cannot know.
commit-header:
	@commit=unknown; \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		commit=$$(git rev-parse --short HEAD) && { git diff --quiet HEAD -- || commit=$$commit-dirty; }; \
	fi; \
	line="#define TRIBUTARY_COMMIT \"$$commit\""; \
	if [ "$$(cat $(COMMIT_HEADER) 2>/dev/null)" != "$$line" ]; then \
		mkdir -p $(dir $(COMMIT_HEADER)) && printf '%s\n' "$$line" > $(COMMIT_HEADER) && \
		touch Sources/CBuildInfo/build_info.c && echo "commit: $$commit" >&2; \
	fi

## build: debug build, .build/debug/tributary
build: deps commit-header
	$(SWIFT) build --product tributary

## release: .build/release/tributary, the binary users run and the tests test
release: deps commit-header
	$(SWIFT) build -c release --product tributary --static-swift-stdlib

## demo: run Sources-config/demo.json with the release binary from recorded responses (no
## network): readable items on the terminal, out/items.jsonl and out/feed.xml written
demo: release
	@rm -rf out && mkdir -p out
	$(RELEASE_BIN) run -c Sources-config/demo.json
	@echo "wrote out/items.jsonl ($$(wc -l < out/items.jsonl) items) and out/feed.xml" >&2

## test: the whole test suite (unit tests and end-to-end tests; all XCTest). The end-to-end
## tests drive the release binary; the test bundle itself is a debug build.
test: deps test-tools release
	$(SWIFT) build --build-tests
	TRIBUTARY_BIN=$(RELEASE_BIN) \
	TRIBUTARY_EXPECT_COMMIT="$$(sed -n 's/^#define TRIBUTARY_COMMIT "\(.*\)"$$/\1/p' $(COMMIT_HEADER))" \
	$(SWIFT) test --skip-build --disable-swift-testing

## bench: Tributary (the release binary) beside jq and orjson (see bench/README.md)
bench: release
	TRIBUTARY_BIN=$(RELEASE_BIN) bash bench/run.sh

clean:
	rm -rf .build out $(dir $(COMMIT_HEADER))
