#!/bin/bash
# mglructl advise and set against mglrud --dry-run on the 7.3 fixture tree: fresh advice without
# side effects, runtime policy overrides (validation, root only, removal, kept over SIGHUP).
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
. "$(dirname "$0")/lib-mglrud.sh"
start_daemon
ab="/work load.slice/a b"
# The advice line of one cgroup.
advice() { ctl advise | grep -F -- "$1  " | sed 's/^.\{32\} //'; }

wait_estimates

# advise: both cgroups, a "cold anon" line each, nothing changed in the daemon. A cycle between
# the two dumps changes them by itself (the cycle count tells): then the pair is taken again.
cycles() { sed -n 's/^        Cycles: //p' <<<"$1"; }
for attempt in 1 2 3 4 5; do
        before=$(ctl dump) || fail "dump exited $?"
        out=$(ctl advise) || fail "advise exited $?"
        after=$(ctl dump) || fail "dump exited $?"
        [[ $(cycles "$before") == "$(cycles "$after")" ]] && break
        [[ $attempt == 5 ]] && fail "a cycle came between the two dumps five times"
done
head -n1 <<<"$out" | grep -qE '^CGROUP +ADVICE$' || fail "advise header: $out"
for cg in "$ab" "/work load.slice/b"; do
        grep -F -- "$cg " <<<"$out" | grep -q 'cold anon' || fail "advise lacks $cg: $out"
done
grep -F -- "$ab " <<<"$out" | grep -q 'would evict 64M' || fail "advise of a b: $out"
before=$(grep -vE '^        (Cycles|Last cycle):' <<<"$before")
after=$(grep -vE '^        (Cycles|Last cycle):' <<<"$after")
[[ $before == "$after" ]] || fail "advise changed the state: $(diff <(echo "$before") <(echo "$after"))"
ctl --json advise | python3 -c 'import json,sys; a=json.load(sys.stdin)["cgroups"]
assert sorted(x["Path"] for x in a) == ["/work load.slice/a b", "/work load.slice/b"]
assert all("cold anon" in x["Advice"] for x in a)' || fail "advise --json"

# set: a runtime override shows in the dump, GetCgroup and the advice.
ctl set "$ab" MaxStep=32M || fail "set MaxStep=32M exited $?"
ctl dump | grep -A4 -xF -- "-> $ab" | grep -qxF "        Override: MaxStep=32M (runtime override)" ||
        fail "dump lacks the override: $(ctl dump)"
ctl --json dump | python3 -c 'import json,sys; d=json.load(sys.stdin)
o={c["Path"]: c["RuntimeOverrides"] for c in d["cgroups"]}
assert o == {"/work load.slice/a b": "MaxStep=32M", "/work load.slice/b": ""}, o' ||
        fail "GetCgroup RuntimeOverrides"
advice "$ab" | grep -q 'would evict 32M' || fail "advice ignores the override: $(ctl advise)"

# Invalid values and keys: exit 1 with the config parser's message; nothing changes.
rc=0; ctl set "$ab" MaxStep=12Q 2>"$tmp/err" || rc=$?
[[ $rc == 1 ]] || fail "invalid value: exit $rc, expected 1"
grep -qF 'MaxStep=12Q: invalid size' "$tmp/err" || fail "invalid value: $(cat "$tmp/err")"
rc=0; ctl set "$ab" Frobnicate=1 2>"$tmp/err" || rc=$?
[[ $rc == 1 ]] || fail "unknown key: exit $rc, expected 1"
rc=0; ctl set "/nonexistent" MaxStep=1M 2>/dev/null || rc=$?
[[ $rc == 1 ]] || fail "unmanaged cgroup: exit $rc, expected 1"
rc=0; ctl set "$ab" MaxStep 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "set without '=': exit $rc, expected 2"
ctl dump | grep -qxF "        Override: MaxStep=32M (runtime override)" || fail "a refused set changed the override"

# Only root may set; advise stays open.
if command -v setpriv >/dev/null; then
        nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        rc=0; "${nobody[@]}" "$ctl" --runtime-dir "$tmp" set "$ab" MaxStep=1M 2>"$tmp/err" || rc=$?
        [[ $rc == 4 ]] || fail "unprivileged set: exit $rc, expected 4"
        grep -q 'requires root' "$tmp/err" || fail "unprivileged set: $(cat "$tmp/err")"
        "${nobody[@]}" "$ctl" --runtime-dir "$tmp" advise >/dev/null || fail "unprivileged advise"
else
        echo "setpriv not found: skipping the unprivileged checks"
fi

# SIGHUP reloads the configuration and re-applies the override over it.
cycles() { ctl dump | sed -n 's/^        Cycles: //p'; }
c0=$(cycles)
kill -HUP "$pid"
for _ in $(seq 50); do (( $(cycles) > c0 + 1 )) && break; sleep 0.1; done
grep -q 'Configuration reloaded' "$tmp/log" || fail "no reload"
ctl dump | grep -qxF "        Override: MaxStep=32M (runtime override)" || fail "override lost on reload"
advice "$ab" | grep -q 'would evict 32M' || fail "override not applied after reload"

# KEY= removes the override: back to the configured 64M.
ctl set "$ab" MaxStep= || fail "set MaxStep= exited $?"
ctl dump | grep -q "runtime override" && fail "override still shown after removal"
advice "$ab" | grep -q 'would evict 64M' || fail "removal did not restore 64M: $(ctl advise)"

kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "mglrud exited $rc on SIGTERM"
echo "mglructl advise and set against mglrud: ok"
