#!/usr/bin/env python3
"""The house rules a linter cannot check, checked on every `make lint`:

1. no source file of the product or its benchmarks (crates/, bindings/, cli/, bridges/,
   benches/; tests and generated code aside) over 800 lines;
2. no import circle between the files of one crate, whatever the form of the path: every `use`
   (nested trees, `pub use self::…` re-exports, `super::`, a child module's own name, renames)
   and every inline `crate::`, `self::`, `super::` path; so each file can be read knowing only
   the files below it;
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
PRODUCT = ["crates", "bindings", "cli", "bridges", "benches"]
SKIP_PARTS = {"tests", "examples", "target", "generated", ".venv"}
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


# Comments, strings (raw ones too) and char literals, removed in one pass so that neither
# hides or invents the other (`"http://…"`, `// "quoted"`).
NOT_CODE = re.compile(r"""//[^\n]*|/\*.*?\*/|r(#*)"(?:.|\n)*?"\1|b?"(?:[^"\\]|\\.)*"|b?'(?:[^'\\\n]|\\[^\n]{1,9}?)'""",
                      re.DOTALL)


def strip_code(text):
    return NOT_CODE.sub(lambda m: '""' if m.group(0).endswith(('"', "#")) else " ", text)


def use_paths(tree):
    """Every path a use tree names: `a::{b, c::{d as e, self}}` -> a::b, a::c::d, a::c."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    if "{" not in tree:
        return [tuple(p for p in tree.split("::") if p and p != "*")]
    head, _, rest = tree.partition("{")
    body = rest[: rest.rindex("}")]
    prefix = tuple(p for p in head.split("::") if p)
    paths, depth, item = [], 0, ""
    for ch in body + ",":
        if ch == "," and depth == 0:
            if item:
                for sub in use_paths(item):
                    if sub == ("self",):
                        paths.append(prefix)
                    else:
                        paths.append(prefix + tuple(p for p in sub if p != "self"))
            item = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        item += ch
    return paths


def resolve(path, module, modules):
    """The module path inside the crate that a `crate::`, `self::`, `super::` (or a child
    module's own name) path starts from; None for another crate's path."""
    if not path:
        return None
    if path[0] == "crate":
        return path[1:]
    if path[0] in ("self", "super"):
        base = module
        while path and path[0] in ("self", "super"):
            if path[0] == "super":
                base = base[:-1]
            path = path[1:]
        return base + path
    if module + path[:1] in modules:
        return module + path
    return None


def references(text, module, modules=()):
    """Module paths this file names: every `use` (nested trees, `self::`, `super::`, a child
    module's own name, ` as ` renames) and every inline `crate::`, `self::`, `super::` path."""
    code = strip_code(text)
    refs = set()
    for m in re.finditer(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", code):
        for path in use_paths(m.group(1)):
            target = resolve(path, module, modules)
            if target is not None:
                refs.add(target)
    for m in re.finditer(r"\b((?:crate|self|super)(?:::(?:self|super))*::\w+(?:::\w+)*)", code):
        target = resolve(tuple(m.group(1).split("::")), module, modules)
        if target is not None:
            refs.add(target)
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
            for ref in references(path.read_text(), module, modules):
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
