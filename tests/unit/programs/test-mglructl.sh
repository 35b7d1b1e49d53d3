#!/bin/bash
# mglrud --dry-run on the 7.3 fixture tree serving mglructl on a private socket: status, dump
# (text and JSON), metrics, pause/resume as root, refusal for an unprivileged caller, clean exit.
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
. "$(dirname "$0")/lib-mglrud.sh"
start_daemon --metrics-file "$tmp/mglrud.prom"
wait_estimates
[[ $(stat -c %a "$tmp/bus") == 666 ]] || fail "socket mode is $(stat -c %a "$tmp/bus")"

out=$(ctl status) || fail "status exited $?"
grep -q '^mglrud .*: Advising on 2 cgroups' <<<"$out" || fail "status: $out"

out=$(ctl dump) || fail "dump exited $?"
for cg in "/work load.slice/a b" "/work load.slice/b"; do
        grep -qxF -- "-> $cg" <<<"$out" || fail "dump lacks $cg: $out"
done
grep -qxF "        Mode: active" <<<"$out" || fail "dump lacks Mode: active"
grep -qxF "        Mode: advise" <<<"$out" || fail "dump lacks Mode: advise"
[[ $(grep -cxF "        Cold age (T): 10s" <<<"$out") == 2 ]] || fail "dump lacks T=10s: $out"
grep -qE '^        Refault guard: (BPF, 0 jobs stopped|no)$' <<<"$out" || fail "dump lacks the refault guard: $out"

out=$(ctl metrics) || fail "metrics exited $?"
grep -qE '^mglrud_cold_bytes\{cgroup="/work load.slice/a b",type="anon"\} [1-9][0-9]*$' <<<"$out" ||
        fail "metrics lack cold anon bytes of a b: $out"
grep -q '^mglrud_cycles_total ' "$tmp/mglrud.prom" || fail "no --metrics-file output"
[[ ! -e $tmp/mglrud.prom.tmp ]] || fail "metrics temporary file left behind"

ctl --json dump >"$tmp/dump.json" || fail "--json dump exited $?"
python3 -m json.tool "$tmp/dump.json" >/dev/null || fail "invalid JSON: $(cat "$tmp/dump.json")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert sorted(c["Path"] for c in d["cgroups"]) == ["/work load.slice/a b", "/work load.slice/b"]
assert all(c["ColdAgeUSec"] == 10000000 for c in d["cgroups"])
assert d["daemon"]["DryRun"] is True
# The guards, as the text dump has them (loaded or not, depending on the host: the types).
assert isinstance(d["daemon"]["StallGuard"], bool) and isinstance(d["daemon"]["RefaultGuard"], bool)
assert d["daemon"]["StallGuardStops"] == 0 and d["daemon"]["RefaultGuardStops"] == 0
for c in d["cgroups"]:
    assert c["PressureStops"] == 0 and c["StallGuardStops"] == 0 and c["RefaultGuardStops"] == 0
    assert c["RefaultGuardLastPages"] == 0 and c["StallGuardLastStallNSec"] == 0
    assert ("ReclaimStallNSec" in c) == d["daemon"]["StallGuard"]' "$tmp/dump.json" ||
        fail "JSON content: $(cat "$tmp/dump.json")"
ctl --json status | python3 -m json.tool >/dev/null || fail "invalid JSON status"

# Changing methods: root may, nobody may not (exit 4), reads stay open.
ctl pause "/work load.slice/b" || fail "pause PATH exited $?"
ctl dump | grep -A4 -xF -- "-> /work load.slice/b" | grep -qxF "        Paused: yes" ||
        fail "dump does not show /work load.slice/b paused"
ctl pause "/nonexistent" 2>/dev/null && fail "pause of an unmanaged cgroup succeeded"
ctl resume || fail "resume exited $?"
ctl pause || fail "pause (all) exited $?"
ctl dump | grep -qxF "        Paused: yes (all)" || fail "dump does not show the global pause"
if command -v setpriv >/dev/null; then
        nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        rc=0; "${nobody[@]}" "$ctl" --runtime-dir "$tmp" resume 2>"$tmp/err" || rc=$?
        [[ $rc == 4 ]] || fail "unprivileged resume: exit $rc, expected 4"
        grep -q 'requires root' "$tmp/err" || fail "unprivileged resume: $(cat "$tmp/err")"
        "${nobody[@]}" "$ctl" --runtime-dir "$tmp" status >/dev/null || fail "unprivileged status"
else
        echo "setpriv not found: skipping the unprivileged checks"
fi
ctl resume || fail "resume exited $?"
ctl dump | grep -q "Paused: yes" && fail "still paused after resume"
ctl reload || fail "reload exited $?"

# Exit codes for usage and connection errors.
rc=0; ctl frobnicate 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "unknown command: exit $rc, expected 2"
rc=0; "$ctl" --runtime-dir "$tmp/none" status 2>"$tmp/err" || rc=$?
[[ $rc == 3 ]] || fail "no daemon: exit $rc, expected 3"
grep -qF "$tmp/none/bus" "$tmp/err" || fail "the connect error does not name the socket"

kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "mglrud exited $rc on SIGTERM"
[[ ! -e $tmp/bus ]] || fail "socket left behind"
echo "mglructl against mglrud: ok"
