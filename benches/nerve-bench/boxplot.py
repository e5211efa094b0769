#!/usr/bin/env python3
"""Box plots of Wrapyfi's Fig. 1 from a `nerve-bench python` JSON file: one box per
framework and middleware (the rows' `samples_us`), as the seed draws them.

    boxplot.py python.json --out DIR     (writes DIR/wrapyfi_boxplot.png; needs matplotlib)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json", type=Path)
    p.add_argument("--out", type=Path, default=Path("."))
    a = p.parse_args()
    rows = [r for r in json.loads(a.json.read_text())["results"]
            if r.get("table") == "wrapyfi" and r.get("samples_us")]
    if not rows:
        print("boxplot.py: no wrapyfi rows with samples", file=sys.stderr)
        return 1
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frameworks = sorted({r["message"].split()[0] for r in rows})
    middlewares = ["nerve", "zenoh", "zeromq", "ros2"]
    colours = {"nerve": "tab:red", "zenoh": "tab:blue", "zeromq": "tab:gray",
               "ros2": "tab:green"}
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / len(middlewares)
    for j, mw in enumerate(middlewares):
        data, pos = [], []
        for i, fw in enumerate(frameworks):
            r = next((x for x in rows if x["message"] == f"{fw} {mw}"), None)
            if r:
                data.append(r["samples_us"])
                pos.append(i + (j - (len(middlewares) - 1) / 2) * width)
        if not data:
            continue
        b = ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True,
                       showfliers=False)
        for patch in b["boxes"]:
            patch.set_facecolor(colours[mw])
        ax.plot([], [], color=colours[mw], linewidth=8, label=mw)
    ax.set_xticks(range(len(frameworks)), frameworks)
    ax.set_ylabel("publish → receive, µs (framework object to framework object)")
    ax.set_yscale("log")
    ax.set_title("200×200 tensors of ones at 100 Hz, blocking receive (Wrapyfi Fig. 1)")
    ax.legend()
    ax.grid(True, axis="y", which="both", alpha=0.3)
    a.out.mkdir(parents=True, exist_ok=True)
    out = a.out / "wrapyfi_boxplot.png"
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
