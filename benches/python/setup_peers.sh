#!/usr/bin/env bash
# Creates one venv per benchmark peer and installs the peer from PyPI by name. Each venv also gets
# numpy + msgpack (the benchmark programs' own needs). A peer that fails to install leaves
# benches/python/.venvs/<peer>.error with the reason; `nerve-bench python` turns that into a row
# with `error` (never a silent skip).
#
# The venvs live in a cache outside the clone ($NERVE_PEER_CACHE, default
# ~/.cache/nerve/peers/<peer>), so a fresh clone (CI's) installs them once per machine;
# benches/python/.venvs/<peer> (git-ignored) is a link to the cached one. A venv made inside the
# tree by an earlier version of this script is used where it is.
#
# Usage: benches/python/setup_peers.sh [peer ...]     (default: all; peers: horus iceoryx2 zenoh ros2 plot;
#        torch: PyPI's torch for nerve's .venv (cached once per machine, seen through a .pth);
#        frameworks: numpy, pandas, PIL, pyzmq, Zenoh and each of JAX, TensorFlow, PaddlePaddle,
#        PyTorch (torch's cache, seen through a .pth), rclpy (and MXNet in a venv of its own: it
#        needs numpy < 1.24) for the Wrapyfi table and the framework tests of the test command:
#        a framework that does not install is listed in .venvs/frameworks.missing)
#        FORCE=1 to rebuild existing venvs.
# nerve itself is measured from the repository's .venv (bindings/python/dev.sh builds it).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venvs="$here/.venvs"
cache="${NERVE_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nerve/peers}"
mkdir -p "$venvs" "$cache"
py="${PYTHON:-python3}"

pkgs_for() {
    case "$1" in
        horus) echo "horus-robotics" ;;
        iceoryx2) echo "iceoryx2" ;;
        zenoh) echo "eclipse-zenoh" ;;
        # rclpy + Fast DDS (without ros-rmw-fastrtps-cpp `import rclpy` fails) + message packages.
        # mcap + mcap-ros2-support: the recorder `nerve-bench record` measures nerve against.
        # std-srvs, nav-msgs, diagnostic-msgs: what the ROS 2 bridge's tests exchange.
        ros2) echo "ros-rclpy ros-rmw-fastrtps-cpp ros-std-msgs ros-sensor-msgs ros-geometry-msgs ros-nav-msgs ros-diagnostic-msgs ros-std-srvs mcap mcap-ros2-support pyyaml" ;;
        plot) echo "matplotlib" ;;
        *) return 1 ;;
    esac
}

check_for() {
    case "$1" in
        horus) echo "import horus" ;;
        iceoryx2) echo "import iceoryx2" ;;
        zenoh) echo "import zenoh" ;;
        ros2) echo "import rclpy, std_msgs.msg, sensor_msgs.msg, geometry_msgs.msg, nav_msgs.msg, diagnostic_msgs.msg, std_srvs.srv, mcap_ros2.writer, yaml" ;;
        plot) echo "import matplotlib" ;;
    esac
}

peers=("$@")
[ ${#peers[@]} -eq 0 ] && peers=(horus iceoryx2 zenoh ros2 plot)
status=0
for peer in "${peers[@]}"; do
    if [ "$peer" = torch ]; then
        # PyTorch for nerve's own interpreter (the repository's .venv): the tensor test of the
        # test command and the Tensor-*-torch rows. PyPI's Linux wheel needs its CUDA libraries
        # (~4 GB, even to run on the CPU), so it is installed once per machine into the cache
        # (pip --target) and .venv sees it through a .pth file: a fresh clone pays nothing.
        root="$(cd "$here/../.." && pwd)"
        dir="$cache/torch-site"
        site="$("$root/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        ok() { "$root/.venv/bin/python" -c "import torch; torch.zeros(1)" >/dev/null 2>&1; }
        if [ -z "${FORCE:-}" ] && [ -d "$dir/torch" ]; then
            echo "$dir" >"$site/nerve-torch.pth"
        fi
        if ok; then
            echo "torch: ready ($dir)"
        else
            rm -rf "$dir" "$site/nerve-torch.pth"
            echo "torch: installing PyPI's torch into $dir ..."
            if "$root/.venv/bin/python" -m pip install -q --target "$dir" torch >"$venvs/torch.log" 2>&1 \
                    && echo "$dir" >"$site/nerve-torch.pth" && ok; then
                echo "torch: ready ($dir)"
            else
                echo "torch: FAILED to install into $dir: $(grep -E 'ERROR|Error' "$venvs/torch.log" | tail -n 1)" >&2
                rm -f "$site/nerve-torch.pth"
                status=1
            fi
        fi
        continue
    fi
    if [ "$peer" = frameworks ]; then
        # The Wrapyfi table's frameworks: the light ones must install; each heavy one is
        # tried on its own and, if it fails, named in frameworks.missing with pip's reason.
        dir="$cache/frameworks"
        root="$(cd "$here/../.." && pwd)"
        missing="$venvs/frameworks.missing"
        # Whether venv $1 has module $2, without importing it (TensorFlow takes seconds): each
        # was imported once when it was installed.
        has() { "$1/bin/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec('$2') is None)" >/dev/null 2>&1; }
        if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import pandas, PIL, zmq, zenoh" >/dev/null 2>&1; then
            rm -rf "$dir"
            "$py" -m venv "$dir" && "$dir/bin/python" -m pip install -q numpy msgpack pandas pillow pyzmq eclipse-zenoh \
                || { echo "frameworks: FAILED (numpy, pandas, pillow, pyzmq, eclipse-zenoh)" >&2; status=1; continue; }
        fi
        : >"$missing"
        # PyTorch: the torch cache above (PyPI's wheel with its CUDA libraries, ~4 GB, once per
        # machine for both venvs), seen through a .pth as from .venv; the same interpreter.
        fsp="$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        if ! has "$dir" torch; then
            echo "$cache/torch-site" >"$fsp/nerve-torch.pth"
            if ! { bash "$here/setup_peers.sh" torch >"$venvs/frameworks-torch.log" 2>&1 \
                    && "$dir/bin/python" -c "import torch; torch.zeros(1)" >>"$venvs/frameworks-torch.log" 2>&1; }; then
                rm -f "$fsp/nerve-torch.pth"
                echo "torch: $(grep -E 'ERROR|Error|FAILED' "$venvs/frameworks-torch.log" | tail -n 1)" >>"$missing"
            fi
        fi
        # rclpy: the ROS 2 column (std_msgs arrays).
        for fw in "jax:jax[cpu]" "tensorflow:tensorflow-cpu" "paddle:paddlepaddle" \
                  "rclpy:ros-rclpy ros-rmw-fastrtps-cpp ros-std-msgs"; do
            mod="${fw%%:*}"; pkgs="${fw#*:}"
            has "$dir" "$mod" && continue
            # shellcheck disable=SC2086 # pkgs is a list of package names
            if ! "$dir/bin/python" -m pip install -q $pkgs >"$venvs/frameworks-$mod.log" 2>&1 \
                    || ! "$dir/bin/python" -c "import $mod" >>"$venvs/frameworks-$mod.log" 2>&1; then
                echo "$mod: pip install $pkgs failed: $(grep -E 'ERROR|Error' "$venvs/frameworks-$mod.log" | tail -n 1)" >>"$missing"
            fi
        done
        mx="$cache/mxnet"
        if [ ! -x "$mx/bin/python" ] || ! has "$mx" mxnet; then
            rm -rf "$mx"
            if ! { "$py" -m venv "$mx" && "$mx/bin/python" -m pip install -q "numpy<1.24" msgpack pyzmq eclipse-zenoh mxnet >"$venvs/frameworks-mxnet.log" 2>&1 \
                    && "$mx/bin/python" -c "import mxnet" >>"$venvs/frameworks-mxnet.log" 2>&1; }; then
                echo "mxnet: $(grep -E 'ERROR|Error' "$venvs/frameworks-mxnet.log" | tail -n 1)" >>"$missing"
            fi
        fi
        # nerve itself, from the repository's .venv (its compiled package), in both venvs; before
        # it is built (bindings/python/dev.sh setup), the package's folder, where `maturin
        # develop` puts the extension.
        nsp="$("$root/.venv/bin/python" -c 'import nerve, os; print(os.path.dirname(os.path.dirname(nerve.__file__)))' 2>/dev/null)" \
            || nsp="$root/bindings/python/python"
        for v in "$dir" "$mx"; do
            sp="$("$v/bin/python" -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)" || continue
            ln -sfn "$nsp/nerve" "$sp/nerve"
        done
        ln -sfn "$dir" "$venvs/frameworks"
        [ -d "$mx" ] && ln -sfn "$mx" "$venvs/mxnet"
        echo "frameworks: ready ($dir); missing: $(tr '\n' ' ' <"$missing")"
        continue
    fi
    pkgs="$(pkgs_for "$peer")" || { echo "unknown peer $peer" >&2; status=2; continue; }
    dir="$cache/$peer"
    link="$venvs/$peer"
    # An in-tree venv from before the cache: used where it is.
    [ -d "$link" ] && [ ! -L "$link" ] && dir="$link"
    err="$venvs/$peer.error"
    log="$venvs/$peer.log"
    if [ -z "${FORCE:-}" ] && [ -x "$dir/bin/python" ] && [ ! -e "$err" ] \
        && "$dir/bin/python" -c "$(check_for "$peer")" >/dev/null 2>&1; then
        [ "$dir" = "$link" ] || ln -sfn "$dir" "$link"
        echo "$peer: ready ($dir)"
        continue
    fi
    # Not ready: (re)installed in the cache, an in-tree venv replaced by the link.
    [ "$dir" = "$link" ] && rm -rf "$link" && dir="$cache/$peer"
    rm -rf "$dir" "$err"
    echo "$peer: installing $pkgs into $dir ..."
    if ! "$py" -m venv "$dir" >"$log" 2>&1; then
        echo "python3 -m venv failed: $(tail -n 3 "$log" | tr '\n' ' ')" >"$err"
    elif ! "$dir/bin/python" -m pip install -q numpy msgpack $pkgs >>"$log" 2>&1; then
        echo "pip install $pkgs failed: $(grep -E 'ERROR|error' "$log" | tail -n 3 | tr '\n' ' ')" >"$err"
    elif ! "$dir/bin/python" -c "$(check_for "$peer")" >>"$log" 2>&1; then
        echo "installed but '$(check_for "$peer")' failed: $(tail -n 2 "$log" | tr '\n' ' ')" >"$err"
    fi
    if [ -e "$err" ]; then
        echo "$peer: FAILED: $(cat "$err")" >&2
        status=1
    else
        [ "$dir" = "$link" ] || ln -sfn "$dir" "$link"
        echo "$peer: ready ($dir)"
    fi
done
exit $status
