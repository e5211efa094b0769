# nerve: the two commands of the README, and the pieces they are made of.
#   make demo   install what is needed, build, run the demo robot graph (Ctrl-C to stop)
#   make test   install what is needed, run every test (what CI runs)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
export CARGO_BUILD_JOBS ?= 2
DURATION ?=
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: ros2-env demo build test test-rust test-miri test-python lint fmt structure clippy rust-build rust-tests rust-no-solo nightly bench bench-all bench-check bench-build bench-ipc bench-sched bench-rpc bench-python bench-plots clean-shm

# The 1 kHz Imu node asks for a real-time lane (--rt): SCHED_FIFO + pinning; where that is not
# permitted the demo runs anyway and the scheduler says what it could not do.
demo: build
	./target/release/nerve demo --rt $(if $(DURATION),--duration $(DURATION),)

build:
	$(CARGO) build --release -p nerve-cli

# Every check CI runs, as timed phases with one summary at the end (ci/test.sh runs the targets
# below in order; the phases' logs land in target/test-report/).
test:
	bash ci/test.sh

lint: fmt structure clippy

fmt:
	$(CARGO) fmt --all -- --check

# House rules beyond the linters (ci/check_structure.py): no file of the product or its benches
# over 800 lines, no import circle between files (every form of `use`), every atomic ordering
# names its partner; ci/check_docs.py: every path a doc names exists, every workspace member is
# on the map, no two files differ only in case; ci/check_api.py: docs/api.md's table of the Rust,
# Python and C fronts agrees with their code; ci/unify.py --check: one feature set per
# third-party crate in every build (each compiles once; it reads nightly cargo's unit graph).
structure: nightly
	python3 ci/check_structure.py
	python3 ci/check_docs.py
	python3 ci/check_api.py
	python3 ci/unify.py --check

# Release profile: the build scripts and macros clippy compiles are the ones the build uses. The
# benchmark's peers (iceoryx2) are linted here though the test build leaves them out.
clippy:
	$(CARGO) clippy --workspace --all-targets --release --features nerve-bench/peers -- -D warnings

# The one compile of the workspace: every test binary, the CLI, the examples, the C library, in
# release (the stress tests move > 20 M messages).
rust-build:
	$(CARGO) test --release --workspace --no-run

rust-tests:
	$(CARGO) test --release --workspace --no-fail-fast

# The single-publisher tests again with the fast path off (locked claims, as on a kernel without
# membarrier): the same selection as the build, so nothing compiles again.
rust-no-solo:
	NERVE_NO_SOLO=1 $(CARGO) test --release --workspace --test solo

test-rust: rust-tests rust-no-solo

# Nightly with miri (for test-miri, and for the unit graph ci/unify.py reads).
nightly:
	@if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then \
	  rustup toolchain install nightly --profile minimal --component miri --component rust-src; fi

# The lock-free ring and chunk pool under miri, on heap memory (data races and UB are errors).
test-miri: nightly
	MIRIFLAGS="-Zmiri-disable-isolation" $(CARGO) +nightly miri test -p nerve-shm --lib

test-python:
	bash bindings/python/dev.sh

# Benchmarks are programs, not tests: run them on a quiet machine (nothing else running).
# RESULTS=dir keeps the JSON, CSV and plots (default bench-results/, git-ignored).
RESULTS ?= bench-results
QUICK ?= --quick

bench-build:
	$(CARGO) build --release -p nerve-bench -p nerve-cli -p nerve-c --features nerve-bench/peers

# The targets that guard the hot paths (benches/nerve-bench/targets.toml, check = true), ≤ 5 min;
# exits non-zero when one misses. Quote its output before and after a change to a hot path.
bench-check: bench-build
	[ -x $(VENV)/bin/maturin ] || bash bindings/python/dev.sh
	$(VENV)/bin/maturin develop --release -q -m bindings/python/Cargo.toml
	./target/release/nerve-bench check --out $(RESULTS)/check

# Every suite in turn and the report (RESULTS/all/benchmarks.md; QUICK= for the full runs).
bench-all: bench-build
	[ -x $(VENV)/bin/maturin ] || bash bindings/python/dev.sh
	$(VENV)/bin/maturin develop --release -q -m bindings/python/Cargo.toml
	./target/release/nerve-bench all $(QUICK) --out $(RESULTS)/all

bench-ipc: bench-build
	mkdir -p $(RESULTS)
	./target/release/nerve-bench ipc $(QUICK) --json $(RESULTS)/ipc.json --csv $(RESULTS)/ipc.csv

bench-sched: bench-build
	mkdir -p $(RESULTS)
	./target/release/nerve-bench sched $(QUICK) --json $(RESULTS)/sched.json

# Also measures the Python client (the package is rebuilt so it is the current code) against
# rclpy services and Zenoh queryables (peer venvs: benches/python/setup_peers.sh, run on demand).
bench-rpc: bench-build
	[ -x $(VENV)/bin/maturin ] || bash bindings/python/dev.sh
	$(VENV)/bin/maturin develop --release -q -m bindings/python/Cargo.toml
	mkdir -p $(RESULTS)
	./target/release/nerve-bench rpc $(QUICK) --json $(RESULTS)/rpc.json --csv $(RESULTS)/rpc.csv

bench-python: bench-build
	[ -x $(VENV)/bin/maturin ] || bash bindings/python/dev.sh
	$(VENV)/bin/maturin develop --release -q -m bindings/python/Cargo.toml
	mkdir -p $(RESULTS)
	./target/release/nerve-bench python $(QUICK) --json $(RESULTS)/python.json --plot $(RESULTS)/python.png

bench-plots:
	$(PY) -m pip install -q matplotlib
	$(PY) benches/nerve-bench/plot.py $(RESULTS)/ipc.json --out $(RESULTS)
	$(PY) benches/nerve-bench/summary.py $(RESULTS)/ipc.json > $(RESULTS)/ipc-summary.md

# Every suite, quick: `make bench QUICK=` for the full runs.
bench: bench-ipc bench-sched bench-rpc bench-python bench-plots

# The Python `nerve bridge ros2` runs: rclpy from PyPI in a cached venv with nerve's package
# linked into it (bindings/python/ros2_env.sh); the bridge finds it by itself.
ros2-env:
	bash bindings/python/ros2_env.sh

clean-shm:
	./target/release/nerve clean
