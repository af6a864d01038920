#!/usr/bin/env python3
"""Call cycles among lib/ modules (a module: a .c with its .h), read from
the objects with nm.  The only cycles allowed are inside one module split
over files: the classifier (classify.c with classify_lines.c) and one
backend's own files (store_sqlite.c with store_sqlite_runs.c).  Prints each
other cycle and exits 1; usage: check-lib-cycles.py BUILDDIR."""
import collections, glob, os, subprocess, sys

ALLOWED = [{"classify", "classify_lines"}, {"store_sqlite", "store_sqlite_runs"}]

def main(top):
    defs, uses = {}, collections.defaultdict(set)
    objs = glob.glob(os.path.join(top, "lib", "**", "*.o"), recursive=True)
    if not objs:
        print("no objects under %s/lib: build first" % top)
        return 1
    for o in objs:
        mod = os.path.splitext(os.path.basename(o))[0]
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRC":
                defs[p[2]] = mod
            elif len(p) == 2 and p[0] == "U":
                uses[mod].add(p[1])
    graph = collections.defaultdict(set)
    for mod, syms in uses.items():
        graph[mod] |= {defs[s] for s in syms if s in defs and defs[s] != mod}
    index, low, stack, on, bad = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = set()
            while True:
                w = stack.pop()
                on.discard(w)
                scc.add(w)
                if w == v:
                    break
            if len(scc) > 1 and scc not in ALLOWED:
                bad.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in sorted(set(graph) | {w for ws in graph.values() for w in ws}):
        if v not in index:
            visit(v)
    for scc in bad:
        print("cycle: " + " ".join(scc))
        for a in scc:
            for s in sorted(uses[a]):
                if defs.get(s) in scc and defs[s] != a:
                    print("  %s -> %s (%s)" % (a, defs[s], s))
    return 1 if bad else 0

sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
