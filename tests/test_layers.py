#!/usr/bin/env python3
"""The include order of src/ (docs: the architecture's one-way arrows).

For every `#include "..."` in a .c or .h file under src/ that names a file
under src/, three rules:

1. Layers. The including file's folder must sit at or above the included
   file's folder in
       cli > io > engine > {config, step, bias, estimate, exchange, ladder,
       record} > {target, model, data} > core
   (a folder may include its own files and those of any lower layer). A
   folder of src/ that is not in the table is an error too: a new folder
   must be given its place here.
2. Private headers. engine/ctx.h (the engine's context), and any header
   whose opening comment says "Private to src/NAME/", may be included only
   from src/NAME/ (src/engine/ for ctx.h).
3. No circles. A file x.c and its header x.h are one module; a module that
   includes a header of another is an arrow; no arrows may form a circle
   (e.g. a.c includes b.h and b.c includes a.h).

Prints one line per violation, `path:line: message` (circles: the modules
in order), and exits 1 if there is any, 0 otherwise.
Usage: test_layers.py [SRC_DIR]   (default: src/ beside this file's tests/)
"""
import os
import re
import sys

LAYERS = [
    ["cli"],
    ["io"],
    ["engine"],
    ["config", "step", "bias", "estimate", "exchange", "ladder", "record"],
    ["target", "model", "data"],
    ["core"],
]
RANK = {name: len(LAYERS) - i for i, names in enumerate(LAYERS) for name in names}
PRIVATE_BY_NAME = {"engine/ctx.h": "engine"}
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
PRIVATE = re.compile(r"private to src/([A-Za-z0-9_]+)/?", re.IGNORECASE)


def leading_comment(text):
    """The header's opening block comment (empty if it opens otherwise)."""
    m = re.match(r"\s*/\*(.*?)\*/", text, re.DOTALL)
    return m.group(1) if m else ""


def scan(src):
    """(files: rel -> text, includes: [(rel, line, target rel)])."""
    files, includes = {}, []
    for d, dirs, names in os.walk(src):
        dirs.sort()
        for n in sorted(names):
            if not n.endswith((".c", ".h")):
                continue
            p = os.path.join(d, n)
            rel = os.path.relpath(p, src).replace(os.sep, "/")
            with open(p, encoding="utf-8", errors="replace") as f:
                files[rel] = f.read()
    for rel, text in sorted(files.items()):
        here = os.path.dirname(rel)
        for ln, line in enumerate(text.split("\n"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            # quoted includes resolve against the including file's folder
            # (the build adds no src/ folder to the search path)
            tgt = os.path.normpath(os.path.join(here, m.group(1))).replace(os.sep, "/")
            if tgt.startswith("../") or tgt not in files:
                continue  # outside src/ (public headers) or a system header
            includes.append((rel, ln, tgt))
    return files, includes


def folder(rel):
    return rel.split("/")[0] if "/" in rel else ""


def check_layers(includes, out):
    unknown = set()
    for rel, ln, tgt in includes:
        a, b = folder(rel), folder(tgt)
        for f in (a, b):
            if f not in RANK and f not in unknown:
                unknown.add(f)
                out.append("src/%s:%d: folder '%s' has no place in the layer "
                           "order (add it to LAYERS in tests/test_layers.py)"
                           % (rel, ln, f or "."))
        if a in RANK and b in RANK and RANK[b] > RANK[a]:
            out.append("src/%s:%d: %s -> %s: includes upward (%s is above %s)"
                       % (rel, ln, a, tgt, b, a))


def check_private(files, includes, out):
    owner = dict(PRIVATE_BY_NAME)
    for rel, text in files.items():
        if rel.endswith(".h"):
            m = PRIVATE.search(leading_comment(text))
            if m:
                owner.setdefault(rel, m.group(1))
    for rel, ln, tgt in includes:
        if tgt in owner and folder(rel) != owner[tgt]:
            out.append("src/%s:%d: includes %s, private to src/%s/"
                       % (rel, ln, tgt, owner[tgt]))


def check_circles(includes, out):
    mod = lambda rel: rel.rsplit(".", 1)[0]
    edges, where = {}, {}
    for rel, ln, tgt in includes:
        a, b = mod(rel), mod(tgt)
        if a == b:
            continue
        edges.setdefault(a, set()).add(b)
        where.setdefault((a, b), "src/%s:%d" % (rel, ln))
    # Tarjan's strongly connected components, iteratively
    index, low, on, stack, comps, n = {}, {}, set(), [], [], [0]
    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = n[0]; n[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    for comp in sorted(comps):
        # one circle through the component's first module, by a search
        # that stays inside the component
        start, inside = comp[0], set(comp)
        path, seen = [start], {start}
        def walk(v):
            for w in sorted(edges.get(v, ())):
                if w == start and len(path) > 1:
                    return True
                if w in inside and w not in seen:
                    seen.add(w); path.append(w)
                    if walk(w):
                        return True
                    path.pop()
            return False
        walk(start)
        arrows = ", ".join("%s (%s -> %s)" % (where[(a, b)], a, b)
                           for a, b in zip(path, path[1:] + [start]))
        out.append("include circle: %s -> %s; arrows: %s"
                   % (" -> ".join(path), start, arrows))


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src")
    if not os.path.isdir(src):
        print("test_layers.py: no folder %s" % src)
        return 2
    files, includes = scan(src)
    if not includes:
        print("test_layers.py: no includes found under %s" % src)
        return 2
    out = []
    check_layers(includes, out)
    check_private(files, includes, out)
    check_circles(includes, out)
    for line in out:
        print(line)
    print("%d files, %d includes within src/, %d violations"
          % (len(files), len(includes), len(out)))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
