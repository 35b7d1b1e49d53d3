#!/bin/bash
# The cgroups' idle-age profiles are kept only once asked for (docs/design.md, "Idle-age
# profile"): the first IdleProfile() (mglructl advise) and the first Metrics() call, made after
# cycles that kept none, still show every cgroup's profile (the call waits for the next cycle),
# and the daemon says once that it turned them on.
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
. "$(dirname "$0")/lib-mglrud.sh"

# Waits for the socket and the third cycle, asking only Status() (which shows no profile).
wait_cycles() {
        for _ in $(seq 100); do
                [[ -S $tmp/bus ]] && ctl status 2>/dev/null | grep -q ', cycle [3-9]' && return
                sleep 0.1
        done
        fail "no third cycle"
}

start_daemon
wait_cycles
grep -q 'Idle-age profiles asked for' "$tmp/log" && fail "profiles on before anyone asked"
ctl --json advise >"$tmp/advise.json" || fail "advise --json exited $?"
python3 - "$tmp/advise.json" <<'PY' || fail "the first IdleProfile() lacks the cgroups' profiles"
import json, sys
a = json.load(open(sys.argv[1]))
known = {c["Path"]: sum(r["Known"] for r in c["Profile"]["Ladder"]) for c in a["cgroups"]}
# The fixture's two cgroups both have lru_gen records: each knows some rungs.
assert sorted(known) == ["/work load.slice/a b", "/work load.slice/b"], known
assert all(k > 0 for k in known.values()), known
PY
[[ $(grep -c 'Idle-age profiles asked for' "$tmp/log") == 1 ]] || fail "not said once"
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"

start_daemon
wait_cycles
ctl metrics >"$tmp/metrics" || fail "metrics exited $?"
for cg in 'a b' b; do
        grep -q "^mglrud_idle_horizon_seconds{cgroup=\"/work load.slice/$cg\"" "$tmp/metrics" ||
                fail "the first Metrics() lacks the idle-age profile of $cg"
done
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"
pid=
echo "idle-age profiles on first ask: ok"
