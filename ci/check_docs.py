#!/usr/bin/env python3
"""The map checks itself, on every `make lint`:

1. every repository path a doc names (README.md and docs/**/*.md; in backquotes or as a
   relative link) exists, unless git ignores it (a build output, a run's folder) or it is a
   pattern (`*`, `<name>`, `…`);
2. every workspace member (Cargo.toml) appears in docs/ARCHITECTURE.md's crate table;
3. every file kept under docs/results is cited (by a doc, README or a program), itself or a
   folder above it: run logs no doc names are removed (git keeps them);
4. no two tracked files whose names differ only in case (they collide on macOS and Windows
   checkouts).

Usage: ci/check_docs.py [ROOT]   (exit status 1 and one line per finding)
"""
import re
import subprocess
import sys
from pathlib import Path

CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATTERN = re.compile(r"[*<>{}$…?\[\]|]|\.\.\.")


def tracked(root):
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


def ignored(root, path):
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=root,
                          check=False).returncode == 0


def candidates(text, doc, root, tops):
    """(line, path relative to the root) for each repository path `doc` names."""
    for n, line in enumerate(text.splitlines(), 1):
        for m in CODE.finditer(line):
            word = m.group(1).strip()
            # `path:line`, `path#anchor` and a trailing slash name the path.
            word = re.sub(r"(:\d+(-\d+)?|#[\w-]+)$", "", word).rstrip("/")
            if " " in word or PATTERN.search(word) or word.startswith(("-", "/", "~")):
                continue
            if word.split("/", 1)[0] in tops and ("/" in word or "." in word):
                yield n, word
        for m in LINK.finditer(line):
            target = m.group(1).split("#", 1)[0]
            # A link to a file: it has a folder or an extension (rustdoc's `(self)` is not).
            if (not target or re.match(r"^[a-z]+:", target) or PATTERN.search(target)
                    or not re.search(r"[/.]", target)):
                continue
            path = (doc.parent / target).resolve()
            try:
                yield n, str(path.relative_to(root))
            except ValueError:
                continue  # outside the repository (`../shared/…`)


def check_paths(root, docs, out):
    tops = {p.name for p in root.iterdir() if not p.name.startswith(".git")}
    tops -= {"target"}
    for doc in docs:
        for n, path in candidates(doc.read_text(), doc, root, tops):
            if (root / path).exists() or ignored(root, path):
                continue
            out.append(f"{doc.relative_to(root)}:{n}: names `{path}`, which does not exist")


def check_members(root, out):
    cargo = (root / "Cargo.toml").read_text()
    block = re.search(r"members\s*=\s*\[(.*?)\]", cargo, re.DOTALL)
    members = re.findall(r'"([^"]+)"', block.group(1)) if block else []
    arch = (root / "docs" / "ARCHITECTURE.md").read_text()
    # The crate table: the first table after "## The crates".
    section = arch.split("## The crates", 1)[-1]
    table = "\n".join(line for line in section.split("\n\n### ", 1)[0].splitlines()
                      if line.startswith("|"))
    for member in members:
        if not re.search(rf"`{re.escape(member)}/?`", table):
            out.append(f"docs/ARCHITECTURE.md: the workspace member `{member}` is not in "
                       "its crate table")


def check_results(root, files, out):
    """Every file kept under docs/results is cited: a doc, README or a program names it or a
    folder above it (deeper than docs/results itself)."""
    cite = re.compile(r"docs/results/[\w./-]+")
    cited = set()
    for f in files:
        if f.startswith("docs/results/") or not f.endswith((".md", ".py", ".rs", ".toml")):
            continue
        path = root / f
        if path.exists():
            cited.update(c.rstrip("./") for c in cite.findall(path.read_text(errors="replace")))
    cited.discard("docs/results")
    uncited = set()
    for f in files:
        if f.startswith("docs/results/") and not any(
                f == c or f.startswith(c + "/") for c in cited):
            uncited.add(f.rsplit("/", 1)[0])
    for folder in sorted(uncited):
        out.append(f"{folder}/: no doc cites it: cite what it shows, or remove it")


def check_case(files, out):
    seen = {}
    for f in files:
        key = f.lower()
        if key in seen and seen[key] != f:
            out.append(f"`{seen[key]}` and `{f}` differ only in case: rename one")
        seen.setdefault(key, f)


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    files = tracked(root)
    docs = [root / f for f in files
            if f.endswith(".md") and (f == "README.md" or f.startswith("docs/"))
            and not f.startswith("docs/results/") and (root / f).exists()]
    out = []
    check_paths(root, docs, out)
    check_members(root, out)
    check_results(root, files, out)
    check_case(files, out)
    for line in out:
        print(line)
    if out:
        print(f"check_docs: {len(out)} finding(s)", file=sys.stderr)
        return 1
    print(f"check_docs: {len(docs)} docs: paths, workspace members and name case ok",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
