#!/bin/bash
# mglrud --dry-run on the container layouts of tests/fixtures/containers-7.3 (copied to a
# temporary directory so cgroups can carry user.mglrud.* xattrs, as mglrud-oci-hook records
# them): every container and pod of expected-identities.txt is managed by its kind section and
# shows its runtime, id, pod uid and QoS class in mglructl status, dump, dump --json and top;
# conmon scopes and the runtimes' own units are not managed; an annotated policy and key win
# over the kind sections; a refused xattr is ignored; a policy name set on a running daemon's
# unmanaged cgroup makes it managed at the next cycle (inotify IN_ATTRIB), not at the minute's
# rescan.
set -euo pipefail
mglrud=$1 ctl=$2 fixture=$3
tree=$(mktemp -d)
cp -r "$fixture/cgroup" "$fixture/proc" "$fixture/mglrud.conf" "$tree/"
. "$(dirname "$0")/lib-mglrud.sh"
trap 'cleanup; rm -rf "$tree"' EXIT

setx() { python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.mglrud." + sys.argv[2], sys.argv[3].encode())' "$tree/cgroup$1" "$2" "$3"; }
if ! setx / probe 1 2>/dev/null; then
        echo "SKIP: no user xattrs on $tree"; exit 77
fi
python3 -c 'import os,sys; os.removexattr(sys.argv[1], "user.mglrud.probe")' "$tree/cgroup"

expected=$fixture/expected-identities.txt
rootless=$(awk -F'\t' '$1 ~ /user@1000.service\/user.slice\/libpod-[0-9a-f]*.scope$/ { print $1 }' "$expected")
cgfs_docker=$(awk -F'\t' '$1 ~ /^\/docker\// && $2 == "container" { print $1 }' "$expected")
[[ -n $rootless && -n $cgfs_docker ]] || fail "fixture lacks the rootless Podman or cgroupfs Docker container"
# What mglrud-oci-hook records for "podman run --annotation io.mglrud.policy=batch
# --annotation io.mglrud.MinColdAge=5s", and a value only something else could have written.
setx "$rootless" policy batch
setx "$rootless" MinColdAge 5s
setx "$cgfs_docker" Floor lots

# No lru_gen here (the memory.reclaim fallback advises): a debugfs root that does not exist.
"$mglrud" --interval 1s --dry-run --runtime-dir "$tmp" --config "$tree/mglrud.conf" \
        --cgroup-root "$tree/cgroup" --debugfs-root "$tree/no-debugfs" --proc-root "$tree/proc" \
        --log-level debug >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
        [[ -S $tmp/bus ]] && [[ $(ctl status 2>/dev/null) == *"Advising on 22 cgroups"* ]] && break
        sleep 0.1
done
out=$(ctl status) || fail "status exited $?"
grep -q '^mglrud .*: Advising on 22 cgroups' <<<"$out" || fail "status: $out"

ctl --json dump >"$tmp/dump.json" || fail "--json dump exited $?"
python3 - "$tmp/dump.json" "$expected" "$rootless" "$cgfs_docker" <<'EOF' || fail "dump --json does not match expected-identities.txt"
import json, sys
dump = json.load(open(sys.argv[1]))
cg = {c["Path"]: c for c in dump["cgroups"]}
want = {}
for line in open(sys.argv[2]):
    if line.startswith("#"):
        continue
    path, kind, rt, cid, pod, qos = line.rstrip("\n").split("\t")
    if kind != "none":
        want[path] = (kind, rt, cid, pod, qos)
assert set(cg) == set(want), (sorted(set(cg) ^ set(want)))
for path, (kind, rt, cid, pod, qos) in want.items():
    c = cg[path]
    got = (c.get("Runtime", "-"), c.get("ContainerId", "-"), c.get("PodUid", "-"), c.get("QosClass", "-"))
    assert got == (rt, cid, pod, qos), (path, got)
    if path == sys.argv[3]:
        assert c["Section"] == "Policy:batch" and c["AnnotatedPolicy"] == "batch", c
        assert c["Annotations"] == "MinColdAge=5s", c
        assert c["Mode"] == "active", c
    elif kind == "pod":
        assert c["Section"] == ("Pod:besteffort" if qos == "BestEffort" else "Pod:*"), c
        assert "Annotations" not in c, c
    else:
        assert c["Section"] == ("Container:docker" if rt == "docker" else "Container:*"), c
        assert "Annotations" not in c, c  # the cgroupfs Docker container's Floor=lots is refused
print(len(want), "cgroups as expected")
EOF

# status and top: runtime and short id, QoS class
grep -qE "^/system.slice/docker-[0-9a-f]{64}.scope +active .* docker [0-9a-f]{12} +- " <<<"$out" ||
        fail "status lacks the Docker container's short id: $out"
grep -qE "/kubepods/besteffort/pod[-0-9a-f]+ +advise .* pod [0-9a-f]{8} +BestEffort " <<<"$out" ||
        fail "status lacks the cgroupfs BestEffort pod: $out"
grep -qE "/crio-[0-9a-f]{64}.scope +active .* crio [0-9a-f]{12} +Burstable " <<<"$out" ||
        fail "status lacks the CRI-O container: $out"
grep -q conmon <<<"$out" && fail "a conmon scope is managed: $out"
top=$(COLUMNS=200 ctl top --once) || fail "top exited $?"
grep -qE "^/system.slice/docker-[0-9a-f]{12}.scope +docker [0-9a-f]{12} +- +active" <<<"$top" ||
        fail "top does not show the short id: $top"
dump=$(ctl dump) || fail "dump exited $?"
grep -A6 -xF -- "-> $rootless" <<<"$dump" | grep -qxF "        Override: MinColdAge=5s (annotation)" ||
        fail "dump lacks the annotated key: $dump"
grep -qE "^        Container: podman [0-9a-f]{12}$" <<<"$dump" || fail "dump lacks a Podman container"
grep -qE "^        Pod: [-0-9a-f]{36} \(Guaranteed\)$" <<<"$dump" || fail "dump lacks a Guaranteed pod"
grep -q "ignoring the xattr user.mglrud.Floor=lots: invalid size" "$tmp/log" || fail "no log of the refused xattr"
ctl metrics > "$tmp/metrics.txt"
grep -qE '^mglrud_actions_total\{cgroup="/kubepods.slice/.*/crio-[0-9a-f]{64}.scope",runtime="crio",qos_class="Burstable"\} 0$' "$tmp/metrics.txt" ||
        fail "metrics lack runtime/qos_class labels"

# A container annotated while the daemon runs: managed at the next cycle (inotify IN_ATTRIB).
# (A key alone would not do: only a section selects a cgroup, here the [Policy:batch] named.)
setx /system.slice/sshd.service policy batch
for _ in $(seq 50); do
        out=$(ctl status)
        grep -q 'Advising on 23 cgroups' <<<"$out" && break
        sleep 0.1
done
grep -q '^/system.slice/sshd.service ' <<<"$out" || fail "an annotated cgroup was not picked up within 5 s"
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "mglrud exited $rc on SIGTERM"
echo "containers fixture: 22 containers and pods recognized, annotation applied, conmon skipped"
