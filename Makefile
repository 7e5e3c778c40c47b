# SPDX-License-Identifier: GPL-2.0
#
# Top-level Makefile for Goblin Store.
#
#   make            build goblin.ko (in the tree), goblinctl, libgoblin, tests
#   make deps       install the Debian packages the project needs (idempotent)
#   make check      make deps, then build and run every test suite in a qemu
#                   guest booting kernel KVER
#   make check-all  make deps, then the whole suite on every supported
#                   installed kernel (6.1, 6.12, ...); what CI runs
#   make check-debug    make deps, then build (cached) the debug kernel
#                   (KASAN, lockdep, kmemleak, ...) and goblin.ko for it and
#                   run every guest suite on it (tests/debug/check)
#   make check-debug-ci the same with the CI subset of the suites
#   make kmod-debug goblin.ko (W=1) for the debug kernel, building it first
#   make demo       make deps, then boot a guest and run the end-to-end demo
#   make bench      run the benchmark suite inside a qemu guest
#   make kmod       goblin.ko for kernel KVER in build/kmod-KVER/
#   make kmod-all   goblin.ko for every supported installed kernel
#   make fuzz       run every libFuzzer target (FUZZ_SECONDS=N each)
#   make checkpatch run checkpatch.pl --strict over the tree
#   make install    install goblinctl, gbcli, gbtrace, libgoblin (library,
#                   headers, uapi headers, goblin.pc, man pages) under
#                   DESTDIR/PREFIX (default /usr/local); builds nothing but
#                   those
#   make uninstall  remove what make install installed (same PREFIX, DESTDIR)
#   make examples   the example programs of examples/ (against lib/)
#   make check-packages  build the Debian packages, lintian them, test
#                   them, and as root install them, use them in the test
#                   guest and purge them (tests/packages/run; CI runs it)
#
# WERROR=1 makes compiler warnings errors; the check targets and CI set it,
# a plain `make` / `make install` (releases, distribution packages) do not.
# CPPFLAGS, CFLAGS and LDFLAGS are honoured by every userspace build.
#
# KVER names the kernel the tests boot and build/kmod-KVER/goblin.ko is built
# for. Default: the kernel of KDIR if KDIR is given, else the newest
# installed supported kernel with image, headers and modules
# (scripts/find-kver; supported kernels: Documentation/kernels.rst).
#
# KDIR is the kernel build tree. Default: that of KVER if KVER is given;
# else, for the in-tree `make`/`make module`, the running kernel's build
# directory if it exists, else that of the default KVER.

ifeq ($(origin KVER),undefined)
ifneq ($(origin KDIR),undefined)
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
else
KVER = $(shell scripts/find-kver)
endif
KDIR ?= $(shell scripts/find-kdir)
else
KDIR ?= $(shell scripts/find-kdir $(KVER))
endif
PWD  := $(CURDIR)
# The module `make check`, `make demo` and `make bench` load.
KO    = $(CURDIR)/build/kmod-$(KVER)/goblin.ko

WERROR ?= 0
export WERROR

# Installed from: the library and gbcli (their Makefiles have install and
# uninstall rules), goblinctl (installed by its Makefile, uninstalled here
# from the same directories), tools/gbtrace (a script, installed here).
# The rest are tests and benchmarks.
INSTALL_DIRS := lib tools/gbcli
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
CTL_DIRS = PREFIX=$(PREFIX) SBINDIR=$(SBINDIR) MANDIR=$(MANDIR) \
	BASHCOMPDIR=$(BASHCOMPDIR)
USER_DIRS := lib tools/goblinctl tools/gbcli examples tests/func/lib tests/func/fleet tests/func/model tests/func/abuse tests/func/rdma tests/func/onesided tests/func/nlfuzz tests/unit tests/kselftest bench

.PHONY: all module modules user clean deps check check-all demo bench \
	checkpatch fuzz install uninstall modules_install kmod kmod-all \
	need-kver examples check-packages \
	check-debug check-debug-ci kmod-debug

all: module user

module modules:
	@test -n "$(KDIR)" || { echo "no kernel build tree found: run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) modules

need-kver:
	@test -n "$(KVER)" || { echo "no supported kernel with image, headers and modules installed: run 'make deps' or set KVER" >&2; exit 1; }

# Per-kernel module builds (scripts/build-kmod): never mixes objects of two
# kernels, leaves the source tree alone. KDIR passes through the environment.
kmod: need-kver
	+KDIR=$(KDIR) scripts/build-kmod $(KVER)

kmod-all:
	+@set -e; kv=$$(scripts/find-kver --all) || \
		{ echo "no supported kernel installed: run 'make deps'" >&2; exit 1; }; \
	for k in $$kv; do scripts/build-kmod $$k; done

# lib comes first: goblinctl, the tests and the benchmark link against it;
# examples/ finds it with pkg-config (lib/goblin-uninstalled.pc).
export PKG_CONFIG_PATH := $(CURDIR)/lib$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
user:
	@for d in $(USER_DIRS); do \
		if [ -f $$d/Makefile ]; then $(MAKE) -C $$d || exit 1; fi; \
	done

modules_install:
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install

examples:
	$(MAKE) -C lib
	$(MAKE) -C examples

# Userspace only; the module is installed with DKMS (README) or
# `make modules_install`. PREFIX and DESTDIR reach every sub-make through
# the command line; ldconfig runs only for a real (DESTDIR-less) install.
install:
	@set -e; for d in $(INSTALL_DIRS); do $(MAKE) -C $$d install; done
	$(MAKE) -C tools/goblinctl install $(CTL_DIRS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 tools/gbtrace $(DESTDIR)$(BINDIR)/gbtrace
	install -m 0644 tools/gbtrace.1 $(DESTDIR)$(MANDIR)/man1/gbtrace.1
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig > /dev/null; then \
		echo ldconfig; ldconfig; fi

uninstall:
	@set -e; for d in $(INSTALL_DIRS); do $(MAKE) -C $$d uninstall; done
	rm -f $(DESTDIR)$(SBINDIR)/goblinctl \
	      $(DESTDIR)$(MANDIR)/man8/goblinctl.8 \
	      $(DESTDIR)$(BASHCOMPDIR)/goblinctl \
	      $(DESTDIR)$(BINDIR)/gbtrace $(DESTDIR)$(MANDIR)/man1/gbtrace.1
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig > /dev/null; then \
		echo ldconfig; ldconfig; fi

# Build the .debs (dpkg-buildpackage into build/packages/), lintian them,
# then (root) install them on this machine, exercise them in the test guest
# and purge them.
check-packages: deps
	+tests/packages/run

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(PWD) clean
	for d in $(USER_DIRS); do [ ! -f $$d/Makefile ] || $(MAKE) -C $$d clean; done
	rm -rf build

deps:
	scripts/deps

# The test targets install what they need first (scripts/deps is quick when
# everything is there), so that on a fresh Debian 12 machine `make check` or
# `make demo` is the one command to type. Their recipes (and so KVER, KDIR)
# are expanded only after deps has installed the kernel packages.
SUBMAKE = $(MAKE) --no-print-directory

check: deps
	+$(SUBMAKE) user WERROR=1
	+$(SUBMAKE) kmod
	KVER=$(KVER) GOBLIN_KO=$(KO) tests/check

# Builds goblin.ko for each kernel itself: a build failure on any kernel
# counts as a failure in its closing line.
check-all: deps
	+$(SUBMAKE) user WERROR=1
	+tests/check-all

# The debug-kernel lane (Documentation/testing.rst): the kernel is built
# once into $(GOBLIN_CACHE)/debug-kernel/ (default ~/.cache/goblin).
check-debug: deps
	+$(SUBMAKE) user WERROR=1
	+tests/debug/check

check-debug-ci: deps
	+$(SUBMAKE) user WERROR=1
	+tests/debug/check --ci

kmod-debug:
	+@set -e; d=$$(tests/debug/build-kernel --print-dir); \
	KDIR=$$d/obj scripts/build-kmod $$(cat $$d/release) W=1

demo: deps
	+$(SUBMAKE) user
	+$(SUBMAKE) kmod
	KVER=$(KVER) GOBLIN_KO=$(KO) tests/demo

# QUICK=1: a smoke run of every pair (bench/run --quick).
bench: user kmod
	KVER=$(KVER) GOBLIN_KO=$(KO) bench/run $(if $(filter 1,$(QUICK)),--quick)

# libFuzzer targets of every parser (FUZZ_SECONDS=N each; fuzz/Makefile).
fuzz:
	$(MAKE) -C fuzz run

checkpatch:
	scripts/checkpatch
