"""Every ```python block of the repository's README.md runs, in a fresh interpreter on a domain
of its own, and succeeds (the blocks assert what they show)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "README.md"
BLOCKS = [
    (README.read_text()[: m.start()].count("\n") + 1, m.group(1))
    for m in re.finditer(r"^```python\n(.*?)^```", README.read_text(), re.S | re.M)
]


def test_the_readme_has_python_blocks():
    assert BLOCKS, "README.md has no ```python block"


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"README.md:{n}" for n, _ in BLOCKS])
def test_readme_block_runs(line, code, domain):
    env = dict(os.environ, NERVE_DOMAIN=str(domain))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, f"README.md:{line} failed:\n{done.stdout}\n{done.stderr}"
