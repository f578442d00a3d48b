# Tributary: the two commands README.md gives are `make demo` and `make test`.
# Both install what a fresh Debian 12 machine with the Swift toolchain lacks (libcurl headers,
# the tools the tests run) and use the release binary users run: .build/release/tributary,
# linked with the Swift runtime statically, so it needs no toolchain at run time.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The binary `make release` builds; install and package-deb take another one with RELEASE_BIN=.
RELEASE_BIN ?= .build/release/tributary
VERSION := $(shell sed -n 's/^ *public static let version = "\(.*\)"$$/\1/p' Sources/TributaryBase/System/Values.swift 2>/dev/null)
# C libraries the build needs: SQLite (linked, found through pkg-config) and the headers of
# libcurl (OpenSSL flavour), libcrypto, PCRE2, libxml2, libpq, the NATS C client and libjq, which the
# binary opens with dlopen on first use (libxml2-dev brings libxml2, which the feed source loads at
# run time for RSS and Atom; libjq-dev brings libjq1, for jq programs).
# libstdc++-12-dev: `--static-swift-stdlib` links the Swift runtime's C++ parts against
# libstdc++ (GCC 12's, Debian 12's), which the toolchain's own dependencies (gcc) do not bring.
APT_PACKAGES := libcurl4-openssl-dev libssl-dev libsqlite3-dev libpcre2-dev libxml2-dev libpq-dev libnats-dev libjq-dev pkg-config libstdc++-12-dev
# What the demo runs besides the binary: its exec source's plugin is a Python program (the
# toolchain's dependencies bring libpython3 but no python3).
DEMO_PACKAGES := python3
# Tools the tests run: readelf (binutils), systemd-analyze (systemd), dpkg-shlibdeps (dpkg-dev),
# the shells and man that check the generated completion scripts and man page, a Python venv
# (python3-venv, which brings python3 and the pip wheel its ensurepip installs) for the Python
# tools below, a PostgreSQL server and psql (postgresql) for the shared-state tests, runuser
# (util-linux), the NATS server with JetStream (nats-server), sqlite3 (the state file's own
# shell, which writes old schemas), curl (the scale-out recipe asks its servers whether they
# are up), openssl (a self-signed certificate for a TLS server) and faketime (a preload that moves
# the environment, for the argument tests), jq (the jq processor's output beside the jq command's), nginx (the HTTP/2
# test's TLS server, run by the test in the foreground on a free port), prometheus (its promtool checks and
# unit-tests the alerting rules in Sources-config/prometheus/; the server is not started) and chromium (headless,
# scripts off: the browser that loads `watch`'s status page, dumps its DOM and takes its screenshot). Installed
# without apt's recommended packages: each one's own dependencies are all the tests use
# (TributaryTestSupport/Tools.swift names the package of every program a test runs).
TOOL_PACKAGES := binutils systemd dpkg-dev zsh fish man-db groff-base python3-venv postgresql util-linux nats-server sqlite3 curl openssl faketime jq nginx prometheus chromium
# The tests' Python tools, from PyPI into a venv of their own: the feed readers
# (TributaryTestSupport/FeedReader): feedparser for RSS and Atom, fastfeedparser for JSON Feed
# (released feedparser reads none); prometheus_client, whose text-format parser reads the
# metrics (TributaryTestSupport/PrometheusReader); nats-py, which reads streams back
# (TributaryTestSupport/NATSReader).
TEST_VENV := .build/test-tools/venv
FEEDPARSER_VERSION := 6.0.14
FASTFEEDPARSER_VERSION := 0.6.5
PROMETHEUS_CLIENT_VERSION := 0.26.0
NATS_PY_VERSION := 2.16.0
HTML5LIB_VERSION := 1.1

# Written by commit-header, git-ignored, read by Sources/CBuildInfo/build_info.c.
COMMIT_HEADER := Sources/CBuildInfo/generated/commit.h

# make install [PREFIX=/usr/local] [DESTDIR=]
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
DOCDIR = $(PREFIX)/share/doc/tributary
# Where bash-completion, zsh and fish look for completion scripts under PREFIX.
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR = $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(PREFIX)/share/fish/vendor_completions.d
# systemd reads system units from /usr/local/lib/systemd/system too (Docs/scheduling.md).
UNITDIR = $(PREFIX)/lib/systemd/system
UNITS := tributary.service tributary.timer tributary-watch.service

# make deb
ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB := tributary_$(VERSION)_$(ARCH).deb
DEB_DIR ?= .
DEB_BUILD ?= .build/deb
DEB_COMPRESSION ?= xz
DEB_MAINTAINER ?= Tributary maintainers <maintainers@users.noreply.a-seed-56b6c804.example>
DEB_ROOT = $(DEB_BUILD)/debian/tributary

.PHONY: deps test-tools commit-header generate build release demo test stress sanitize sanitize-thread sanitize-address sanitize-ci fuzz bench install uninstall deb package-deb clean

# apt_ensure PACKAGES: install the packages with apt-get unless all of them are installed;
# only what they depend on, not what apt recommends beside them (with recommends, the test
# tools pulled in 107 packages, among them a mail server, cron and a C compiler).
define apt_ensure
	@if ! dpkg -s $(1) >/dev/null 2>&1; then \
		echo "installing $(1) (apt-get)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(1) >/dev/null; \
	fi
endef

# apt_ensure_no_start PACKAGES: apt_ensure, with the packages' services not started by the
# install (a policy-rc.d that says no, for the install only, unless the machine has its own):
# Debian's nginx would otherwise start a system nginx on port 80, and postgresql a cluster on
# 5432; the tests start their own servers, on free ports.
define apt_ensure_no_start
	@if ! dpkg -s $(1) >/dev/null 2>&1; then \
		echo "installing $(1) (apt-get; their services are not started)"; \
		made=; if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' | $(SUDO) tee /usr/sbin/policy-rc.d >/dev/null && $(SUDO) chmod 755 /usr/sbin/policy-rc.d && made=1; fi; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(1) >/dev/null; status=$$?; \
		if [ -n "$$made" ]; then $(SUDO) rm -f /usr/sbin/policy-rc.d; fi; exit $$status; \
	fi
endef

## deps: install the C libraries the build links if missing
deps:
	$(call apt_ensure,$(APT_PACKAGES))

## test-tools: install the tools the tests and `make deb` run if missing
test-tools:
	$(call apt_ensure_no_start,$(TOOL_PACKAGES))
	@if ! $(TEST_VENV)/bin/python3 -c 'import feedparser, fastfeedparser, prometheus_client, nats, html5lib' 2>/dev/null; then \
		echo "installing feedparser $(FEEDPARSER_VERSION), fastfeedparser $(FASTFEEDPARSER_VERSION), prometheus_client $(PROMETHEUS_CLIENT_VERSION) nats-py $(NATS_PY_VERSION) and html5lib $(HTML5LIB_VERSION) into $(TEST_VENV) (pip)"; \
		python3 -m venv $(TEST_VENV) && $(TEST_VENV)/bin/pip install -q --disable-pip-version-check \
			feedparser==$(FEEDPARSER_VERSION) fastfeedparser==$(FASTFEEDPARSER_VERSION) prometheus_client==$(PROMETHEUS_CLIENT_VERSION) nats-py==$(NATS_PY_VERSION) html5lib==$(HTML5LIB_VERSION); \
	fi

## commit-header: write the commit (`git rev-parse --short HEAD`, `-dirty` with uncommitted
## changes) into $(COMMIT_HEADER) when it differs from what is there, so an unchanged commit
## rebuilds nothing and a new one recompiles build_info.c and the small TributaryCLI module and
## relinks (seconds). Touching build_info.c also covers the header's first appearance, which
## the compiler's dependency file cannot know.
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

## generate: rewrite every generated file from its declaration (Docs/ option tables and the
## synopsis in README.md and Docs/, the config schema, the man page and completion scripts,
## the HTML entity and slug tables); RepositoryTests' GeneratedFilesTests fails on a stale one
generate: deps
	$(SWIFT) run tributary-generate

## build: debug build, .build/debug/tributary
build: deps commit-header
	$(SWIFT) build --product tributary

## release: .build/release/tributary, the binary users run, tests test and packages install
release: deps commit-header
	$(SWIFT) build -c release --product tributary --static-swift-stdlib

## demo: run Sources-config/demo.json with the release binary from recorded responses (no
## network): readable items on the terminal, out/items.jsonl, out/feed.xml, out/feed.atom and
## out/items.sqlite (for `tributary search`) written
demo: release
	$(call apt_ensure,$(DEMO_PACKAGES))
	@rm -rf out && mkdir -p out
	$(RELEASE_BIN) run -c Sources-config/demo.json
	@echo "wrote out/items.jsonl ($$(wc -l < out/items.jsonl) items), out/feed.xml, out/feed.atom and out/items.sqlite" >&2

## test: the whole test suite (unit tests and end-to-end tests; all XCTest). The end-to-end
## tests drive the release binary; the test bundle itself is a debug build.
# The classes run TEST_JOBS at a time, a process each (Tools/run-tests.py): the suite mostly
# waits (loopback servers, timeouts, signals, a minute-long soak), and every class starts its
# own servers on free ports in its own scratch folders. A line per class; the whole log of each
# class that failed; every class's log in .build/test-logs.
TEST_JOBS ?= 3
TEST_BUNDLE = .build/debug/TributaryPackageTests.xctest
test: deps test-tools release
	$(SWIFT) build --build-tests
	TRIBUTARY_BIN=$(RELEASE_BIN) \
	TRIBUTARY_EXPECT_COMMIT="$$(sed -n 's/^#define TRIBUTARY_COMMIT "\(.*\)"$$/\1/p' $(COMMIT_HEADER))" \
	python3 Tools/run-tests.py $(TEST_BUNDLE) --jobs $(TEST_JOBS) --logs .build/test-logs

## stress: the stress tests (every source type and the demo, run again and again with the
## release binary, exact items every time) with many more runs than make test's 200
STRESS_RUNS ?= 2000
stress: deps release
	$(SWIFT) build --build-tests
	TRIBUTARY_BIN=$(RELEASE_BIN) STRESS_RUNS=$(STRESS_RUNS) $(SWIFT) test --skip-build --disable-swift-testing --filter StressTests

# sanitizer_pass KIND SCRATCH ONLY SKIP: build the tests and the binary with -sanitize=KIND in
# their own build folder and run the tests ONLY matches (empty: all) but SKIP, SANITIZE_JOBS
# classes at a time (Tools/run-tests.py), with that binary under test. Every
# report fails the pass: TSan and ASan write them to $(SCRATCH)/reports, and the pass fails
# when that folder holds any. Suppressions: none. SWIFT_BACKTRACE=enable=no: a failed assertion
# ends the process at once (the backtracer forking under TSan hangs in a TSan CHECK).
define sanitizer_pass
	$(SWIFT) build --build-tests --sanitize=$(1) --scratch-path $(2)
	@rm -rf $(2)/reports && mkdir -p $(2)/reports
	@set +e; SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="log_path=$(CURDIR)/$(2)/reports/tsan halt_on_error=0" \
		ASAN_OPTIONS="log_path=$(CURDIR)/$(2)/reports/asan detect_leaks=0 suppressions=$(CURDIR)/Tests/Sanitizers/asan.supp" \
		TRIBUTARY_BIN=$(2)/debug/tributary STRESS_RUNS=$(SANITIZE_STRESS_RUNS) \
		python3 Tools/run-tests.py $(2)/debug/TributaryPackageTests.xctest --jobs $(SANITIZE_JOBS) --logs $(2)/test-logs \
		--timeout $(SANITIZE_TIMEOUT) --only '$(3)' --skip 'SelfContainedBinaryTests|DebPackageTests|InstallTests$(if $(4),|$(4))'; status=$$?; \
	if [ -n "$$(ls -A $(2)/reports)" ]; then echo "sanitizer reports in $(2)/reports:" >&2; \
		grep -h SUMMARY $(2)/reports/* | sort | uniq -c >&2; head -40 $$(ls $(2)/reports/* | head -1) >&2; exit 1; fi; \
	[ $$status = 0 ] || exit $$status
	@echo "$(1) sanitizer: 0 reports" >&2
endef
SANITIZE_STRESS_RUNS ?= 20
SANITIZE_JOBS ?= 3
SANITIZE_TIMEOUT ?= 5400

## sanitize: the whole suite under ThreadSanitizer, then under AddressSanitizer, 0 reports
sanitize: sanitize-thread sanitize-address

sanitize-thread: deps test-tools
	$(call sanitizer_pass,thread,.build/tsan,)

sanitize-address: deps test-tools
	$(call sanitizer_pass,address,.build/asan,)

## sanitize-ci: the ThreadSanitizer pass over the core and end-to-end tests (what CI runs)
# Left out of it, as they wait a minute and check no concurrency (make test runs them): the
# 60 s cap of a huge Retry-After, and the PostgreSQL passwords of broken state URLs (each a
# connection that times out). They were two of its three longest tests, 2 minutes of its 17.
# Nor the parsers' differential and fuzzed-text tests, which run on one thread (71 s of 22 min).
SANITIZE_CI_SKIP := CommandLineDeclarationTests|JSONDifferentialTests|JQWriterTests|JQInputParserTests|HostileRoundTwoHeldTests.testAHugeRetryAfterWaitsAtMostAMinute|HostileRoundTwoHeldTests.testPostgreSQLPasswordsAreNeverPrintedForBrokenStateURLs
sanitize-ci: SANITIZE_TIMEOUT = 1500
sanitize-ci: deps test-tools
	$(call sanitizer_pass,thread,.build/tsan,TributaryCoreTests|TributaryJQTests|EndToEndTests,$(SANITIZE_CI_SKIP))

## fuzz: every libFuzzer target for FUZZ_SECONDS each (default 600), two at a time; fails on any
## crash, hang, leak or out-of-memory, naming the target and the input (Fuzz/README.md)
FUZZ_SECONDS ?= 600
fuzz: deps
	bash Fuzz/run.sh $(FUZZ_SECONDS)

## bench: Tributary (the release binary) beside curl, aiohttp + orjson and jq (see bench/README.md; MODE=decode|fetch|many|startup|jq|stories|fulltext|all|soak|watch|instructions)
MODE ?= decode
bench: release
	TRIBUTARY_BIN=$(RELEASE_BIN) bash bench/run.sh $(MODE)

# A binary that is not there yet is built; an existing one is installed as it is (so
# `make release && sudo make install` needs no toolchain for root).
$(RELEASE_BIN):
	$(MAKE) --no-print-directory release

# install_examples DIR: the demo, its recordings, the example configs, the schema and the
# Prometheus alerting rules (with their promtool tests), in the
# layout of Sources-config/, since the configs find recordings/ and examples/exec-plugin/
# relative to themselves.
define install_examples
	@set -e; for f in $$(cd Sources-config && find demo.json tributary.schema.json recordings examples prometheus -type f ! -name '*.pyc' | sort); do \
		mode=644; [ -x "Sources-config/$$f" ] && mode=755; \
		install -D -m $$mode "Sources-config/$$f" "$(1)/$$f"; \
	done
endef

# install_units DIR BINDIR: the systemd units with @BINDIR@ replaced.
define install_units
	@set -e; install -d "$(1)"; for u in $(UNITS); do \
		sed 's|@BINDIR@|$(2)|g' "Sources-config/systemd/$$u" > "$(1)/$$u" && chmod 644 "$(1)/$$u"; \
	done
endef

# install_generated BIN MANDIR BASHDIR ZSHDIR FISHDIR: the man page and the completion scripts,
# generated by the binary from its own command table (`help --man`, `completion SHELL`).
define install_generated
	@set -e; install -d "$(2)" "$(3)" "$(4)" "$(5)"; \
		$(1) help --man > "$(2)/tributary.1"; \
		$(1) completion bash > "$(3)/tributary"; \
		$(1) completion zsh > "$(4)/_tributary"; \
		$(1) completion fish > "$(5)/tributary.fish"; \
		chmod 644 "$(2)/tributary.1" "$(3)/tributary" "$(4)/_tributary" "$(5)/tributary.fish"
endef

## install: the binary, its man page and completion scripts, the examples with the demo, the systemd units
install: $(RELEASE_BIN)
	install -D -m 755 $(RELEASE_BIN) "$(DESTDIR)$(BINDIR)/tributary"
	$(call install_generated,$(RELEASE_BIN),$(DESTDIR)$(MANDIR),$(DESTDIR)$(BASHCOMPDIR),$(DESTDIR)$(ZSHCOMPDIR),$(DESTDIR)$(FISHCOMPDIR))
	$(call install_examples,$(DESTDIR)$(DOCDIR)/examples)
	$(call install_units,$(DESTDIR)$(UNITDIR),$(BINDIR))
	@echo "installed $(DESTDIR)$(BINDIR)/tributary, $(DESTDIR)$(DOCDIR)/examples and the units in $(DESTDIR)$(UNITDIR)" >&2

## uninstall: remove what install put there
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/tributary" "$(DESTDIR)$(MANDIR)/tributary.1" "$(DESTDIR)$(BASHCOMPDIR)/tributary" "$(DESTDIR)$(ZSHCOMPDIR)/_tributary" "$(DESTDIR)$(FISHCOMPDIR)/tributary.fish"
	for u in $(UNITS); do rm -f "$(DESTDIR)$(UNITDIR)/$$u"; done
	rm -rf "$(DESTDIR)$(DOCDIR)"

## DLOPEN_SONAMES: the libraries the binary opens with dlopen on first use rather than links
## (each declared once in the code, in its `LibraryLoader`: `soname: "..."`); dpkg-shlibdeps cannot see
## them, so package-deb adds the dependency each one's package declares in its shlibs file.
DLOPEN_SONAMES := $(shell grep -rhoE 'soname: "[^"]+"' Sources | sed 's/soname: "//; s/"$$//' | sort -u)

## deb: tributary_$(VERSION)_$(ARCH).deb of the release binary (Depends from its NEEDED
## libraries and the DLOPEN_SONAMES)
deb: deps test-tools release
	@$(MAKE) --no-print-directory package-deb

## package-deb: package $(RELEASE_BIN) as it is (make deb builds it first)
package-deb: $(RELEASE_BIN)
	rm -rf "$(DEB_BUILD)"
	install -d "$(DEB_ROOT)/DEBIAN"
	install -D -m 755 $(RELEASE_BIN) "$(DEB_ROOT)/usr/bin/tributary"
	install -D -m 644 README.md "$(DEB_ROOT)/usr/share/doc/tributary/README.md"
	@set -e; for f in $$(find Docs -type f | sort); do install -D -m 644 "$$f" "$(DEB_ROOT)/usr/share/doc/tributary/$$f"; done
	$(call install_examples,$(DEB_ROOT)/usr/share/doc/tributary/examples)
	@set -e; license=$$(dirname "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")")/share/swift/LICENSE.txt; \
		{ cat Sources-config/debian/copyright; \
		  if [ -f "$$license" ]; then echo "The Swift toolchain's LICENSE.txt:"; echo; cat "$$license"; \
		  else echo "(The Swift toolchain's LICENSE.txt was not found.)"; fi; } \
		> "$(DEB_ROOT)/usr/share/doc/tributary/copyright"
	$(call install_generated,$(RELEASE_BIN),$(DEB_ROOT)/usr/share/man/man1,$(DEB_ROOT)/usr/share/bash-completion/completions,$(DEB_ROOT)/usr/share/zsh/vendor-completions,$(DEB_ROOT)/usr/share/fish/vendor_completions.d)
	gzip -9n "$(DEB_ROOT)/usr/share/man/man1/tributary.1"
	$(call install_units,$(DEB_ROOT)/lib/systemd/system,/usr/bin)
	@printf 'Source: tributary\n\nPackage: tributary\nArchitecture: any\n' > "$(DEB_BUILD)/debian/control"
	@set -e; cd "$(DEB_BUILD)"; \
		depends=$$(dpkg-shlibdeps -O debian/tributary/usr/bin/tributary | sed -n 's/^shlibs:Depends=//p'); \
		[ -n "$$depends" ] || { echo "dpkg-shlibdeps found no dependencies" >&2; exit 1; }; \
		for so in $(DLOPEN_SONAMES); do \
		  name=$${so%%.so.*}; major=$${so##*.so.}; \
		  dep=$$(cat /var/lib/dpkg/info/*.shlibs | awk -v n="$$name" -v v="$$major" '$$1 == n && $$2 == v { $$1 = ""; $$2 = ""; sub(/^  */, ""); print; exit }'); \
		  [ -n "$$dep" ] || { echo "no installed package declares $$so (dlopen'ed by the binary)" >&2; exit 1; }; \
		  depends="$$depends, $$dep"; \
		done; \
		size=$$(du -sk --exclude=DEBIAN debian/tributary | cut -f1); \
		{ echo "Package: tributary"; \
		  echo "Version: $(VERSION)"; \
		  echo "Architecture: $(ARCH)"; \
		  echo "Maintainer: $(DEB_MAINTAINER)"; \
		  echo "Installed-Size: $$size"; \
		  echo "Depends: $$depends"; \
		  echo "Suggests: python3"; \
		  echo "Section: net"; \
		  echo "Priority: optional"; \
		  echo "Description: plugin-based, multi-source feed aggregator"; \
		  echo " Tributary reads a JSON config, fetches every enabled source (JSON APIs, RSS,"; \
		  echo " Atom and JSON Feed, YouTube, weather, TV channel lists, external programs)"; \
		  echo " concurrently through libcurl, turns the responses into unified items and hands"; \
		  echo " them to sinks: readable lines, JSON Lines, an RSS file. A state file remembers"; \
		  echo " what was emitted, so each scheduled run emits only what is new, once."; \
		  echo " The examples' exec plugin (also used by the demo) runs python3."; \
		} > debian/tributary/DEBIAN/control; \
		for script in postinst postrm; do \
		  printf '#!/bin/sh\nset -e\n# let a running systemd see new or changed units\nif [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi\n' > debian/tributary/DEBIAN/$$script; \
		  chmod 755 debian/tributary/DEBIAN/$$script; \
		done; \
		cd debian/tributary && find usr lib -type f | sort | xargs md5sum > DEBIAN/md5sums
	@mkdir -p "$(DEB_DIR)"
	dpkg-deb -Z$(DEB_COMPRESSION) --build --root-owner-group "$(DEB_ROOT)" "$(DEB_DIR)/$(DEB)"

clean:
	rm -rf .build out tributary_*.deb $(dir $(COMMIT_HEADER))
