#!/usr/bin/env bash
# The Python the ROS 2 bridge needs, in one command (`make ros2-env`): rclpy, Fast DDS and the
# message packages from PyPI in a cached venv (benches/python/setup_peers.sh ros2: once per
# machine), and nerve's package from this repository linked into it (a .pth file; nerve is not
# on PyPI). `nerve bridge ros2` finds that Python by itself; NERVE_ROS2_PYTHON chooses another.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if ! "$root/.venv/bin/python" -c "import nerve" >/dev/null 2>&1; then
  bash "$here/dev.sh" setup
  bash "$here/dev.sh" build
fi
bash "$root/benches/python/setup_peers.sh" ros2
cache="${NERVE_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nerve/peers}"
py="$cache/ros2/bin/python"
site="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$root/bindings/python/python" >"$site/nerve-repo.pth"
if ! "$py" -c "import rclpy, nerve.ros2_bridge" >/dev/null; then
  echo "ros2-env: $py cannot import rclpy and nerve.ros2_bridge (above: why)" >&2
  exit 1
fi
echo "ros2-env: ready: $py (rclpy from PyPI, nerve from $root/bindings/python)"
echo "ros2-env: \`nerve bridge ros2\` uses it; elsewhere: export NERVE_ROS2_PYTHON=$py"
