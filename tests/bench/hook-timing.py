#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Wall time of mglrud-oci-hook, start to exit, as a runtime sees it: the OCI state runc 1.1.5
gave the hook (tests/fixtures/oci-state, with io.mglrud.policy=batch and MinColdAge=5s) on
stdin, the configuration loaded to check the policy name, two xattrs replaced on a scratch
directory. Interleaved with /bin/true run the same way (the cost of starting any process from
here), RUNS of each per round, ROUNDS rounds; prints the medians. Never gates on a time.

Usage: hook-timing.py HOOK [RUNS [ROUNDS]]"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

hook = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "oci-state",
                   "runc-1.1.5.json")

with tempfile.TemporaryDirectory() as tmp:
    cg = os.path.join(tmp, "cgroup", "system.slice", "docker-x.scope")
    os.makedirs(cg)
    os.makedirs(os.path.join(tmp, "bundle"))
    with open(os.path.join(tmp, "bundle", "config.json"), "w") as f:
        json.dump({"linux": {"cgroupsPath": "/system.slice/docker-x.scope"}}, f)
    with open(os.path.join(tmp, "mglrud.conf"), "w") as f:
        f.write("[Defaults]\nMaxStep=64M\n\n[Container:*]\nMode=active\n\n"
                "[Policy:batch]\nMinColdAge=30s\nMaxColdAge=5min\nMaxStep=256M\n")
    state = json.load(open(src))
    state["pid"] = 0
    state["bundle"] = os.path.join(tmp, "bundle")
    data = json.dumps(state).encode()
    cmd = [hook, "--config", os.path.join(tmp, "mglrud.conf"), "--cgroup-root",
           os.path.join(tmp, "cgroup"), "--log-target", "stderr"]

    def timed(argv):
        t = time.perf_counter()
        r = subprocess.run(argv, input=data, capture_output=True)
        dt = (time.perf_counter() - t) * 1000
        return dt, r

    for rnd in range(rounds):
        h, b = [], []
        for _ in range(runs):
            dt, r = timed(cmd)
            if r.returncode != 0 or b"recorded policy=batch MinColdAge=5s" not in r.stderr:
                sys.exit(f"the hook did not record: rc {r.returncode}, {r.stderr.decode()}")
            h.append(dt)
            b.append(timed(["/bin/true"])[0])
        print(f"round {rnd + 1}: mglrud-oci-hook median {statistics.median(h):.2f} ms "
              f"(p90 {sorted(h)[int(0.9 * runs)]:.2f}, max {max(h):.2f}), /bin/true median "
              f"{statistics.median(b):.2f} ms, over {runs} runs each")
    print("xattrs:", {a: os.getxattr(cg, a).decode() for a in os.listxattr(cg)})
