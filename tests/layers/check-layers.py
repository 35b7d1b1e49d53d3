#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails when an #include climbs back up the layers (docs/design.md, "Layers"):

    shared -> kernel -> policy -> config -> core -> interfaces -> programs

A file may include headers of its own layer and of the layers below it, never above. mglructl
(daemon/programs/mglructl*) may include only the shared utilities and the bus protocol;
mglrud-oci-hook (run by container runtimes) only the layers up to config, never the core.
Usage: check-layers.py SOURCE_ROOT"""
import os
import re
import sys

LAYERS = ["shared", "kernel", "policy", "config", "core", "interfaces", "programs"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


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


def layer_of_include(inc):
    m = re.match(r"mglrud/([a-z]+)/", inc)
    if m and m.group(1) in LAYERS:
        return m.group(1)
    return None


def main():
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
                for inc in INCLUDE.findall(text):
                    target = layer_of_include(inc)
                    if inc.startswith("mglrud/") and target is None:
                        errors.append(f"{rel}: includes {inc}, which is in no layer folder")
                        continue
                    if target is None:
                        continue  # private headers beside the file, config.h, skeletons
                    if ctl and not (target == "shared" or inc == "mglrud/interfaces/bus-protocol.h"):
                        errors.append(f"{rel}: mglructl includes {inc}: it may use only the "
                                      "shared utilities and the bus protocol")
                    elif hook and LAYERS.index(target) > LAYERS.index("config"):
                        errors.append(f"{rel}: mglrud-oci-hook includes {inc}: it may use only "
                                      "the shared, kernel, policy and config layers")
                    elif LAYERS.index(target) > LAYERS.index(layer):
                        errors.append(f"{rel} ({layer}) includes {inc} ({target}): a layer may "
                                      "only use the layers below it")
    for e in errors:
        print(e)
    print(f"{checked} files checked, {len(errors)} layering errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
