#!/usr/bin/env python3
"""The house rules a linter cannot check, checked on every `make lint`:

1. no source file of the product (crates/, bindings/, cli/, bridges/; tests, benches and
   generated code aside) over 800 lines;
2. no import circle between the files of one crate (`use crate::a`, `crate::a::b` paths,
   `super::` from a submodule), so each file can be read knowing only the files below it;
3. every atomic ordering stronger than Relaxed (Acquire, Release, AcqRel, SeqCst, and fences)
   names the access it pairs with: a comment with "pairs with" (for SeqCst, a comment that
   names SeqCst and says why) on its line or in the comment block just above its statement
   (one comment may cover a run of adjacent ordered accesses).

Usage: ci/check_structure.py [ROOT]   (exit status 1 and one line per finding)
"""
import re
import sys
from pathlib import Path

MAX_LINES = 800
PRODUCT = ["crates", "bindings", "cli", "bridges"]
SKIP_PARTS = {"tests", "benches", "examples", "target", "generated", ".venv"}
ORDERING = re.compile(r"\b(Acquire|Release|AcqRel|SeqCst)\b")
PARTNER = re.compile(r"pairs with|paired with", re.IGNORECASE)
SEQCST_REASON = re.compile(r"//.*SeqCst")


def product_files(root):
    for top in PRODUCT:
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.rs")):
            rel = path.relative_to(root)
            if SKIP_PARTS.intersection(rel.parts):
                continue
            yield path


def crate_root(path):
    """The `src` directory a file belongs to, and its module path inside it."""
    parts = path.parts
    if "src" not in parts:
        return None, None
    i = len(parts) - 1 - parts[::-1].index("src")
    src = Path(*parts[: i + 1])
    mod = list(parts[i + 1:])
    mod[-1] = mod[-1][:-3]
    if mod[-1] in ("mod", "lib", "main"):
        mod = mod[:-1]
    return src, tuple(mod)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def references(text, module):
    """Module paths this file names: crate::a::b, super::x, use crate::{a, b::c}."""
    code = strip_comments(text)
    refs = set()
    for m in re.finditer(r"\bcrate::((?:\w+::)*\w+)", code):
        refs.add(tuple(m.group(1).split("::")))
    for m in re.finditer(r"\bcrate::\{([^}]*)\}", code):
        for item in m.group(1).split(","):
            item = item.strip().split(" as ")[0]
            if item:
                refs.add(tuple(item.split("::")))
    for m in re.finditer(r"\bsuper::((?:\w+::)*\w+)", code):
        parent = module[:-1]
        refs.add(parent + tuple(m.group(1).split("::")))
    return refs


def check_cycles(files, root, out):
    crates = {}
    for path in files:
        src, module = crate_root(path)
        if src is not None:
            crates.setdefault(src, {})[module] = path
    for modules in crates.values():
        graph = {}
        for module, path in modules.items():
            deps = set()
            for ref in references(path.read_text(), module):
                # The longest prefix of the path that is a file of this crate.
                for n in range(len(ref), 0, -1):
                    if ref[:n] in modules:
                        target = ref[:n]
                        # A parent module (mod.rs) is not "used" by naming its child.
                        if target != module and module[: len(target)] != target:
                            deps.add(target)
                        break
            graph[module] = deps
        for cycle in find_cycles(graph):
            names = " -> ".join(str(modules[m].relative_to(root)) for m in cycle)
            out.append(f"import circle: {names}")


def find_cycles(graph):
    seen, stack, on_stack, cycles = set(), [], set(), []

    def visit(node):
        seen.add(node)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(graph.get(node, ())):
            if dep in on_stack:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in seen:
                visit(dep)
        stack.pop()
        on_stack.discard(node)

    for node in sorted(graph):
        if node not in seen:
            visit(node)
    return cycles


def check_orderings(path, root, out):
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if not ORDERING.search(code) or code.strip().startswith("use "):
            continue
        if re.search(r"\buse\b.*Ordering", code):
            continue
        wanted = SEQCST_REASON if "SeqCst" in code and not re.search(
            r"\b(Acquire|Release|AcqRel)\b", code) else PARTNER
        if wanted.search(line):
            continue
        # The comment block above the statement: walk up over the statement's own lines and
        # comments until a blank line or the end of the previous statement.
        ok = False
        j = i - 1
        while j >= 0 and i - j <= 12:
            prev = lines[j].strip()
            if wanted.search(prev) or (prev.startswith("//") and PARTNER.search(prev)):
                ok = True
                break
            ends_statement = prev.endswith((";", "{"))
            if not prev or (ends_statement and not prev.startswith("//")
                            and not ORDERING.search(prev.split("//", 1)[0])):
                break
            j -= 1
        if not ok:
            rel = path.relative_to(root)
            out.append(f"{rel}:{i + 1}: ordering without its partner: {line.strip()}")


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    out = []
    files = list(product_files(root))
    for path in files:
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            out.append(f"{path.relative_to(root)}: {n} lines "
                       f"(at most {MAX_LINES}: split it along its seams)")
    check_cycles(files, root, out)
    for path in files:
        check_orderings(path, root, out)
    for line in out:
        print(line)
    if out:
        print(f"check_structure: {len(out)} finding(s)", file=sys.stderr)
        return 1
    print(f"check_structure: {len(files)} files: sizes, import circles and orderings ok",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
