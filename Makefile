# SPDX-License-Identifier: GPL-2.0
# Entry points of the revoke project.  Everything is built under build/
# (override with BUILD=...); nothing there is ever committed.
#
#   make check       everything: deps, prepare, build, lint, KUnit, guest tests
#   make demo        boot the test kernel and show revokeat(2) at work
#   make kunit       KUnit suites under QEMU (kunit.py)
#   make guest-test  user-space tests in the booted guest
#   make lint        checkpatch, kernel-doc, sparse, W=1
#   make bench       benchmarks in a non-debug guest (-icount)
#   make clean       remove build/

SHELL := /bin/bash
H := harness

.PHONY: check demo kunit guest-test lint bench clean deps prepare build build-bench

check:
	@$(H)/check.sh

deps:
	@$(H)/deps.sh

prepare: deps
	@$(H)/prepare.sh

build: prepare
	@$(H)/build.sh test

build-bench: prepare
	@$(H)/build.sh bench

kunit: build
	@rm -rf build/results; $(H)/kunit.sh

guest-test: build
	@rm -rf build/results; $(H)/guest.sh test

lint: build
	@rm -rf build/results; $(H)/lint.sh

demo: build
	@$(H)/guest.sh demo

bench: build-bench
	@$(H)/guest.sh bench

clean:
	rm -rf build
