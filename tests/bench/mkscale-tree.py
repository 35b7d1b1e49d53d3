#!/usr/bin/env python3
"""Builds a cgroup/debugfs/proc fixture tree of N managed cgroups from the real 7.3 captures.

    tests/bench/mkscale-tree.py --cgroups N --out DIR [--per-group 100] [--seed 1]

Layout (DIR/cgroup is the cgroup root):
    /scale.slice/gNNN.slice/cNNNNN.scope    the N leaves (managed by DIR/mglrud.conf), 100 per
                                            group; each has the nine memory files the daemon
                                            keeps open, taken from the captures of
                                            tests/fixtures/kernel-7.3/cgroup-a-b and cgroup-b in
                                            turn, memory.stat and memory.current scaled by a
                                            per-cgroup factor in [0.5, 2) so the numbers differ
                                            the way real ones do
    /scale.slice, /scale.slice/gNNN.slice   unmanaged parents (memory.stat, memory.pressure)
DIR/debugfs/lru_gen_full and lru_gen hold one record per cgroup (root, parents, leaves) in the
7.x form: the id is the directory's inode (what the 7.3 kernel prints), the path its cgroup
path, the body the captured record of the template's cgroup verbatim (the real size: about
2 KiB per memcg in lru_gen_full). DIR/proc has the captured meminfo, pressure/memory and swaps.

add_leaf() and write_lrugen() are also used by tests/unit/programs/churn-fixture.py.
"""
import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURE = os.path.join(HERE, "..", "fixtures", "kernel-7.3")
LEAF_FILES = ["memory.stat", "memory.pressure", "memory.current", "memory.min", "memory.low",
              "memory.high", "memory.max", "memory.swap.current", "memory.swap.max"]
# memory.stat keys that are not scaled: they are not amounts of this cgroup's memory.
UNSCALED = {"percpu"}


def read(path):
    with open(path) as f:
        return f.read()


def split_records(text):
    """Returns {captured path: record body (the lines after 'memcg ID PATH')}."""
    recs, cur = {}, None
    for line in text.splitlines(keepends=True):
        if line.startswith("memcg "):
            cur = line.rstrip("\n").split(" ", 2)[2]
            recs[cur] = []
        else:
            recs[cur].append(line)
    return {k: "".join(v) for k, v in recs.items()}


class Templates:
    def __init__(self):
        self.full = split_records(read(os.path.join(CAPTURE, "lru_gen_full")))
        self.short = split_records(read(os.path.join(CAPTURE, "lru_gen")))
        self.leaf = []
        for name, path in (("cgroup-a-b", "/work load.slice/a b"), ("cgroup-b", "/work load.slice/b")):
            files = {f: read(os.path.join(CAPTURE, name, f)) for f in LEAF_FILES}
            self.leaf.append((path, files))
        self.root = {f: read(os.path.join(CAPTURE, "cgroup-root", f))
                     for f in ("memory.stat", "memory.pressure")}


def scaled_stat(text, factor):
    out = []
    for line in text.splitlines():
        key, value = line.split(" ")
        v = int(value)
        if key not in UNSCALED:
            v = int(v * factor)
        out.append(f"{key} {v}\n")
    return "".join(out)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def add_parent(t, d):
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, "memory.stat"), t.leaf[1][1]["memory.stat"])
    write(os.path.join(d, "memory.pressure"), t.leaf[1][1]["memory.pressure"])


def add_leaf(t, d, i, rng):
    """Creates leaf number i at directory d. Returns the captured path whose lru_gen record
    stands for it."""
    tpath, files = t.leaf[i % len(t.leaf)]
    factor = 0.5 + 1.5 * rng.random()
    os.makedirs(d)
    for f, text in files.items():
        if f == "memory.stat":
            text = scaled_stat(text, factor)
        elif f == "memory.current":
            text = f"{int(int(text) * factor)}\n"
        write(os.path.join(d, f), text)
    return tpath


def write_lrugen(t, debugfs, cgroup_root, entries):
    """Writes lru_gen_full and lru_gen for entries [(cgroup path, captured path)], with the
    inode of each cgroup directory as its id (entries whose directory is gone are skipped).
    The files are rewritten in place: a running daemon keeps reading the file it opened."""
    os.makedirs(debugfs, exist_ok=True)
    for name, recs in (("lru_gen_full", t.full), ("lru_gen", t.short)):
        parts = []
        for path, tpath in entries:
            try:
                ino = os.stat(cgroup_root + (path if path != "/" else "")).st_ino
            except FileNotFoundError:
                continue
            parts.append(f"memcg {ino} {path}\n{recs[tpath]}")
        target = os.path.join(debugfs, name)
        with open(target, "r+" if os.path.exists(target) else "w") as f:
            data = "".join(parts)
            f.write(data)
            f.truncate(len(data))


def build(n, out, per_group, seed):
    t = Templates()
    rng = random.Random(seed)
    cg = os.path.join(out, "cgroup")
    if os.path.exists(cg):
        sys.exit(f"mkscale-tree: {cg} exists")
    os.makedirs(cg)
    for f, text in t.root.items():
        write(os.path.join(cg, f), text)
    entries = [("/", "/")]
    add_parent(t, os.path.join(cg, "scale.slice"))
    entries.append(("/scale.slice", "/work load.slice"))
    for i in range(n):
        g = f"/scale.slice/g{i // per_group:03d}.slice"
        if i % per_group == 0:
            add_parent(t, cg + g)
            entries.append((g, "/work load.slice"))
        leaf = f"{g}/c{i:05d}.scope"
        entries.append((leaf, add_leaf(t, cg + leaf, i, rng)))
    write_lrugen(t, os.path.join(out, "debugfs"), cg, entries)
    proc = os.path.join(out, "proc")
    os.makedirs(os.path.join(proc, "pressure"))
    write(os.path.join(proc, "meminfo"), read(os.path.join(CAPTURE, "meminfo")))
    write(os.path.join(proc, "swaps"), read(os.path.join(CAPTURE, "swaps")))
    write(os.path.join(proc, "pressure", "memory"), read(os.path.join(CAPTURE, "proc-pressure-memory")))
    write(os.path.join(out, "mglrud.conf"),
          "# Scale benchmark: every leaf managed, defaults otherwise (tests/bench/mkscale-tree.py).\n"
          "[Daemon]\nInterval=1s\n\n[/scale.slice/*/*]\nMode=active\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cgroups", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    build(a.cgroups, a.out, a.per_group, a.seed)


if __name__ == "__main__":
    main()
