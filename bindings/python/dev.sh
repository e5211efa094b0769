#!/usr/bin/env bash
# From a fresh clone: create .venv at the repo root, build + install nerve (release), run the
# Python test suite (which runs examples/python too), the stub check and the linter (the
# package and the examples). Usage: bindings/python/dev.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
[ -x "$root/.venv/bin/python" ] || python3 -m venv "$root/.venv"
py="$root/.venv/bin/python"
"$py" -m pip install -q maturin numpy msgpack pytest mypy ruff pandas pillow
# CMake from PyPI: the C and C++ package (bindings/c) is built and used with it in the tests.
"$py" -m pip install -q cmake
# The reference readers recordings are checked with: the mcap reader with its ROS 2 decoder, and
# rosbags (pure Python, from PyPI).
"$py" -m pip install -q mcap mcap-ros2-support rosbags==0.11.9
# A Foxglove WebSocket client for `nerve view --foxglove`: the protocol over `websockets`, the
# foxglove.* schemas decoded with `protobuf`.
"$py" -m pip install -q websockets protobuf
# A real browser for the page of `nerve view`: Debian's Chromium (apt-get, where this user may
# install packages) driven by Playwright from PyPI with that executable. Without them the page's
# test says why it skips.
if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q chromium >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
    || echo "dev.sh: Debian's chromium did not install; the page test of nerve view will skip"
fi
"$py" -m pip install -q playwright || echo "dev.sh: playwright did not install; the page test will skip"
# ROS 2's Python (rclpy and the Fast DDS RMW from PyPI, ~300 MB) for the ROS 2 bridge's tests:
# installed once per machine into a cache outside the clone (~/.cache/nerve/peers/ros2; later
# runs reuse it). If it cannot install, those tests skip with the installer's reason.
bash "$root/benches/python/setup_peers.sh" ros2 || echo "dev.sh: ROS 2's wheels did not install; the ROS 2 bridge tests will skip (see benches/python/.venvs/ros2.error)"
# The ROS 2 definitions nerve-bag carries are generated from that rosbags: still current?
"$py" "$root/crates/nerve-bag/ros2/gen_defs.py" --check
# JAX's CPU wheel is on PyPI (~100 MB, seconds to install): its tests run when it installs.
# PyTorch's Linux wheel there pulls gigabytes of CUDA libraries: not installed here (its tests
# say so when they skip; nerve-bench python covers it in its own environment).
"$py" -m pip install -q jax || echo "dev.sh: jax did not install; its tensor tests will skip"
(cd "$here" && "$root/.venv/bin/maturin" develop --release -q)
"$py" -m pytest -q "$here/tests"
(cd "$here" && "$py" -m mypy.stubtest nerve._nerve nerve.msgs --allowlist stubtest-allowlist.txt)
"$root/.venv/bin/ruff" check "$here" "$root/examples/python" "$root/benches" "$root/crates/nerve-bag/ros2"
