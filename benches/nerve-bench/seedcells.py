"""The cells of the generated benchmark page: rows picked by their fields, a statistic
formatted with its unit, a markdown table (used by ``seeds.py``)."""

from __future__ import annotations

import statistics
from typing import Any

Row = dict[str, Any]


def rows_where(R: list[Row], **flt: Any) -> list[Row]:
    """Rows whose fields equal the filter's values (a callable value is a predicate)."""
    out = []
    for r in R:
        ok = True
        for k, v in flt.items():
            x = r.get(k)
            if callable(v):
                if not v(x):
                    ok = False
                    break
            elif x != v:
                ok = False
                break
        if ok:
            out.append(r)
    return out


def value(R: list[Row], stat: str = "p50", **flt: Any) -> float | None:
    """The statistic of the matching rows (the median over rows, e.g. per-round rows)."""
    vals = [r[stat] for r in rows_where(R, **flt) if isinstance(r.get(stat), (int, float))]
    return statistics.median(vals) if vals else None


def fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "–"
    if unit == "ns":
        if abs(v) >= 1e6:
            return f"{v / 1e6:.2f} ms"
        if abs(v) >= 1e4:
            return f"{v / 1e3:.1f} µs"
        if abs(v) >= 1e3:
            return f"{v / 1e3:.2f} µs"
        return f"{v:.0f} ns"
    if unit == "us":
        return f"{v:.1f} µs" if abs(v) < 1e3 else f"{v / 1e3:.2f} ms"
    if unit == "rate":
        if v >= 1e6:
            return f"{v / 1e6:.2f} M/s"
        if v >= 1e3:
            return f"{v / 1e3:.1f} K/s"
        return f"{v:.0f}/s"
    if unit == "x":
        return f"{v:.3g}×"
    if unit == "pct":
        return f"{v:.1f} %"
    if unit == "hz":
        return f"{v:.1f} Hz"
    return f"{v:.4g}"


def cell(R: list[Row], unit: str, stat: str = "p50", **flt: Any) -> str:
    """A formatted statistic; the error of a matching row that has one; '–' when none."""
    v = value(R, stat, **flt)
    if v is not None:
        return fmt(v, unit)
    errs = [r["error"] for r in rows_where(R, **flt) if "error" in r]
    if errs:
        return "n/a: " + str(errs[0])[:90].replace("|", "/")
    return "–"


def table(head: list[str], body: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in r) + " |"
            for r in body]
    return out


def beaten(ratio: float | None, lower_is_better: bool = True) -> str:
    if ratio is None:
        return "–"
    good = ratio < 1 if lower_is_better else ratio > 1
    return f"{ratio:.3g} ({'yes' if good else 'no'})"
