# SPDX-License-Identifier: GPL-2.0
# Entry points of the revoke project.  Everything is built under build/
# (override with BUILD=...); nothing there is ever committed.
#
#   make check       everything: deps, prepare, build, lint, KUnit, guest tests
#   make demo        boot the test kernel and show revokeat(2) at work
#   make shell       boot the test kernel with a shell on the console
#   make kunit       KUnit suites under QEMU (kunit.py)
#   make guest-test  user-space tests in the booted guest
#   make lint        checkpatch, kernel-doc, sparse, W=1
#   make bench       benchmarks in non-debug guests (-icount), feature on and off
#   make stress      revoke storms, 10 minutes at -smp 2 and 4, leak cycles,
#                    kmemleak, trinity (STRESS_SECONDS=, STRESS_TARGETS=revoke_test,
#                    tmpfs,ext4,snd_ctl,snd_pcm,snd_aloop,evdev, STRESS_SMP=,
#                    STRESS_CYCLES=, STRESS_TRINITY=)
#   make series      the series as patches to post, in build/series/
#   make series-check  apply build/series to a pristine tree, build every commit
#   make clean       remove build/

SHELL := /bin/bash
H := harness

.PHONY: check demo shell kunit guest-test lint bench stress clean deps prepare build \
	build-bench build-bench-off series series-check

check:
	@bash $(H)/check.sh

deps:
	@bash $(H)/deps.sh

prepare: deps
	@bash $(H)/prepare.sh

build: prepare
	@bash $(H)/build.sh test

build-bench: prepare
	@bash $(H)/build.sh bench

build-bench-off: prepare
	@bash $(H)/build.sh bench-off

kunit: build
	@rm -rf build/results; bash $(H)/kunit.sh

guest-test: build
	@rm -rf build/results; bash $(H)/guest.sh test

lint: build
	@rm -rf build/results; bash $(H)/lint.sh

demo: build
	@bash $(H)/guest.sh demo

shell: build
	@bash $(H)/guest.sh shell

bench: build-bench build-bench-off
	@bash $(H)/guest.sh bench

stress: build
	@rm -rf build/results; bash $(H)/stress.sh

series: prepare
	@bash $(H)/series.sh format

series-check: series
	@bash $(H)/series.sh check

clean:
	rm -rf build
