#!/usr/bin/env bash
# From a fresh clone: create .venv at the repo root, install what the Python tests need, build +
# install nerve (release), run the Python test suite (which runs examples/python too), the stub
# check and the linter (the package and the examples).
#   bindings/python/dev.sh          everything below, in order
#   bindings/python/dev.sh setup    .venv and every install (what `make test` runs in the
#                                   background while Rust compiles)
#   bindings/python/dev.sh build    the extension into .venv (maturin develop --release)
#   bindings/python/dev.sh test     pytest (-rs: every skip's reason), stubtest, ruff
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
py="$root/.venv/bin/python"

setup() {
  [ -x "$py" ] || python3 -m venv "$root/.venv"
  # One resolver run for everything from PyPI:
  # - the build and test tools (maturin, pytest, mypy, ruff) and nerve's own needs;
  # - CMake: the C and C++ package (bindings/c) is built and used with it in the tests;
  # - the reference readers recordings are checked with (mcap with its ROS 2 decoder,
  #   rosbags: pure Python);
  # - a Foxglove WebSocket client for `nerve view --foxglove` (websockets, protobuf);
  # - Playwright, which drives Debian's Chromium for the page of `nerve view`;
  # - JAX's CPU wheel (~100 MB) for the tensor tests.
  "$py" -m pip install -q maturin numpy msgpack pytest mypy ruff pandas pillow cmake \
    mcap mcap-ros2-support rosbags==0.11.9 websockets protobuf playwright jax
  # A real browser for the page of `nerve view`: Debian's Chromium (apt-get, where this user may
  # install packages). Without it the page's test says why it skips (a failure under CI).
  if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q chromium >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
      || echo "dev.sh: Debian's chromium did not install; the page test of nerve view will skip"
  fi
  # ROS 2's Python (rclpy and the Fast DDS RMW from PyPI, ~300 MB) for the ROS 2 bridge's tests,
  # PyTorch (PyPI's wheel with its CUDA libraries, ~4 GB) for the tensor tests, and the
  # frameworks' venvs (TensorFlow, PaddlePaddle, JAX, rclpy, ~3 GB, torch's cache seen through a
  # .pth; MXNet in a venv of its own) for tests/test_frameworks.py and the Wrapyfi table: each
  # installed once per machine into a cache outside the clone (~/.cache/nerve/peers; later runs
  # reuse it). If one cannot install, its tests skip with the installer's reason.
  bash "$root/benches/python/setup_peers.sh" ros2 \
    || echo "dev.sh: ROS 2's wheels did not install; the ROS 2 bridge tests will skip (see benches/python/.venvs/ros2.error)"
  bash "$root/benches/python/setup_peers.sh" torch \
    || echo "dev.sh: PyTorch did not install; its tensor test will skip (see benches/python/.venvs/torch.log)"
  bash "$root/benches/python/setup_peers.sh" frameworks \
    || echo "dev.sh: the frameworks' venv did not install; their tests will skip (see benches/python/.venvs/frameworks.missing)"
  # The ROS 2 definitions nerve-bag carries are generated from that rosbags: still current?
  "$py" "$root/bridges/ros2/gen/gen_defs.py" --check
}

build() {
  # The same profile and the same interpreter (PYO3_PYTHON) as `make test`'s cargo build, so
  # this only links the extension: nothing it depends on is compiled again.
  (cd "$here" && PYO3_PYTHON="$py" "$root/.venv/bin/maturin" develop --release -q)
}

run_tests() {
  "$py" -m pytest -q -rs --durations=10 "$here/tests"
}

check() {
  (cd "$here" && "$py" -m mypy.stubtest nerve._nerve nerve.msgs --allowlist stubtest-allowlist.txt)
  "$root/.venv/bin/ruff" check "$here" "$root/examples/python" "$root/benches" "$root/bridges/ros2/gen" "$root/ci"
}

case "${1:-all}" in
  setup) setup ;;
  build) build ;;
  test) run_tests ;;
  check) check ;;
  all) setup; build; run_tests; check ;;
  *) echo "usage: bindings/python/dev.sh [setup|build|test|check]" >&2; exit 2 ;;
esac
