#!/usr/bin/env bash
# `make test`: every check CI runs, as timed phases, then one summary. The commands are the
# Makefile's targets (one home); this script orders them, times them and sums them up.
#
# Compile once: clippy checks, then ONE release build (`cargo test --no-run` over the whole
# workspace) makes every test binary, the `nerve` CLI, the examples and the dependencies the
# Python extension links; the no-solo run and the extension reuse it (the features of every
# third-party crate are the same whatever is selected: crates/nerve-unify). The Python
# environment (pip, Chromium, ROS 2's and PyTorch's wheels, cached once per machine under
# ~/.cache/nerve) installs in the background while Rust compiles.
#
# A failing test phase does not stop the others: the summary counts them all and the exit
# status says whether anything failed. A failed build stops at once.
# Output: target/test-report/ (a log per phase, phases.tsv, skips.tsv, summary.md).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
report="$root/target/test-report"
rm -rf "$report"
mkdir -p "$report"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
export NERVE_SKIP_LOG="$report/skips.tsv"
: >"$NERVE_SKIP_LOG"
: >"$report/phases.tsv"
started=$(date +%s%N)
# Seconds since a `date +%s%N`, one decimal.
since() { local ds=$((($(date +%s%N) - $1) / 100000000)); echo "$((ds / 10)).$((ds % 10))"; }

# phase NAME COMMAND...: runs COMMAND, its output on the console and in NAME.log; records the
# wall time and the exit status.
phase() {
  local name="$1" t0 rc
  shift
  echo "== $name: $*"
  t0=$(date +%s%N)
  # The console gets the output as it is; the log gets each line with the seconds since the
  # phase began (the summary finds the slowest test binaries from them).
  "$@" 2>&1 | PHASE_LOG="$report/$name.log" perl -MTime::HiRes=time -ne '
    BEGIN { $| = 1; $t0 = time; open(L, ">", $ENV{PHASE_LOG}) or die "$ENV{PHASE_LOG}: $!";
            select((select(L), $| = 1)[0]) }
    print $_; printf L "[%7.1fs] %s", time - $t0, $_'
  rc=${PIPESTATUS[0]}
  printf '%s\t%s\t%s\n' "$name" "$(since "$t0")" "$rc" >>"$report/phases.tsv"
  [ "$rc" = 0 ] || echo "== $name FAILED (exit $rc)"
  return "$rc"
}

summary() {
  python3 "$root/ci/summary.py" "$report" "$(since "$started")"
}

failed=0
# The interpreter the extension is built for exists before anything compiles pyo3, so the
# extension's later build finds pyo3 configured for it (PYO3_PYTHON) and compiles nothing again.
[ -x .venv/bin/python ] || python3 -m venv .venv
export PYO3_PYTHON="$root/.venv/bin/python"

# The Python environment installs while Rust compiles (network and disk, little CPU).
(
  t0=$(date +%s%N)
  bash bindings/python/dev.sh setup >"$report/python-setup.log" 2>&1
  rc=$?
  printf '%s\t%s\t%s\n' "python-setup (background)" "$(since "$t0")" "$rc" >>"$report/phases.tsv"
  echo "$rc" >"$report/python-setup.rc"
) &
setup_pid=$!

phase fmt make --no-print-directory fmt || failed=1
phase structure make --no-print-directory structure || failed=1
phase clippy make --no-print-directory clippy || failed=1
if ! phase build make --no-print-directory rust-build; then
  wait "$setup_pid"
  summary
  exit 1
fi
phase rust-tests make --no-print-directory rust-tests || failed=1
phase rust-no-solo make --no-print-directory rust-no-solo || failed=1
phase miri make --no-print-directory test-miri || failed=1

wait "$setup_pid"
if [ "$(cat "$report/python-setup.rc" 2>/dev/null)" != 0 ]; then
  echo "== python-setup FAILED: the end of target/test-report/python-setup.log:"
  tail -n 30 "$report/python-setup.log"
  failed=1
fi
if phase python-build bash bindings/python/dev.sh build; then
  phase pytest bash bindings/python/dev.sh test || failed=1
  phase python-check bash bindings/python/dev.sh check || failed=1
else
  failed=1
fi

summary || failed=1
exit "$failed"
