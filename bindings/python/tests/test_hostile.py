"""Hostile use from Python: nothing a Python program does with nerve may crash it, hang it,
corrupt a message, or let a Rust panic through (pyo3's ``PanicException`` is a
``BaseException``: ``except Exception`` would not catch it)."""

import re
from pathlib import Path

import nerve
import pytest
from nerve import _nerve

SRC = Path(__file__).resolve().parents[1] / "src"


# ---------------------------------------------------------------------------------------------
# No panic crosses to Python


def test_a_panic_is_an_internal_error_naming_the_operation():
    with pytest.raises(nerve.InternalError) as e:
        _nerve._panic_for_tests("boom")
    msg = str(e.value)
    assert "internal error in _panic_for_tests: boom" in msg and "report" in msg
    assert isinstance(e.value, nerve.NerveError) and isinstance(e.value, Exception)


def _rust_source_without_literals(text: str) -> str:
    """The source with comments removed and string/char literals blanked (so braces inside
    them do not count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and text[i - 1].isalnum()):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.index('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = end + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            m = re.match(r"'(\\.|[^\\'])'", text[i:i + 4])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _block(text: str, open_at: int) -> str:
    """The text between the brace at ``open_at`` and its match."""
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:j]
    raise AssertionError("unbalanced braces")


def _entry_points() -> list[tuple[str, str]]:
    """Every function Python can call in the native module: ``("file: Type.fn", body)`` for
    each ``fn`` in a ``#[pymethods]`` block and each ``#[pyfunction]``."""
    found = []
    for path in sorted(SRC.rglob("*.rs")):
        text = _rust_source_without_literals(path.read_text())
        name = path.relative_to(SRC)
        for m in re.finditer(r"#\[pymethods\]\s*impl\s+(\w+)[^{]*\{", text):
            block = _block(text, m.end() - 1)
            depth, k = 0, 0
            while k < len(block):
                if block[k] == "{":
                    depth += 1
                elif block[k] == "}":
                    depth -= 1
                elif depth == 0 and (f := re.match(r"fn\s+(\w+)", block[k:])) and (
                        k == 0 or not block[k - 1].isalnum()):
                    brace = block.index("{", k)
                    found.append((f"{name}: {m.group(1)}.{f.group(1)}", _block(block, brace)))
                    k = brace + len(_block(block, brace)) + 2
                    continue
                k += 1
        for m in re.finditer(r"#\[pyfunction\][^{;]*?\bfn\s+(\w+)[^{]*\{", text):
            found.append((f"{name}: {m.group(1)}", _block(text, m.end() - 1)))
    return found


def test_every_entry_point_of_the_native_module_is_guarded():
    # One mechanism for every entry point: the body is one `guard("Class.method", || ...)`
    # (errors.rs), which turns a panic into nerve.InternalError. Only empty bodies
    # (`__releasebuffer__`) run no code that could panic.
    entries = _entry_points()
    assert len(entries) > 80, sorted(entries)  # the scan found the module's methods
    unguarded = [k for k, body in entries
                 if body.strip() and not body.strip().startswith("guard(")]
    assert not unguarded, f"entry points whose body is not one guard(...) call: {unguarded}"
