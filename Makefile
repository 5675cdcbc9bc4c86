# toolgen — build with `make`, test with `make test`, both under ASan+UBSan with SANITIZE=1.
.SUFFIXES:

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
PKGS    := yaml-0.1 libcurl libxml-2.0 libxxhash libcjson libgit2 libpcre2-8 libmicrohttpd libprotobuf-c

# Debian packages `make deps` installs when missing: toolgen's build and what its main job
# (toolgen build: every example tool tested in the sandbox) and the review page's check run.
DEB_PKGS := gcc make pkg-config libyaml-dev libcurl4-openssl-dev libxml2-dev libxxhash-dev libcjson-dev \
            libgit2-dev libpcre2-dev libmicrohttpd-dev libprotobuf-c-dev python3 python3-yaml python3-pandas python3-numpy \
            python3-matplotlib python3-pyflakes bubblewrap chromium
# Installed only when the command is missing (a machine may have Node.js from elsewhere, e.g.
# nodesource, whose nodejs package conflicts with Debian's npm).
DEB_CMDS := node:nodejs
# `make test-deps` (run by `make test`): npm, and with it the test peers of tests/npm — the
# official tools the tests check toolgen's output with —, and nginx, the remote cache server the
# cache tests start (docs/cache.md) and the load balancer of tests/cli/serve_scale.sh
# (docs/scale.md), and git, curl and jq, whose real --help `init --from-cli` is tested on: what
# the main job does not need.
TEST_DEB_PKGS := nginx-light git curl jq
TEST_DEB_CMDS := npm:npm
NPM_DIR ?= tests/npm

# libcurl, libxml2 and libmicrohttpd are loaded when a request, a page or `serve --http` first
# needs them (net/curlload.h, base/html.c, serve/mhdload.h), not linked: every start of toolgen
# would pay the dynamic loader for them and the libraries they bring
# (docs/benchmarks.md#toolgen-diff-vs-git-diff---stat-benchdiffsh).
LOADED_PKGS := libcurl libxml-2.0 libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out $(LOADED_PKGS),$(PKGS)) 2>/dev/null)

WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wvla
DEFS    := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
ifeq ($(SANITIZE),1)
FLAVOR  := asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
FLAVOR  := release
SANFLAGS :=
endif
BUILD   := build/$(FLAVOR)
ALL_CFLAGS  = $(WARN) $(DEFS) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) -Itoolgen -MMD -MP
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS        = $(PKG_LIBS) -lm -ldl -pthread

# One short line per file built; `make V=1` prints the whole commands, `make -s` nothing.
ifeq ($(V),1)
say :=
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say := @
else
say = @printf '  %-4s %s\n' $(1) $(2);
endif

# One folder per layer (docs/architecture.md); every layer but cli/ goes into libtoolgen.a, which
# the program, the unit tests and the benchmarks link.
SRCS      := $(sort $(wildcard toolgen/*/*.c))
OBJS      := $(SRCS:toolgen/%.c=$(BUILD)/obj/%.o)
CLI_OBJS  := $(filter $(BUILD)/obj/cli/%,$(OBJS))
LIB_OBJS  := $(filter-out $(CLI_OBJS),$(OBJS))
LIBTOOLGEN := $(BUILD)/libtoolgen.a
TEST_SRCS := $(sort $(wildcard tests/unit/*.c))
TESTS     := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Every file tool code and the sandboxed checks run under (runners, helpers, the static check,
# the code analysis, the dataset reader): an installed toolgen needs them all.
RUNTIME_FILES := $(sort $(wildcard toolgen/run/runtime/*.py toolgen/run/runtime/*.js))

# The release binary is bin/toolgen; the sanitizer build keeps its own tree so the two never mix.
ifeq ($(FLAVOR),release)
TOOLGEN := bin/toolgen
else
TOOLGEN := $(BUILD)/bin/toolgen
endif

all: $(TOOLGEN)

$(TOOLGEN): $(CLI_OBJS) $(LIBTOOLGEN)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(LIBTOOLGEN) $(LIBS)

$(LIBTOOLGEN): $(LIB_OBJS)
	@rm -f $@
	$(call say,AR,$@)$(AR) rcs $@ $(LIB_OBJS)

$(BUILD)/obj/%.o: toolgen/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBTOOLGEN) tests/unit/testlib.h
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(LIBTOOLGEN) $(LIBS)

tests-build: $(TOOLGEN) $(TESTS)

# The whole suite: unit tests, the JSON-Schema-Test-Suite, CLI and lint tests. The last line
# printed is the total, "N passed, N failed, N skipped", after the list of skipped checks and
# why (tests/run.sh; with CI=true a skip of anything CI's machine can run fails it).
test: tests-build test-deps
	@TOOLGEN=$(TOOLGEN) TEST_BIN=$(BUILD)/tests sh tests/run.sh

check: test

# Regenerates the goldens on purpose — tests/golden/*/expected/ and tests/review/diff.golden.md —
# from the current build; review the diff. No test rewrites a golden otherwise.
golden-update: $(TOOLGEN)
	@TOOLGEN_ABS=$(abspath $(TOOLGEN)) sh tests/cli/golden.sh --update
	@TOOLGEN_ABS=$(abspath $(TOOLGEN)) sh tests/cli/diff.sh --update

# Each step says what it installs and why, and names itself when it fails (build-aux/deps.sh).
deps:
	@sh build-aux/deps.sh debian deps $(DEB_PKGS) -- $(DEB_CMDS)

test-deps:
	@sh build-aux/deps.sh debian test-deps $(TEST_DEB_PKGS) -- $(TEST_DEB_CMDS)
	@sh build-aux/deps.sh npm test-deps $(NPM_DIR)

# ---- fuzzing: libFuzzer harnesses (tests/fuzz/fuzz_*.c) over toolgen's library built with clang,
# ASan and UBSan in build/fuzz/. `make fuzz` installs clang and libFuzzer when missing (not
# `make deps`: the main job does not need them), builds and runs each harness FUZZ_SECONDS.
FUZZ_TARGETS := yaml json schema rpc feedback intent openapi
FUZZ_SECONDS ?= 60
FUZZ_DEB_PKGS := clang libclang-rt-dev
FUZZ_CC := clang
FUZZ_BUILD := build/fuzz
# clang also warns of a conditional empty format and of "NAME=" MACRO in an array: not errors
FUZZ_WARN := $(WARN) -Wno-format-zero-length -Wno-string-concatenation
FUZZ_SAN := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_OBJS := $(patsubst toolgen/%.c,$(FUZZ_BUILD)/obj/%.o,$(filter-out toolgen/cli/%,$(SRCS)))
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/obj/%.o: toolgen/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(PKG_CFLAGS) -Itoolgen -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/libtoolgen.a: $(FUZZ_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $(FUZZ_LIB_OBJS)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libtoolgen.a
	$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(FUZZ_SAN) -fsanitize=fuzzer $(PKG_CFLAGS) -Itoolgen -o $@ $< \
	  $(FUZZ_BUILD)/libtoolgen.a $(LIBS)

fuzz-deps:
	@sh build-aux/deps.sh debian fuzz-deps $(FUZZ_DEB_PKGS)

fuzz-build: fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

install: bin/toolgen
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/toolgen/schemas \
	  $(DESTDIR)$(PREFIX)/share/toolgen/schemas/meta/draft/2020-12/meta $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 bin/toolgen $(DESTDIR)$(PREFIX)/bin/toolgen
	install -m 644 schemas/*.json $(DESTDIR)$(PREFIX)/share/toolgen/schemas/
	install -m 644 schemas/meta/draft/2020-12/*.json $(DESTDIR)$(PREFIX)/share/toolgen/schemas/meta/draft/2020-12/
	install -m 644 schemas/meta/draft/2020-12/meta/*.json $(DESTDIR)$(PREFIX)/share/toolgen/schemas/meta/draft/2020-12/meta/
	install -m 644 docs/toolgen.1 $(DESTDIR)$(PREFIX)/share/man/man1/toolgen.1
	install -d $(DESTDIR)$(PREFIX)/share/toolgen/prompts/reference
	install -m 644 prompts/*.md $(DESTDIR)$(PREFIX)/share/toolgen/prompts/
	install -m 644 prompts/reference/* $(DESTDIR)$(PREFIX)/share/toolgen/prompts/reference/
	install -d $(DESTDIR)$(PREFIX)/share/toolgen/runtime
	install -m 644 $(RUNTIME_FILES) $(DESTDIR)$(PREFIX)/share/toolgen/runtime/
	install -D -m 644 toolgen/run/runtime/checker/check_snippet.py \
	  $(DESTDIR)$(PREFIX)/share/toolgen/runtime/checker/check_snippet.py
	@# the built-in toolsets (docs/toolsets.md): each one's toolgen.yaml and manifests/
	for f in $$(cd toolsets && find . -path '*/.toolgen' -prune -o -path '*/generated' -prune \
	    -o -type f \( -name toolgen.yaml -o -path './*/manifests/*' \) -print); do \
	  install -D -m 644 toolsets/$$f $(DESTDIR)$(PREFIX)/share/toolgen/toolsets/$$f || exit 1; \
	done

clean:
	rm -rf build bin

.PHONY: all test check deps test-deps install clean tests-build golden-update fuzz fuzz-deps fuzz-build

-include $(OBJS:.o=.d)
-include $(FUZZ_LIB_OBJS:.o=.d)
# a unit test's own headers (tests/unit/*.h beside testlib.h) rebuild it too
-include $(TESTS:=.d)
