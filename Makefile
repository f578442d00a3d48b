# Tributary: the two commands README.md gives are `make demo` and `make test`.
# Both install what a fresh Debian 12 machine with the Swift toolchain lacks (libcurl headers).

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/debug/tributary
# C libraries the build links: libcurl (OpenSSL flavour), libcrypto and SQLite, found through pkg-config.
APT_PACKAGES := libcurl4-openssl-dev libssl-dev libsqlite3-dev pkg-config

.PHONY: deps build demo test bench clean

## deps: install the C libraries the build links if missing
deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		echo "installing $(APT_PACKAGES) (apt-get)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi

build: deps
	$(SWIFT) build --product tributary

## demo: run Sources-config/demo.json from recorded responses (no network):
## readable items on the terminal, out/items.jsonl and out/feed.xml written
demo: build
	@rm -rf out && mkdir -p out
	$(BIN) run -c Sources-config/demo.json
	@echo "wrote out/items.jsonl ($$(wc -l < out/items.jsonl) items) and out/feed.xml" >&2

## test: the whole test suite (unit tests and end-to-end tests of the real binary; all XCTest)
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

## bench: release build, then Tributary beside jq and orjson (see bench/README.md)
bench: deps
	bash bench/run.sh

clean:
	rm -rf .build out
