# SPDX-License-Identifier: GPL-2.0
#
# Top-level Makefile for Goblin Store.
#
#   make            build goblin.ko, goblinctl, libgoblin and the tests
#   make deps       install the Debian packages the project needs
#   make check      run every test suite inside a qemu guest
#   make demo       boot a guest and run the end-to-end demo
#   make bench      run the benchmark suite inside a qemu guest
#   make checkpatch run checkpatch.pl --strict over the tree
#   make install    install goblinctl, gbcli and libgoblin (PREFIX, DESTDIR)
#
# KDIR selects the kernel build tree. By default: the running kernel's build
# directory if it exists, else the newest installed linux-headers-* that has a
# matching /boot/vmlinuz-*.

KDIR ?= $(shell scripts/find-kdir)
PWD  := $(CURDIR)

USER_DIRS := lib tools/goblinctl tools/gbcli tests/func/lib tests/func/model tests/func/abuse tests/unit tests/kselftest bench

.PHONY: all module modules user clean deps check demo bench checkpatch \
	install modules_install

all: module user

module modules:
	@test -n "$(KDIR)" || { echo "no kernel build tree found: run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# lib comes first: goblinctl, the tests and the benchmark link against it.
user:
	@for d in $(USER_DIRS); do \
		if [ -f $$d/Makefile ]; then $(MAKE) -C $$d || exit 1; fi; \
	done

modules_install:
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install

# Userspace only; the module is installed with DKMS (README) or
# `make modules_install`.
install: user
	$(MAKE) -C lib install
	$(MAKE) -C tools/goblinctl install
	$(MAKE) -C tools/gbcli install
	-ldconfig

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(PWD) clean
	for d in $(USER_DIRS); do [ ! -f $$d/Makefile ] || $(MAKE) -C $$d clean; done
	rm -rf build

deps:
	scripts/deps

check: all
	tests/check

demo: all
	tests/demo

bench: all
	bench/run

checkpatch:
	scripts/checkpatch
