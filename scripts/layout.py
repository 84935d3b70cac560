#!/usr/bin/env python3
"""Checks the source layout: files over the size limit and file-level import cycles in src/.

    python3 scripts/layout.py [ROOT] [--check]

A file depends on another when it names an item defined there: through `use crate::…`,
`use super::…`, a path written inline (`crate::engine::cmd::zset::parse(…)`), or a path that
starts with a child module (`cmd::blocking::serve` in engine/mod.rs). A path that ends at a
name a module re-exports (`pub use core::Ctx;`) is followed to the file that defines it, so
a facade module that re-exports does not tie its users to everything it re-exports.
`mod x;` declarations are not dependencies. Code under `#[cfg(test)]` counts like the rest.

It prints every strongly connected group of files (an import cycle) and every file over
LIMIT lines that is not data. A cycle among one folder module's own files (its mod.rs
defines a type, the files beside it implement parts of it and name it) is one module
written in several files, and is listed apart; it is still a cycle. With --check it exits 1
if there is a file over the limit or any cycle.
"""

import os
import re
import sys

LIMIT = 800
# Files that are data, not logic, may be longer (one row per command, parameter or message);
# none needs it today.
DATA = set()

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
PATH_RE = re.compile(r"(?<![A-Za-z0-9_:$])((?:crate|super|self)(?:::" + IDENT + r")+)")
USE_RE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)


def strip(text):
    """Removes comments and string literals, keeping line structure."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    # Visibility paths (`pub(in crate::engine)`) name no item.
    return re.sub(r"\bpub\s*\(\s*in\s+[A-Za-z_:\s]+\)", "pub", "".join(out))


def expand_use(tree):
    """`a::{b, c::{d, e as f}, self}` → [['a','b'], ['a','c','d'], ['a','c','e'], ['a','self']]."""
    toks = re.findall(IDENT + r"|::|[{},*]", tree)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take():
        pos[0] += 1
        return toks[pos[0] - 1]

    def parse_tree(prefix):
        out = []
        while True:
            t = peek()
            if t is None:
                return out
            if t == "::":
                take()
                continue
            if t == "{":
                take()
                while peek() not in (None, "}"):
                    out += parse_tree(list(prefix))
                    if peek() == ",":
                        take()
                if peek() == "}":
                    take()
                return out
            if t == "*":
                take()
                return out + [prefix + ["*"]]
            if t in (",", "}"):
                return out
            take()
            if peek() == "::":
                prefix = prefix + [t]
                continue
            if peek() == "as":
                take()
                take()
            return out + [prefix + [t]]

    return parse_tree([])


class Crate:
    def __init__(self, root):
        self.root = root
        self.src = os.path.join(root, "src")
        self.files = {}  # module path tuple -> relative file path
        for dirpath, _, names in os.walk(self.src):
            rel = os.path.relpath(dirpath, self.src)
            if rel.startswith("bin"):
                continue
            for name in names:
                if not name.endswith(".rs"):
                    continue
                parts = [] if rel == "." else rel.split(os.sep)
                stem = name[:-3]
                if stem in ("lib", "main") and not parts:
                    mod = ()
                elif stem == "mod":
                    mod = tuple(parts)
                else:
                    mod = tuple(parts + [stem])
                self.files[mod] = os.path.relpath(os.path.join(dirpath, name), root)
        self.text = {}
        self.reexports = {}  # module -> {name: path list (absolute module path + item)}
        self.globs = {}  # module -> [absolute module path]
        self.defines = {}  # module -> set of item names defined there
        for mod, rel in self.files.items():
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                self.text[mod] = strip(f.read())
        for mod in self.files:
            self.scan_reexports(mod)

    def absolute(self, mod, path):
        """Makes a path (list of segments) absolute from module `mod`, or None if external."""
        head = path[0]
        if head == "crate":
            return list(path[1:])
        if head == "self":
            return list(mod) + list(path[1:])
        if head == "super":
            base = list(mod)
            i = 0
            while i < len(path) and path[i] == "super":
                base = base[:-1]
                i += 1
            if i < len(path) and path[i] == "self":
                i += 1
            return base + list(path[i:])
        if head == "kvlab":
            return list(path[1:])
        # A child module of this one.
        if tuple(list(mod) + [head]) in self.files:
            return list(mod) + list(path)
        # An inline module or a name imported by `use` in this file.
        alias = self.imports(mod).get(head)
        if alias is not None:
            return alias + list(path[1:])
        return None

    def imports(self, mod):
        cache = getattr(self, "_imports", {})
        self._imports = cache
        if mod in cache:
            return cache[mod]
        names = {}
        for m in USE_RE.finditer(self.text[mod]):
            for p in expand_use(m.group(2)):
                if not p or p[-1] == "*":
                    continue
                if p[-1] == "self":
                    p = p[:-1]
                if p and p[0] in ("crate", "super", "self", "kvlab"):
                    a = self.absolute_noimport(mod, p)
                    if a is not None:
                        names[p[-1]] = a
        cache[mod] = names
        return names

    def absolute_noimport(self, mod, path):
        if path[0] in ("crate", "super", "self", "kvlab"):
            return self.absolute(mod, path)
        if tuple(list(mod) + [path[0]]) in self.files:
            return list(mod) + list(path)
        return None

    def scan_reexports(self, mod):
        names, globs = {}, []
        text = self.text[mod]
        defined = set(re.findall(r"(?<!')\b(?:fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+(" + IDENT + ")", text))
        self.defines[mod] = defined
        for m in USE_RE.finditer(text):
            if not m.group(1):
                continue
            for p in expand_use(m.group(2)):
                if not p:
                    continue
                a = self.absolute_noimport(mod, p[:-1] + ["x"]) if p[-1] == "*" else self.absolute_noimport(mod, p)
                if a is None:
                    continue
                if p[-1] == "*":
                    globs.append(a[:-1])
                else:
                    names[p[-1]] = a
        self.reexports[mod] = names
        self.globs[mod] = globs

    def resolve(self, path, depth=0):
        """An absolute path → the module file that defines its item (or the module itself)."""
        best = None
        for i in range(len(path), -1, -1):
            if tuple(path[:i]) in self.files:
                best = i
                break
        if best is None:
            return None
        mod = tuple(path[:best])
        rest = path[best:]
        if rest and depth < 16:
            item = rest[0]
            if item in self.reexports.get(mod, {}) and item not in self.defines[mod]:
                target = self.reexports[mod][item] + rest[1:]
                r = self.resolve(target, depth + 1)
                if r is not None:
                    return r
            elif item not in self.defines[mod]:
                for g in self.globs.get(mod, []):
                    r = self.resolve(g + rest, depth + 1)
                    if r is not None and r != mod and (item in self.defines.get(r, ()) or tuple(g + [item]) in self.files):
                        return r
        return mod

    def inline_mods(self, text):
        """Spans of inline `mod name { … }` blocks: [(start, end, name)]."""
        spans = []
        for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", text):
            depth, i = 1, m.end()
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            spans.append((m.start(), i, m.group(1)))
        return spans

    def scope(self, mod, spans, pos):
        """The module a position of file `mod` is in, counting inline modules."""
        inner = [s for s in spans if s[0] <= pos < s[1]]
        return tuple(list(mod) + [s[2] for s in sorted(inner)])

    def edges(self, why=None):
        graph = {mod: set() for mod in self.files}
        for mod in self.files:
            text = self.text[mod]
            spans = self.inline_mods(text)
            paths = []
            for m in USE_RE.finditer(text):
                at = self.scope(mod, spans, m.start())
                paths += [(at, p) for p in expand_use(m.group(2)) if p]
            body = USE_RE.sub(lambda m: " " * len(m.group(0)), text)
            paths += [(self.scope(mod, spans, m.start()), m.group(1).split("::")) for m in PATH_RE.finditer(body)]
            # Inline paths through a child module or an imported module name: `cmd::x::y`.
            for m in re.finditer(r"(?<![A-Za-z0-9_:$])(" + IDENT + r"(?:::" + IDENT + r")+)", body):
                p = m.group(1).split("::")
                if p[0] not in ("crate", "super", "self", "std", "core", "alloc"):
                    paths.append((self.scope(mod, spans, m.start()), p))
            for at, p in paths:
                if p[-1] == "*":
                    p = p[:-1]
                if p and p[-1] == "self":
                    p = p[:-1]
                if not p:
                    continue
                a = self.absolute(at, p) if at == mod else self.absolute_inline(mod, at, p)
                if a is None:
                    continue
                r = self.resolve(a)
                if r is not None and r != mod:
                    graph[mod].add(r)
                    if why and self.files[mod] == why[0] and self.files[r] == why[1]:
                        print("  " + "::".join(p))
        return graph

    def absolute_inline(self, mod, at, p):
        """Like `absolute`, from inside an inline module `at` of file `mod`."""
        if p[0] in ("crate", "kvlab"):
            return list(p[1:])
        if p[0] in ("super", "self"):
            return self.absolute(at, p)
        if tuple(list(mod) + [p[0]]) in self.files and len(at) == len(mod):
            return list(mod) + list(p)
        return None


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    argv = sys.argv[1:]
    if "--why" in argv:
        i = argv.index("--why")
        argv = argv[:i] + argv[i + 3:]
    args = [a for a in argv if not a.startswith("--")]
    check = "--check" in sys.argv
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    crate = Crate(root)
    if "--why" in sys.argv:
        # --why FROM TO: the paths in FROM that make it depend on TO.
        i = sys.argv.index("--why")
        crate.edges(why=(sys.argv[i + 1], sys.argv[i + 2]))
        return
    graph = crate.edges()
    all_cycles = [sorted(c) for c in sccs(graph) if len(c) > 1]

    def split_module(c):
        # One module written as a folder: its mod.rs and the files beside it, nothing else.
        dirs = {os.path.dirname(crate.files[m]) for m in c}
        return len(dirs) == 1 and any(crate.files[m].endswith("/mod.rs") for m in c)

    cycles = [c for c in all_cycles if not split_module(c)]
    within = [c for c in all_cycles if split_module(c)]
    big = []
    for mod, rel in sorted(crate.files.items(), key=lambda kv: kv[1]):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > LIMIT and rel not in DATA:
            big.append((n, rel))
    print(f"{len(crate.files)} files in src/ (binaries aside), {sum(len(v) for v in graph.values())} file-to-file dependencies")
    print(f"files over {LIMIT} lines (data files aside): {len(big)}")
    for n, rel in sorted(big, reverse=True):
        print(f"  {n:5} {rel}")
    print(f"import cycles: {len(cycles)}")
    for c in sorted(cycles, key=len, reverse=True):
        print(f"  {len(c)} files: " + ", ".join(crate.files[m] for m in c))
        members = set(c)
        for m in c:
            inside = sorted(crate.files[w] for w in graph[m] if w in members)
            print(f"      {crate.files[m]} -> {', '.join(inside)}")
    print(f"within one module split into a folder (its mod.rs and its own files): {len(within)}")
    for c in sorted(within, key=len, reverse=True):
        print(f"  {len(c)} files: " + ", ".join(crate.files[m] for m in c))
    if check and (cycles or within or big):
        sys.exit(1)


if __name__ == "__main__":
    main()
