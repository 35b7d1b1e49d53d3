#!/bin/bash
# mglrud-oci-hook on real OCI state documents (tests/fixtures/oci-state: what runc 1.1.5 gave
# its createRuntime hook in the containers-runc VM scenario, and variants of it): a valid one,
# a missing cgroup path, a process in a sub-cgroup of the container's, malformed JSON, an unknown policy name, a bad value, no annotations, a
# stdin that never closes, a bad option, and hostile ones: a cgroup path out of the root, a
# flood of bad annotations with control characters, a config.json that never ends, a state over
# its cap. The hook must exit 0 every time (a runtime stops a container when a createRuntime hook
# fails), record only what the config parser accepts beneath the root, and log what it refused in
# a few escaped lines. The cgroup tree is a directory (user xattrs as on cgroupfs; the hook runs
# with --no-cgroup2-check, case 12 without).
set -euo pipefail
hook=$1 fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [[ -f $tmp/err ]] && { echo "--- hook stderr:"; cat "$tmp/err"; }; exit 1; }

id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$fixtures/runc-1.1.5.json")
cid=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
cg=/system.slice/docker-$cid.scope
mkdir -p "$tmp/cgroup$cg" "$tmp/proc/4242" "$tmp/bundle" "$tmp/nobundle"
printf '0::%s\n' "$cg" > "$tmp/proc/4242/cgroup"
printf '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"system.slice:docker:%s"}}\n' "$cid" > "$tmp/bundle/config.json"
printf '{"ociVersion":"1.0.2","linux":{}}\n' > "$tmp/nobundle/config.json"
cat > "$tmp/mglrud.conf" <<EOF
[Policy:batch]
Mode=active
MaxStep=1G
EOF
if ! python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.mglrud.probe", b"1"); os.removexattr(sys.argv[1], "user.mglrud.probe")' "$tmp/cgroup$cg" 2>/dev/null; then
        echo "SKIP: no user xattrs on $tmp"; exit 77
fi

# state NAME [python expression changing the document d]: writes a variant of the captured
# document, with pid and bundle pointing into $tmp, to $tmp/state.json (a file: the runtime
# hands the hook its state at once, a python process starting up may not within the deadline).
state() {
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["pid"] = 4242
d["bundle"] = sys.argv[2] + "/bundle"
exec(sys.argv[3])
print(json.dumps(d))' "$fixtures/$1" "$tmp" "${2:-}" > "$tmp/state.json"
}
# run_hook: runs the hook on stdin with the tree in $tmp; its stderr goes to $tmp/err.
run_hook() {
        "$hook" --config "$tmp/mglrud.conf" --cgroup-root "$tmp/cgroup" --proc-root "$tmp/proc" \
                --log-target stderr --no-cgroup2-check "$@" 2>"$tmp/err"
}
xattrs() {
        python3 -c 'import os,sys; p=sys.argv[1]
print(" ".join(sorted(a[12:] + "=" + os.getxattr(p, a).decode() for a in os.listxattr(p) if a.startswith("user.mglrud."))))' "$tmp/cgroup$cg"
}
clear_xattrs() {
        python3 -c 'import os,sys; p=sys.argv[1]
[os.removexattr(p, a) for a in os.listxattr(p)]' "$tmp/cgroup$cg"
}

# 1. The document as runc wrote it: io.mglrud.policy=batch, io.mglrud.MinColdAge=5s.
state runc-1.1.5.json
run_hook < "$tmp/state.json" || fail "valid: exit $?"
[[ $(xattrs) == "MinColdAge=5s policy=batch" ]] || fail "valid: recorded '$(xattrs)'"
grep -q "^$id: recorded policy=batch MinColdAge=5s on $cg (0 refused" "$tmp/err" || fail "valid: log"

# 2. A bad value and an unknown key: refused and logged, the rest recorded (the earlier
#    record replaced: MinColdAge is gone).
state runc-1.1.5.json 'a = d["annotations"]; del a["io.mglrud.MinColdAge"]; a["io.mglrud.MaxStep"] = "12Q"; a["io.mglrud.Swapiness"] = "10"; a["io.mglrud.Floor"] = "64M"'
run_hook < "$tmp/state.json" || fail "bad value: exit $?"
[[ $(xattrs) == "Floor=64M policy=batch" ]] || fail "bad value: recorded '$(xattrs)'"
grep -q "refused 2 of 4 io.mglrud.\* annotations: .*io.mglrud.MaxStep=12Q (invalid size)" "$tmp/err" || fail "bad value: log"
grep -q "io.mglrud.Swapiness=10 (unknown policy key)" "$tmp/err" || fail "unknown key: log"

# 3. An unknown policy name: refused with the files it looked in; the keys still recorded.
clear_xattrs
state runc-1.1.5.json 'd["annotations"]["io.mglrud.policy"] = "nosuch"'
run_hook < "$tmp/state.json" || fail "unknown policy: exit $?"
[[ $(xattrs) == "MinColdAge=5s" ]] || fail "unknown policy: recorded '$(xattrs)'"
grep -q "io.mglrud.policy=nosuch (no \[Policy:nosuch\] section in $tmp/mglrud.conf" "$tmp/err" ||
        fail "unknown policy: log"

#    ... unless the configuration has no [Policy:] section at all (the daemon's is elsewhere,
#    e.g. a Kubernetes ConfigMap): recorded unchecked, the daemon checks it.
clear_xattrs
printf '[Defaults]\nMaxStep=32M\n' > "$tmp/other.conf"
"$hook" --config "$tmp/other.conf" --cgroup-root "$tmp/cgroup" --proc-root "$tmp/proc" \
        --log-target stderr --no-cgroup2-check < "$tmp/state.json" 2>"$tmp/err" || fail "no policies: exit $?"
[[ $(xattrs) == "policy=nosuch MinColdAge=5s" || $(xattrs) == "MinColdAge=5s policy=nosuch" ]] ||
        fail "no policies: recorded '$(xattrs)'"
grep -q "has no \[Policy:\] section, recording policy nosuch unchecked" "$tmp/err" || fail "no policies: log"

# 4. Conflicting cold ages: both refused.
clear_xattrs
state runc-1.1.5.json 'd["annotations"].update({"io.mglrud.MinColdAge": "10min", "io.mglrud.MaxColdAge": "1min"})'
run_hook < "$tmp/state.json" || fail "cold ages: exit $?"
[[ $(xattrs) == "policy=batch" ]] || fail "cold ages: recorded '$(xattrs)'"
grep -q "io.mglrud.MinColdAge=10min (greater than MaxColdAge)" "$tmp/err" || fail "cold ages: log"

# 5. No process (pid 0, as in a "created" state): the bundle's systemd cgroupsPath is used.
clear_xattrs
state runc-1.1.5.json 'd["pid"] = 0'
run_hook < "$tmp/state.json" || fail "bundle: exit $?"
[[ $(xattrs) == "MinColdAge=5s policy=batch" ]] || fail "bundle: recorded '$(xattrs)'"

# 6. Missing cgroup path: no /proc entry for the pid, no cgroupsPath in the bundle.
clear_xattrs
state runc-1.1.5.json "d['pid'] = 999999; d['bundle'] = '$tmp/nobundle'"
run_hook < "$tmp/state.json" || fail "no cgroup: exit $?"
[[ -z $(xattrs) ]] || fail "no cgroup: recorded '$(xattrs)'"
grep -q "^error: $id: cannot find the container's cgroup" "$tmp/err" || fail "no cgroup: log"
#    ... and a cgroup path that does not exist.
printf '0::/gone.scope\n' > "$tmp/proc/4242/cgroup"
state runc-1.1.5.json
run_hook < "$tmp/state.json" || fail "gone: exit $?"
grep -q "cannot record policy=batch MinColdAge=5s on $tmp/cgroup/gone.scope (from $tmp/proc/4242/cgroup): No such file" "$tmp/err" || fail "gone: log"
printf '0::%s\n' "$cg" > "$tmp/proc/4242/cgroup"

#    ... and the process in a sub-cgroup of the container's (crun under Podman 4.3 runs it in
#    libpod-<id>.scope/container, tests/fixtures/containers-7.3/engines/podman-4.3.txt): the
#    record goes on the container's own cgroup, which mglrud knows as the container.
mkdir -p "$tmp/cgroup$cg/container"
printf '0::%s/container\n' "$cg" > "$tmp/proc/4242/cgroup"
clear_xattrs
state runc-1.1.5.json
run_hook < "$tmp/state.json" || fail "sub-cgroup: exit $?"
[[ $(xattrs) == "MinColdAge=5s policy=batch" ]] || fail "sub-cgroup: recorded '$(xattrs)' on $cg"
grep -q "recorded policy=batch MinColdAge=5s on $cg (0 refused" "$tmp/err" || fail "sub-cgroup: log"
rmdir "$tmp/cgroup$cg/container"
printf '0::%s\n' "$cg" > "$tmp/proc/4242/cgroup"
clear_xattrs

# 7. Malformed JSON: the document cut in half, and not an object.
state runc-1.1.5.json
head -c 100 "$tmp/state.json" > "$tmp/cut.json"
run_hook < "$tmp/cut.json" || fail "malformed: exit $?"
grep -q "^error: The OCI state on stdin is not a JSON object (" "$tmp/err" || fail "malformed: log"
echo '[1, 2]' | run_hook || fail "array: exit $?"
run_hook < /dev/null || fail "empty: exit $?"
[[ -z $(xattrs) ]] || fail "malformed: recorded '$(xattrs)'"

# 8. No io.mglrud.* annotation: nothing written, not even an error.
state runc-1.1.5.json 'd["annotations"] = {"org.opencontainers.image.title": "x"}'
run_hook < "$tmp/state.json" || fail "none: exit $?"
[[ ! -s $tmp/err && -z $(xattrs) ]] || fail "none: '$(cat "$tmp/err")' '$(xattrs)'"

# 9. A stdin that never closes: the deadline ends the hook, exit 0, within a second.
start=$(date +%s%N)
mkfifo "$tmp/fifo"
sleep 5 > "$tmp/fifo" 2>/dev/null &
writer=$!
rc=0; run_hook --timeout 100ms < "$tmp/fifo" || rc=$?
kill "$writer" 2>/dev/null || true
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[[ $rc == 0 ]] || fail "stuck stdin: exit $rc"
(( ms < 1000 )) || fail "stuck stdin: took $ms ms"
grep -q "deadline reached, nothing recorded" "$tmp/err" || fail "stuck stdin: log"

# 10. Bad options from a hooks.d file: logged, ignored, the hook still records.
clear_xattrs
state runc-1.1.5.json
run_hook < "$tmp/state.json" --frobnicate --timeout=forever || fail "bad option: exit $?"
[[ $(xattrs) == "MinColdAge=5s policy=batch" ]] || fail "bad option: recorded '$(xattrs)'"
grep -q "Ignoring --timeout=forever" "$tmp/err" || fail "bad option: log"
# 11. A cgroup path that leaves the root, from the process (/proc/PID/cgroup) or the bundle
#     (pid 0), and a symlink inside the root pointing out: refused, nothing written outside.
mkdir -p "$tmp/outside"
ln -s ../outside "$tmp/cgroup/link.scope"
outside_xattrs() { python3 -c 'import os,sys; print(" ".join(os.listxattr(sys.argv[1])))' "$tmp/outside"; }
state runc-1.1.5.json
for how in proc bundle link; do
        case $how in
        proc) printf '0::/../outside\n' > "$tmp/proc/4242/cgroup" ;;
        bundle) state runc-1.1.5.json 'd["pid"] = 0'
                printf '{"linux":{"cgroupsPath":"/../outside"}}\n' > "$tmp/bundle/config.json" ;;
        link) state runc-1.1.5.json; printf '0::/link.scope\n' > "$tmp/proc/4242/cgroup" ;;
        esac
        run_hook < "$tmp/state.json" || fail "outside ($how): exit $?"
        [[ -z $(outside_xattrs) ]] || fail "outside ($how): wrote '$(outside_xattrs)'"
        [[ $(wc -l < "$tmp/err") == 1 ]] || fail "outside ($how): $(wc -l < "$tmp/err") lines"
done
grep -q "^error: $id: cannot record .* on $tmp/cgroup/link.scope (from $tmp/proc/4242/cgroup): a symlink on the path, refused" "$tmp/err" ||
        fail "outside (link): log"
printf '0::/../outside\n' > "$tmp/proc/4242/cgroup"
state runc-1.1.5.json
run_hook < "$tmp/state.json"
grep -q "cannot record .* (from $tmp/proc/4242/cgroup): the path leaves the cgroup root" "$tmp/err" ||
        fail "outside (proc): log"
printf '0::%s\n' "$cg" > "$tmp/proc/4242/cgroup"
printf '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"system.slice:docker:%s"}}\n' "$cid" > "$tmp/bundle/config.json"

# 12. The test tree is not cgroup2: without --no-cgroup2-check the hook refuses it, and the
#     option is ignored without --cgroup-root (it would apply to the real tree).
clear_xattrs
"$hook" --config "$tmp/mglrud.conf" --cgroup-root "$tmp/cgroup" --proc-root "$tmp/proc" \
        --log-target stderr < "$tmp/state.json" 2>"$tmp/err" || fail "cgroup2: exit $?"
[[ -z $(xattrs) ]] || fail "cgroup2: recorded '$(xattrs)'"
grep -q "on $tmp/cgroup$cg (from $tmp/proc/4242/cgroup): not a cgroup2 directory, refused" "$tmp/err" ||
        fail "cgroup2: log"
"$hook" --no-cgroup2-check --config "$tmp/mglrud.conf" --proc-root "$tmp/proc" \
        --log-target stderr < "$tmp/state.json" 2>"$tmp/err" || fail "cgroup2 option: exit $?"
grep -q "Ignoring --no-cgroup2-check without --cgroup-root" "$tmp/err" || fail "cgroup2 option: log"

# 13. A flood: 20,000 bad annotations (an 880 KB state), the first with a newline and an ESC
#     sequence in its key and value, an id with both: one summary line, escaped, and the good
#     annotation still recorded.
clear_xattrs
state runc-1.1.5.json 'a = d["annotations"]; a.clear(); a["io.mglrud.Bad\nkey"] = "x\n\u001b[31mforged: recorded"
a.update({"io.mglrud.K%05d" % i: "v" * 20 for i in range(19999)}); a["io.mglrud.MaxStep"] = "1G"
d["id"] = "evil\nid\u001b[2J"'
run_hook --timeout 5s < "$tmp/state.json" || fail "flood: exit $?"
[[ $(xattrs) == "MaxStep=1G" ]] || fail "flood: recorded '$(xattrs)'"
lines=$(wc -l < "$tmp/err")
(( lines == 2 )) || fail "flood: $lines lines"
! grep -q $'\x1b' "$tmp/err" || fail "flood: a raw ESC in the log"
grep -qF 'evil\x0aid\x1b[2J: refused 20000 of 20001 io.mglrud.* annotations: io.mglrud.Bad\x0akey=x\x0a\x1b[31mforged: recorded (unknown policy key); io.mglrud.K00000=' "$tmp/err" ||
        fail "flood: summary"
grep -qF '; ...' "$tmp/err" || fail "flood: no mark of the refusals not shown"

# 14. A config.json that never ends (/dev/zero) is read up to its cap (4 MiB), not until the
#     deadline; a state over 1 MiB on stdin is refused.
state runc-1.1.5.json 'd["pid"] = 0'
mkdir -p "$tmp/zero"; ln -s /dev/zero "$tmp/zero/config.json"
sed -i "s|$tmp/bundle|$tmp/zero|" "$tmp/state.json"
run_hook --timeout 5s < "$tmp/state.json" || fail "zero: exit $?"
grep -q "cannot find the container's cgroup .*: File too large; nothing recorded" "$tmp/err" || fail "zero: log"
python3 -c 'import json; print(json.dumps({"id": "big", "annotations": {"io.mglrud.MaxStep": "1G"}, "pad": "x" * (1 << 20)}))' > "$tmp/big.json"
run_hook < "$tmp/big.json" || fail "big state: exit $?"
grep -q "Cannot read the OCI state from stdin: more than 1 MiB" "$tmp/err" || fail "big state: log"
echo "mglrud-oci-hook: ok (14 cases, the stuck stdin ended after $ms ms)"
