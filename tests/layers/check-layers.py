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
Usage: check-layers.py SOURCE_ROOT
       check-layers.py --links LAYER=LIBRARY.a ... (lowest layer first)"""
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


def nm(args, lib):
    """The symbol names of the nm listing (the last field of each symbol line)."""
    out = subprocess.run(["nm", *args, lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        # "file.o:" headers and blank lines between members have no symbol type
        if len(fields) >= 2 and len(fields[-2]) == 1:
            names.add(fields[-1])
    return names


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
