# Tributary: the two commands README.md gives are `make demo` and `make test`.
# Both install what a fresh Debian 12 machine with the Swift toolchain lacks (libcurl headers).

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/debug/tributary
# C libraries the build links: libcurl (OpenSSL flavour), libcrypto and SQLite, found through pkg-config.
APT_PACKAGES := libcurl4-openssl-dev libssl-dev libsqlite3-dev pkg-config
# Written by commit-header, git-ignored, read by Sources/CBuildInfo/build_info.c.
COMMIT_HEADER := Sources/CBuildInfo/generated/commit.h

.PHONY: deps commit-header build demo test bench clean

## deps: install the C libraries the build links if missing
deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		echo "installing $(APT_PACKAGES) (apt-get)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi

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

build: deps commit-header
	$(SWIFT) build --product tributary

## demo: run Sources-config/demo.json from recorded responses (no network):
## readable items on the terminal, out/items.jsonl and out/feed.xml written
demo: build
	@rm -rf out && mkdir -p out
	$(BIN) run -c Sources-config/demo.json
	@echo "wrote out/items.jsonl ($$(wc -l < out/items.jsonl) items) and out/feed.xml" >&2

## test: the whole test suite (unit tests and end-to-end tests of the real binary; all XCTest)
test: deps commit-header
	$(SWIFT) build --build-tests
	TRIBUTARY_EXPECT_COMMIT="$$(sed -n 's/^#define TRIBUTARY_COMMIT "\(.*\)"$$/\1/p' $(COMMIT_HEADER))" \
	$(SWIFT) test --skip-build --disable-swift-testing

## bench: release build, then Tributary beside jq and orjson (see bench/README.md)
bench: deps
	bash bench/run.sh

clean:
	rm -rf .build out $(dir $(COMMIT_HEADER))
