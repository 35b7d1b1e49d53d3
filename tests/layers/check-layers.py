#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails when an #include climbs back up the layers (docs/design.md, "Layers"):

    shared -> kernel -> policy -> config -> core -> interfaces -> programs

A file may include headers of its own layer and of the layers below it, never above. mglructl
(daemon/programs/mglructl*) may include only the shared utilities and the bus protocol;
mglrud-oci-hook (run by container runtimes) only the layers up to config, never the core.
An include is followed to the file the compiler would open, however it is spelled: "mglrud/..."
or <mglrud/...> under include/, "../core/x.h" beside the file, "daemon/core/x.h" from the
source root (meson's include directories are include/ and the root). Headers that are not in
the source tree (config.h, the BPF skeletons, system headers) are not checked.

With --links it checks the same order on what the compiled code uses, which no include spelling
can hide (a prototype written out by hand, an extern variable): every symbol a layer's static
library leaves undefined (`nm -u`) must be defined by its own layer, a layer below it, or by no
layer library at all (libc, libsystemd, libbpf, the sanitizers).

With --units it checks each layer's library inside: the object files of one layer must not use
each other's symbols round a circle (a.o uses b.o's, b.o uses a.o's, directly or through
others). A circle means two files hold one idea or one reaches back up into its caller; the
brakes' table and its brakes were one (docs/design.md, "Brakes: one interface").
Usage: check-layers.py SOURCE_ROOT
       check-layers.py --links LAYER=LIBRARY.a ... (lowest layer first)
       check-layers.py --units LAYER=LIBRARY.a ..."""
import os
import re
import subprocess
import sys

LAYERS = ["shared", "kernel", "policy", "config", "core", "interfaces", "programs"]
INCLUDE = re.compile(r'^\s*#\s*include\s+(?:"([^"]+)"|<([^>]+)>)', re.M)


def layer_of_source(rel):
    """The layer a source or header file belongs to, or None (tests, generated files)."""
    parts = rel.split("/")
    if parts[0] == "policy":
        return "policy"
    if parts[0] == "daemon" and len(parts) > 2 and parts[1] in LAYERS:
        return parts[1]
    if parts[:2] == ["include", "mglrud"] and len(parts) > 3 and parts[2] in LAYERS:
        return parts[2]
    return None


def resolve(root, dirpath, inc, quoted):
    """The file an include names, relative to root, as the compiler finds it: beside the
    including file (quoted only), then under include/, then under the root; None when it is not
    in the source tree."""
    bases = ([dirpath] if quoted else []) + [os.path.join(root, "include"), root]
    for base in bases:
        path = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(path):
            rel = os.path.relpath(path, root)
            return None if rel.startswith("..") else rel
    return None


def report(errors, summary):
    """Prints the errors and the summary line. Returns the exit code."""
    for e in errors:
        print(e)
    print(summary)
    return 1 if errors else 0


def nm_members(args, lib):
    """{member object: symbol names} of the nm listing of a static library."""
    out = subprocess.run(["nm", *args, lib], check=True, capture_output=True, text=True).stdout
    members, current = {}, None
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 1 and line.endswith(":"):
            current = os.path.basename(line[:-1])
            members.setdefault(current, set())
        elif current and len(fields) >= 2 and len(fields[-2]) == 1:
            members[current].add(fields[-1])
    return members


def circles(graph):
    """The strongly connected components of more than one node of {node: set of nodes}, each
    sorted (Tarjan's algorithm, iterative: a library can have many members)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def nm(args, lib):
    """The symbol names of the nm listing of a static library, all members together."""
    return set().union(*nm_members(args, lib).values())


def check_units(args):
    """The --units check over LAYER=LIBRARY arguments. Returns the exit code."""
    errors, checked = [], 0
    for arg in args:
        name, sep, lib = arg.partition("=")
        if not sep or not lib:
            print(f"check-layers.py: expected LAYER=LIBRARY, got {arg!r}", file=sys.stderr)
            return 2
        defined = nm_members(["--defined-only", "--extern-only"], lib)
        used = nm_members(["-u"], lib)
        owner = {sym: member for member, syms in defined.items() for sym in syms}
        graph = {member: {owner[s] for s in used.get(member, ()) if owner.get(s, member) != member}
                 for member in defined}
        checked += len(graph)
        for component in circles(graph):
            ties = []
            for a in component:
                for b in component:
                    syms = sorted(s for s in used.get(a, ()) if owner.get(s) == b)
                    if a != b and syms:
                        ties.append(f"{a} uses {', '.join(syms)} of {b}")
                        break
            errors.append(f"{name}: a circle of {len(component)} object files: " + "; ".join(ties))
    return report(errors, f"{checked} object files checked, {len(errors)} circles")


def check_links(args):
    """The --links check over LAYER=LIBRARY arguments. Returns the exit code."""
    layers = []
    for arg in args:
        name, sep, lib = arg.partition("=")
        if not sep or not lib or name not in LAYERS:
            print(f"check-layers.py: expected LAYER=LIBRARY, got {arg!r}", file=sys.stderr)
            return 2
        layers.append((name, lib))
    if not layers:
        print("check-layers.py: --links without libraries", file=sys.stderr)
        return 2

    defined_by = {}  # symbol -> index of the layer whose library defines it
    for i, (name, lib) in enumerate(layers):
        for sym in nm(["--defined-only", "--extern-only"], lib):
            defined_by.setdefault(sym, i)
    errors = []
    for i, (name, lib) in enumerate(layers):
        for sym in sorted(nm(["-u"], lib)):
            j = defined_by.get(sym)
            if j is not None and j > i:
                errors.append(f"{name} ({lib}) uses {sym}, defined by {layers[j][0]}: a layer may "
                              "only use the layers below it")
    return report(errors, f"{len(layers)} libraries checked, {len(errors)} upward links")


def main():
    if sys.argv[1:2] == ["--links"]:
        return check_links(sys.argv[2:])
    if sys.argv[1:2] == ["--units"]:
        return check_units(sys.argv[2:])
    root = sys.argv[1]
    errors = []
    checked = 0
    for top in ("daemon", "policy", "include"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith((".c", ".h")) or name.endswith(".bpf.c"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                layer = layer_of_source(rel)
                if layer is None:
                    errors.append(f"{rel}: not in a layer folder ({', '.join(LAYERS)})")
                    continue
                checked += 1
                text = open(path, encoding="utf-8", errors="replace").read()
                ctl = rel.startswith("daemon/programs/mglructl")
                hook = rel.startswith("daemon/programs/mglrud-oci-hook")
                for quoted, angled in INCLUDE.findall(text):
                    inc = quoted or angled
                    target_rel = resolve(root, dirpath, inc, bool(quoted))
                    if target_rel is None:
                        if inc.startswith("mglrud/"):
                            errors.append(f"{rel}: includes {inc}, which is not in include/mglrud/")
                        continue  # config.h, skeletons, system headers
                    if os.path.dirname(target_rel) == os.path.dirname(rel):
                        continue  # a private header beside the file (checked as a file itself)
                    target = layer_of_source(target_rel)
                    if target is None:
                        errors.append(f"{rel}: includes {inc} ({target_rel}), which is in no "
                                      "layer folder")
                    elif ctl and not (target == "shared" or
                                      target_rel == "include/mglrud/interfaces/bus-protocol.h"):
                        errors.append(f"{rel}: mglructl includes {inc}: it may use only the "
                                      "shared utilities and the bus protocol")
                    elif hook and LAYERS.index(target) > LAYERS.index("config"):
                        errors.append(f"{rel}: mglrud-oci-hook includes {inc}: it may use only "
                                      "the shared, kernel, policy and config layers")
                    elif LAYERS.index(target) > LAYERS.index(layer):
                        errors.append(f"{rel} ({layer}) includes {inc} ({target}): a layer may "
                                      "only use the layers below it")
    return report(errors, f"{checked} files checked, {len(errors)} layering errors")


if __name__ == "__main__":
    sys.exit(main())
