#!/usr/bin/env python3
"""One API in three languages: docs/api.md maps each concept of nerve's API (subscriber
counters, endpoint settings, topic options, error kinds, scheduler and node options, limits,
the registry watch, the remote e-stop, the stored type, received messages) to its name in
Rust, Python and C. This reads the three fronts' source and holds the table to it:

1. every name the code has in a section's lists (a struct's fields, an enum's variants, a
   builder's options, a stub's keywords, nerve.h's fields and codes) is in that section's
   table, in its language's column;
2. every name a cell gives (in backquotes) is one the code has in that section;
3. an absent cell (`—`) has a note: why it is absent, or "gap: <what to do>";
4. an error row agrees with the conversions: the Python class and the C code that the
   bindings' `match` arms give its Rust variant are among the names of its cells;
5. the tuples Python passes for a Rust struct have its arity (`Subscriber.stats()` and
   `SubscriberStats`; the stored-type tuples and `StoredType`).

Rust and C are read with regular expressions (comments and strings blanked first), Python
with `ast`. What each section reads is SECTIONS below: a new list of names is one line there.

Usage: ci/check_api.py [ROOT]   (exit status 1 and one line per finding)
"""
import ast
import difflib
import re
import sys
from collections import namedtuple
from functools import cache
from pathlib import Path

DOC = "docs/api.md"
LANGS = ("Rust", "Python", "C")
HEADER = ["concept/field", "Rust", "Python", "C", "note"]
ABSENT = "—"
CODE = re.compile(r"`([^`\n]+)`")
SKIP_PARTS = {"tests", "target", ".venv"}

TRANSPORT = "crates/nerve-transport/src/"
EXEC = "crates/nerve-exec/src/"
RPC_ERRORS = "crates/nerve-rpc/src/error.rs"
PYPKG = "bindings/python/python/nerve/"
PYI = PYPKG + "_nerve.pyi"
PYINIT = PYPKG + "__init__.py"
PYSRC = "bindings/python/src/"
HEADER_FILE = "bindings/c/include/nerve.h"
CSRC = "bindings/c/src/"


class Missing(Exception):
    """Something SECTIONS reads is not in the code (moved or renamed): the checker is stale."""


# ---------------------------------------------------------------------------------------------
# Reading the code

@cache
def read(root, rel):
    path = root / rel
    if not path.is_file():
        raise Missing(f"{rel} does not exist")
    return path.read_text(errors="replace")


def blank(pattern, text):
    """`text` with each match of `pattern` turned to spaces, newlines kept: offsets and line
    numbers stay the file's."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


RUST_NOT_CODE = re.compile(r"""//[^\n]*|/\*.*?\*/|(?<!\w)b?r(#*)".*?"\1|b?"(?:[^"\\]|\\.)*"|"""
                           r"""b?'(?:[^'\\\n]|\\[^\n]{1,9}?)'""", re.DOTALL)
C_NOT_CODE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


@cache
def rust(root, rel):
    return blank(RUST_NOT_CODE, read(root, rel))


@cache
def c_code(root, rel):
    return blank(C_NOT_CODE, read(root, rel))


def loc(rel, text, offset):
    return f"{rel}:{text.count(chr(10), 0, offset) + 1}"


def close_of(text, start):
    """The index of the brace that closes the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise Missing(f"an unclosed brace at offset {start}")


def block(text, header, rel):
    """(where `header` starts, body start, body end) of the first body in braces after a match
    of `header`."""
    m = re.search(header, text)
    if not m:
        raise Missing(f"{rel} has no {header!r}")
    start = text.find("{", m.end())
    if start < 0 or ";" in text[m.end():start]:
        raise Missing(f"{rel}: {header!r} has no body in braces")
    return m.start(), start + 1, close_of(text, start)


def rust_files(root, where):
    if where.endswith(".rs"):
        return [where]
    base = root / where
    if not base.is_dir():
        raise Missing(f"{where} does not exist")
    return [p.relative_to(root).as_posix() for p in sorted(base.rglob("*.rs"))
            if not SKIP_PARTS.intersection(p.relative_to(root).parts)]


# ---------------------------------------------------------------------------------------------
# Rust: each extractor gives {name: "path:line"}

def rust_fields(root, rel, struct):
    """A struct's name and its `pub` fields."""
    text = rust(root, rel)
    at, a, b = block(text, rf"\bstruct\s+{struct}\b", rel)
    out = {struct: loc(rel, text, at)}
    for m in re.finditer(r"\bpub\s+(\w+)\s*:", text[a:b]):
        out[m.group(1)] = loc(rel, text, a + m.start(1))
    return out


NESTED = re.compile(r"\{[^{}]*\}|\([^()]*\)|\[[^\[\]]*\]")


def rust_variants(root, rel, enum):
    """An enum's name and its variants, as `Enum::Variant`."""
    text = rust(root, rel)
    at, a, b = block(text, rf"\benum\s+{enum}\b", rel)
    flat = text[a:b]
    # Fields and attributes blanked, innermost first: what is left is the variants' names.
    while NESTED.search(flat):
        flat = blank(NESTED, flat)
    out = {enum: loc(rel, text, at)}
    for m in re.finditer(r"\b([A-Z]\w*)\b", flat):
        out[f"{enum}::{m.group(1)}"] = loc(rel, text, a + m.start(1))
    return out


def rust_fns(root, rel, header, prefix="", skip=(), fn=r"\bpub\s+fn\s+(\w+)"):
    """The functions (`pub` ones by default) in the body after `header` (an impl block, a
    trait, a macro), as `prefix` + name."""
    text = rust(root, rel)
    _, a, b = block(text, header, rel)
    return {prefix + m.group(1): loc(rel, text, a + m.start(1))
            for m in re.finditer(fn, text[a:b]) if m.group(1) not in skip}


def rust_grep(root, where, pattern, fmt="{0}"):
    """Group 1 of each match of `pattern` in a file, or in every .rs file under a folder;
    `fmt` may qualify it with the file's stem (`{stem}::{0}`)."""
    out = {}
    for rel in rust_files(root, where):
        text = rust(root, rel)
        for m in re.finditer(pattern, text):
            out[fmt.format(m.group(1), stem=Path(rel).stem)] = loc(rel, text, m.start(1))
    return out


# ---------------------------------------------------------------------------------------------
# C (nerve.h, and the constants of the binding's Rust source)

def c_fields(root, rel, struct):
    """A typedef'd struct's name and its fields."""
    text = c_code(root, rel)
    at, a, b = block(text, rf"\btypedef\s+struct\s+{struct}\b", rel)
    out = {struct: loc(rel, text, at)}
    for m in re.finditer(r"(\w+)\s*(?:\[[^\]]*\])?\s*;", text[a:b]):
        out[m.group(1)] = loc(rel, text, a + m.start(1))
    return out


def c_structs(root, rel, pattern):
    """The typedef'd structs whose name matches."""
    text = c_code(root, rel)
    return {m.group(1): loc(rel, text, m.start(1))
            for m in re.finditer(r"\btypedef\s+struct\s+(\w+)", text)
            if re.fullmatch(pattern, m.group(1))}


def c_defines(root, rel, pattern):
    text = c_code(root, rel)
    return {m.group(1): loc(rel, text, m.start(1))
            for m in re.finditer(r"(?m)^[ \t]*#define\s+(\w+)", text)
            if re.fullmatch(pattern, m.group(1))}


def c_functions(root, rel, pattern):
    text = c_code(root, rel)
    return {m.group(1): loc(rel, text, m.start(1))
            for m in re.finditer(r"(?m)^(?:(?:const|struct|unsigned)\s+)*\w+[\s*]+(\w+)\s*\(", text)
            if re.fullmatch(pattern, m.group(1))}


def c_params(root, rel, function, skip=()):
    """The parameters of a function's prototype, but the handles in `skip`."""
    text = c_code(root, rel)
    m = re.search(rf"\b{function}\s*\(([^)]*)\)", text)
    if not m:
        raise Missing(f"{rel} has no {function}()")
    out = {}
    for p in re.finditer(r"(\w+)\s*(?:,|$)", m.group(1)):
        if p.group(1) not in skip:
            out[p.group(1)] = loc(rel, text, m.start(1) + p.start(1))
    return out


# ---------------------------------------------------------------------------------------------
# Python (the stubs and the package's modules, by `ast`)

@cache
def py_tree(root, rel):
    return ast.parse(read(root, rel), filename=rel)


def py_def(root, rel, dotted):
    """The class or function `dotted` names (`Topic.__init__`, `spin`)."""
    node = py_tree(root, rel)
    for part in dotted.split("."):
        node = next((n for n in node.body if getattr(n, "name", None) == part
                     and isinstance(n, (ast.ClassDef, ast.FunctionDef))), None)
        if node is None:
            raise Missing(f"{rel} has no {dotted}")
    return node


def py_kwargs(root, rel, dotted):
    """A function's keyword-only parameters."""
    fn = py_def(root, rel, dotted)
    return {a.arg: f"{rel}:{a.lineno}" for a in fn.args.kwonlyargs}


def py_fields(root, rel, cls):
    """A class's name and its annotated attributes (a NamedTuple's fields)."""
    c = py_def(root, rel, cls)
    out = {cls: f"{rel}:{c.lineno}"}
    for n in c.body:
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            out[n.target.id] = f"{rel}:{n.lineno}"
    return out


def py_methods(root, rel, classes, pattern):
    out = {}
    for cls in classes:
        for n in py_def(root, rel, cls).body:
            if isinstance(n, ast.FunctionDef) and re.fullmatch(pattern, n.name):
                out[n.name] = f"{rel}:{n.lineno}"
    return out


def py_modules(root, rels):
    """`rels`, a folder among them standing for its .py and .pyi files."""
    for rel in rels:
        if rel.endswith("/"):
            yield from (p.relative_to(root).as_posix() for p in sorted((root / rel).iterdir())
                        if p.suffix in (".py", ".pyi"))
        else:
            yield rel


def py_names(root, rels, pattern):
    """Module-level classes and functions whose name matches."""
    out = {}
    for rel in py_modules(root, rels):
        for n in py_tree(root, rel).body:
            if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and re.fullmatch(pattern, n.name):
                out.setdefault(n.name, f"{rel}:{n.lineno}")
    return out


def py_identifiers(root, rel, pattern):
    """Functions, methods and parameters anywhere in a module whose name matches."""
    out = {}
    for n in ast.walk(py_tree(root, rel)):
        names = []
        if isinstance(n, ast.FunctionDef):
            a = n.args
            names = [(n.name, n)] + [(x.arg, x) for x in a.posonlyargs + a.args + a.kwonlyargs]
        for name, node in names:
            if re.fullmatch(pattern, name):
                out.setdefault(name, f"{rel}:{node.lineno}")
    return out


def base_name(node):
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def py_exceptions(root, *rels):
    """Every exception class the modules define (a base chain that reaches a builtin one)."""
    classes = {}
    for rel in py_modules(root, rels):
        for n in py_tree(root, rel).body:
            if isinstance(n, ast.ClassDef):
                classes.setdefault(n.name, (rel, n))
    exceptions = {"BaseException", "Exception", "ValueError", "RuntimeError", "TypeError"}
    grew = True
    while grew:
        grew = False
        for name, (_, n) in classes.items():
            if name not in exceptions and any(base_name(b) in exceptions for b in n.bases):
                exceptions.add(name)
                grew = True
    return {name: f"{rel}:{n.lineno}" for name, (rel, n) in classes.items() if name in exceptions}


def py_assigned(root, rel, pattern):
    """Module-level names bound by `=` or `x: T` (tuples of names too) that match."""
    out = {}
    for n in py_tree(root, rel).body:
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] \
            if isinstance(n, ast.AnnAssign) else []
        for t in targets:
            for name in t.elts if isinstance(t, ast.Tuple) else [t]:
                if isinstance(name, ast.Name) and re.fullmatch(pattern, name.id):
                    out[name.id] = f"{rel}:{n.lineno}"
    return out


def tuple_arity(node):
    """How many items a `tuple[...]` annotation has; None for anything else."""
    if isinstance(node, ast.Subscript) and base_name(node.value) == "tuple":
        return len(node.slice.elts) if isinstance(node.slice, ast.Tuple) else 1
    return None


def py_tuple_aliases(root, rel, pattern):
    """{alias: (arity, where)} for the module's `Alias = tuple[...]` that match."""
    out = {}
    for n in py_tree(root, rel).body:
        if (isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and re.fullmatch(pattern, n.targets[0].id)
                and tuple_arity(n.value) is not None):
            out[n.targets[0].id] = (tuple_arity(n.value), f"{rel}:{n.lineno}")
    return out


def py_tuples(root, rel, pattern, item):
    """The tuple aliases, and their positions as `item[0]`, `item[1]`, …"""
    aliases = py_tuple_aliases(root, rel, pattern)
    if not aliases:
        raise Missing(f"{rel} has no tuple alias matching {pattern!r}")
    out = {name: where for name, (_, where) in aliases.items()}
    arity, where = next(iter(aliases.values()))
    out.update({f"{item}[{i}]": where for i in range(arity)})
    return out


# ---------------------------------------------------------------------------------------------
# What each section of docs/api.md is held to: per language, the sources of its names.
# `has`: every name it gives must be in the table; `may`: a cell may name it.

Source = namedtuple("Source", "complete fn args")


def has(fn, *args):
    return Source(True, fn, args)


def may(fn, *args):
    return Source(False, fn, args)


BUILDER = EXEC + "scheduler/builder.rs"
WATCH = TRANSPORT + "registry/watch.rs"
ERRORS = "Error kinds"
ENUMS = [has(rust_variants, TRANSPORT + "error.rs", e)
         for e in ("OpenError", "SendError", "RecvError", "WatchError")]
ENUMS += [has(rust_variants, RPC_ERRORS, e)
          for e in ("CallError", "ServeError", "ActionError", "ParamError")]

SECTIONS = {
    "Subscriber stats": {
        "Rust": [has(rust_fields, TRANSPORT + "subscribe.rs", "SubscriberStats")],
        "Python": [has(py_fields, PYINIT, "SubscriberStats")],
        "C": [has(c_fields, HEADER_FILE, "nerve_subscriber_stats")],
    },
    "Publisher stats": {
        "Rust": [has(rust_grep, TRANSPORT, r"\bpub\s+struct\s+(\w*Publisher\w*Stats)\b")],
        "Python": [has(py_names, [PYPKG], r"\w*Publisher\w*Stats")],
        "C": [has(c_structs, HEADER_FILE, r"nerve_publisher\w*stats"),
              has(c_functions, HEADER_FILE, r"nerve_publisher\w*stats")],
    },
    "Endpoint settings": {
        "Rust": [has(rust_grep, TRANSPORT + "topic.rs",
                     r"\bpub\s+fn\s+(set_\w+|subscriber_with_history)\b")],
        "Python": [has(py_methods, PYINIT, ("Publisher", "Subscriber"), r"set_\w+"),
                   has(py_kwargs, PYINIT, "Topic.subscriber")],
        "C": [has(c_functions, HEADER_FILE, r"nerve_(?:publisher|subscriber)_set_\w+"),
              has(c_params, HEADER_FILE, "nerve_subscriber_open", ("topic", "out"))],
    },
    "Topic options": {
        "Rust": [has(rust_grep, TRANSPORT + "topic.rs", r"\bpub\s+struct\s+(TopicBuilder)\b"),
                 has(rust_fns, TRANSPORT + "open.rs", r"macro_rules!\s*topic_builder_options"),
                 has(rust_fns, TRANSPORT + "raw.rs", r"\bimpl\s+RawTopicBuilder\b", "",
                     ("open",))],
        "Python": [has(py_names, [PYINIT], "Topic"), has(py_kwargs, PYINIT, "Topic.__init__")],
        "C": [has(c_fields, HEADER_FILE, "nerve_topic_options"),
              has(c_defines, HEADER_FILE,
                  r"NERVE_(?:BEST_EFFORT|RELIABLE|LATEST_ONLY|DOMAIN_\w+)")],
    },
    ERRORS: {
        "Rust": ENUMS + [has(rust_grep, TRANSPORT + "error.rs", r"\bpub\s+type\s+(\w+Error)\b"),
                         may(rust_grep, EXEC + "error.rs", r"\bpub\s+enum\s+(\w+)")],
        "Python": [has(py_exceptions, PYI, PYPKG)],
        "C": [has(c_defines, HEADER_FILE, r"NERVE_(?:E_\w+|OK|EMPTY)")],
    },
    "Scheduler options": {
        "Rust": [has(rust_fns, BUILDER, r"\bimpl\s+SchedulerBuilder\b", "", ("node",))],
        "Python": [has(py_kwargs, PYI, "Scheduler.__new__")],
        "C": [has(c_functions, HEADER_FILE, r"nerve_sched\w*")],
    },
    "Node options": {
        "Rust": [has(rust_fns, BUILDER, r"\bimpl\s+NodeEntry\b", "", ("node", "done")),
                 may(rust_fns, EXEC + "node.rs", r"\bpub\s+trait\s+Node\b", "Node::", (),
                     r"\bfn\s+(\w+)")],
        "Python": [has(py_kwargs, PYI, "Scheduler.add"), has(py_kwargs, PYINIT, "spin")],
        "C": [has(c_functions, HEADER_FILE, r"nerve_node\w*")],
    },
    "Limits": {
        "Rust": [has(rust_grep, "crates", r"\bconst\s+(MAX_DEPTH)\b", "{stem}::{0}"),
                 has(rust_grep, "bridges", r"\bconst\s+(MAX_DEPTH)\b", "{stem}::{0}")]
        + [has(rust_grep, f, r"\bpub\s+const\s+((?:MAX|DEFAULT)_\w+)", "{stem}::{0}")
           for f in (TRANSPORT + "open.rs", TRANSPORT + "shared.rs", TRANSPORT + "subscribe.rs",
                     TRANSPORT + "document.rs", "crates/nerve-msgs/src/described.rs")],
        "Python": [has(py_assigned, PYI, r"(?:MAX|DEFAULT)_\w+"),
                   has(rust_grep, PYSRC + "topic.rs", r"\bconst\s+(MAX_\w+)", "{stem}::{0}"),
                   has(rust_grep, PYSRC, r"\bconst\s+(MAX_DEPTH)\b", "{stem}::{0}")],
        "C": [has(c_defines, HEADER_FILE, r"NERVE_(?:MAX|DEFAULT)_\w+"),
              has(rust_grep, CSRC, r"\bconst\s+(MAX_\w+)", "{stem}::{0}")],
    },
    "Registry watch": {
        "Rust": [has(rust_grep, WATCH, r"\bpub\s+fn\s+(watch)\b", "registry::{0}"),
                 has(rust_fns, WATCH, r"\bimpl\s+Watch\s*(?=\{)", "Watch::"),
                 has(rust_variants, WATCH, "Event"),
                 has(rust_grep, TRANSPORT + "registry/mod.rs", r"\bpub\s+fn\s+(list)\b",
                     "registry::{0}")],
        "Python": [has(py_names, [PYI, PYINIT], r"(?i)\w*watch\w*|topics")],
        "C": [has(c_functions, HEADER_FILE, r"nerve_watch_\w+"),
              has(c_fields, HEADER_FILE, "nerve_event"),
              has(c_defines, HEADER_FILE,
                  r"NERVE_(?:TOPIC|ENDPOINT)_\w+|NERVE_PROCESS_DIED|NERVE_REGISTRY_REBUILT")],
    },
    "Remote e-stop": {
        "Rust": [has(rust_grep, EXEC + "remote.rs", r"\bpub\s+(?:fn|struct|const)\s+"
                                                   r"((?i:\w*estop\w*))\b"),
                 may(rust_fns, BUILDER, r"\bimpl\s+SchedulerBuilder\b"),
                 may(rust_fns, EXEC + "estop.rs", r"\bimpl\s+EStop\s*(?=\{)", "EStop::")],
        "Python": [has(py_identifiers, PYI, r"\w*estop\w*")],
        "C": [has(c_functions, HEADER_FILE, r"nerve_estop_\w+")],
    },
    "Stored type": {
        "Rust": [has(rust_fields, "crates/nerve-shm/src/layout.rs", "StoredType"),
                 has(rust_variants, "crates/nerve-msgs/src/fingerprint.rs", "MessageKind")],
        "Python": [has(py_tuples, PYI, r"_Stored\w*", "stored_type"),
                   has(py_assigned, PYINIT, r"_FIXED|_CHUNK|_SERIALIZED")],
        "C": [has(c_fields, HEADER_FILE, "nerve_type"),
              has(c_defines, HEADER_FILE, r"NERVE_KIND_\w+")],
    },
    "Received messages": {
        "Rust": [has(rust_grep, "crates", r"\bpub\s+type\s+(Received)\b", "{stem}::{0}")],
        "Python": [has(py_names, [PYPKG], r"Received\w*")],
        "C": [has(c_functions, HEADER_FILE, r"nerve_received\w*")],
    },
}

# ---------------------------------------------------------------------------------------------
# The error conversions: which Python class and which C code each Rust variant becomes

PY_CONVERSIONS = [PYSRC + f for f in ("errors.rs", "rpc.rs", "action.rs")]
C_CONVERSIONS = [CSRC + f for f in ("status.rs", "service.rs", "params.rs")]
TARGETS = {"Python": re.compile(r"\b(\w+)::new_err\b"), "C": re.compile(r"\b(NERVE_\w+)")}
# An arm that hands the error to another conversion (`ParamError::Call(c) => call_err(c)`).
DELEGATED = None


def fn_bodies(text):
    for m in re.finditer(r"\bfn\s+\w+[^{;]*\{", text):
        yield m.end(), close_of(text, m.end() - 1)


def arms(rel, text, a, b, target, table):
    """Adds the arms of one function's `match` on one enum to `table`: {enum: {variant, or
    None for the catch-all: (class or code, where)}}."""
    body = text[a:b]
    alias = {al: enum for enum, al in re.findall(r"\buse\s+(?:\w+::)*(\w+)\s+as\s+(\w+)\s*;", body)}
    found, default = {}, None
    for m in re.finditer(r"(?m)^[ \t]*([^\n]*?)=>([^\n]*)", body):
        t = target.search(m.group(2))
        got = (t.group(1) if t else DELEGATED, loc(rel, text, a + m.start()))
        pats = re.findall(r"\b(\w+)::(\w+)\b", m.group(1))
        for enum, variant in pats:
            found.setdefault((alias.get(enum, enum), variant), got)
        if not pats and re.fullmatch(r"\s*(?:_|[a-z]\w*)\s*", m.group(1)):
            default = got
    enums = {enum for enum, _ in found}
    if len(enums) != 1:
        return  # not one enum's conversion
    entry = table.setdefault(enums.pop(), {})
    for (_, variant), got in found.items():
        entry.setdefault(variant, got)
    if default:
        entry.setdefault(None, default)


def conversions(root, rels, target):
    table = {}
    for rel in rels:
        text = rust(root, rel)
        for a, b in fn_bodies(text):
            arms(rel, text, a, b, target, table)
    return table


def check_conversions(root, rows, out):
    try:
        maps = {"Python": conversions(root, PY_CONVERSIONS, TARGETS["Python"]),
                "C": conversions(root, C_CONVERSIONS, TARGETS["C"])}
    except Missing as e:
        out.append(f"ci/check_api.py: the error conversions: {e}: update PY_/C_CONVERSIONS")
        return
    for row in rows:
        for name in row.cells["Rust"] or ():
            enum, _, variant = name.partition("::")
            for lang, table in maps.items():
                entry = table.get(enum)
                if not variant or not entry:
                    continue
                got, where = entry.get(variant) or entry.get(None) or (DELEGATED, None)
                if got is not DELEGATED and got not in (row.cells[lang] or ()):
                    cell = ", ".join(row.cells[lang] or [ABSENT])
                    out.append(f"{DOC}:{row.line}: `{name}` becomes `{got}` in {lang} "
                               f"({where}), but its {lang} cell says {cell}")


# ---------------------------------------------------------------------------------------------
# docs/api.md

Row = namedtuple("Row", "line concept cells note")


def split_row(line):
    """The cells of a table line (a `|` inside backquotes belongs to its cell)."""
    cells, cell, code = [], "", False
    for ch in line.strip()[1:]:
        code ^= ch == "`"
        if ch == "|" and not code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += ch
    return cells


def cell_names(cell):
    """The names a cell gives, None for absent, or "" when it is something else."""
    if cell == ABSENT:
        return None
    names = CODE.findall(cell)
    return names if names and not CODE.sub("", cell).strip(" ,/") else ""


def parse_row(n, cells, out):
    if len(cells) != len(HEADER):
        out.append(f"{DOC}:{n}: {len(cells)} cells, not {len(HEADER)} ({' | '.join(HEADER)})")
        return None
    parsed = {}
    for lang, cell in zip(LANGS, cells[1:4]):
        parsed[lang] = cell_names(cell)
        if parsed[lang] == "":
            out.append(f"{DOC}:{n}: the {lang} cell \"{cell}\" is neither names in backquotes "
                       f"nor {ABSENT}")
            parsed[lang] = []
    return Row(n, cells[0], parsed, cells[4])


def read_doc(root, out):
    """{section title: (its line, [Row])} for each `## ` section that has a table."""
    sections, title, in_table = {}, None, False
    for n, line in enumerate(read(root, DOC).splitlines(), 1):
        if line.startswith("## "):
            title = (line[3:].strip(), n)
        is_row = line.startswith("|")
        if is_row and title:
            cells = split_row(line)
            rows = sections.setdefault(title[0], (title[1], []))[1]
            if not in_table and cells != HEADER:
                out.append(f"{DOC}:{n}: a table's header is | {' | '.join(HEADER)} |")
            elif in_table and not all(re.fullmatch(r":?-+:?", c) for c in cells):
                row = parse_row(n, cells, out)
                rows.extend([row] if row else [])
        in_table = is_row
    return sections


# ---------------------------------------------------------------------------------------------
# The checks

def code_names(root, title, sources, out):
    """({name: where} a cell may give, {name: where} the table must list) for one language."""
    have, must = {}, {}
    for source in sources:
        try:
            names = source.fn(root, *source.args)
        except (Missing, SyntaxError) as e:
            out.append(f"ci/check_api.py: {title!r}: {e}: update SECTIONS")
            continue
        have.update(names)
        if source.complete:
            must.update(names)
    return have, must


def check_section(root, title, rows, out):
    for lang in LANGS:
        have, must = code_names(root, title, SECTIONS[title].get(lang, ()), out)
        named = set()
        for row in rows:
            for name in row.cells[lang] or ():
                named.add(name)
                if name not in have:
                    near = difflib.get_close_matches(name, list(have), n=3)
                    hint = f"closest: {', '.join(near)}" if near else "none close"
                    out.append(f"{DOC}:{row.line}: {lang} has no `{name}` in {title!r} ({hint})")
        for name, where in sorted(must.items()):
            if name not in named:
                out.append(f"{where}: {lang} `{name}` is not in {DOC}'s {title!r} table")
    for row in rows:
        absent = [lang for lang in LANGS if row.cells[lang] is None]
        if absent and not row.note.strip():
            out.append(f"{DOC}:{row.line}: \"{row.concept}\" is absent in {', '.join(absent)}: "
                       "say why in its note, or \"gap: <what to do>\"")


def check_tuples(root, out):
    """Python's tuples for a Rust struct have its arity."""
    try:
        stats = tuple_arity(py_def(root, PYI, "Subscriber.stats").returns)
        fields = len(py_fields(root, PYINIT, "SubscriberStats")) - 1
        if stats != fields:
            out.append(f"{PYI}: Subscriber.stats() returns {stats} counters, but "
                       f"{PYINIT}'s SubscriberStats has {fields} fields")
        stored = len(rust_fields(root, "crates/nerve-shm/src/layout.rs", "StoredType")) - 1
        for name, (arity, where) in py_tuple_aliases(root, PYI, r"_Stored\w*").items():
            if arity != stored:
                out.append(f"{where}: {name} has {arity} items, Rust's StoredType {stored} fields")
    except (Missing, SyntaxError) as e:
        out.append(f"ci/check_api.py: the tuple arities: {e}: update check_tuples")


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    out = []
    try:
        sections = read_doc(root, out)
    except Missing as e:
        print(f"{e}: write the table (see ci/check_api.py)")
        return 1
    for title in SECTIONS:
        if title not in sections:
            out.append(f"{DOC}: no section \"## {title}\" with a table")
    for title, (n, rows) in sections.items():
        if title not in SECTIONS:
            out.append(f"{DOC}:{n}: section {title!r} has a table ci/check_api.py does not "
                       "read: add it to SECTIONS")
        else:
            check_section(root, title, rows, out)
    check_conversions(root, sections.get(ERRORS, (0, []))[1], out)
    check_tuples(root, out)
    for line in out:
        print(line)
    if out:
        print(f"check_api: {len(out)} finding(s)", file=sys.stderr)
        return 1
    n = sum(len(rows) for _, rows in sections.values())
    print(f"check_api: {len(sections)} sections, {n} rows: the table and the three fronts agree",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
