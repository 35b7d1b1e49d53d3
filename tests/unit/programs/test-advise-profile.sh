#!/bin/bash
# mglructl advise's idle-age profile against mglrud --dry-run on the 7.3 fixture tree: the
# ladder of the host and of each cgroup, recomputed here from the fixture's lru_gen_full by an
# independent reading of the idle model (generation g idle >= age(g+1), the youngest unknown,
# nothing known past the oldest generation); the table and --json carry the same figures; and,
# with --debugfs-root pointing nowhere, a statement of what cannot be estimated instead of
# numbers.
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
. "$(dirname "$0")/lib-mglrud.sh"

start_daemon
wait_estimates
ctl --json advise >"$tmp/advise.json" || fail "advise --json exited $?"
ctl advise >"$tmp/advise.txt" || fail "advise exited $?"
echo "--- mglructl advise:"; cat "$tmp/advise.txt"

python3 - "$tree/debugfs/lru_gen_full" "$tmp/advise.json" <<'EOF' || fail "the profile differs from the fixture's generations"
import json, sys
PAGE = 4096
LADDER = [10e6, 30e6, 60e6, 120e6, 300e6, 600e6, 1800e6, 3600e6]

# lru_gen_full: "memcg ID PATH", " node N", then "SEQ AGE_MS ANON FILE" lines ("x": gone).
lruvecs, cur = [], None
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith("memcg "):
        path = line.rstrip("\n").split(" ", 2)[2]
    elif line.startswith(" node "):
        cur = {"path": path, "gens": []}
        lruvecs.append(cur)
    elif len(f) == 4 and f[0].isdigit() and f[1].isdigit():
        n = lambda s: 0 if s.endswith("x") else int(s)
        cur["gens"].append((int(f[1]) * 1000, n(f[2]), n(f[3])))

def idle(v, i):  # usec; the youngest generation's is not known
    return v["gens"][i + 1][0] if i + 1 < len(v["gens"]) else 0

def horizon(v):
    for i in range(len(v["gens"]) - 1):
        if v["gens"][i][1] + v["gens"][i][2]:
            return idle(v, i)
    return 0

def profile(vs):
    vs = [v for v in vs if sum(g[1] + g[2] for g in v["gens"])]
    h = max([horizon(v) for v in vs] or [0])
    rows = {}
    for t in sorted(set(LADDER) | ({h} if h else set())):
        if h == 0 or t > h:
            rows[t] = None
            continue
        a = sum(v["gens"][i][1] for v in vs for i in range(len(v["gens"])) if idle(v, i) >= t)
        fl = sum(v["gens"][i][2] for v in vs for i in range(len(v["gens"])) if idle(v, i) >= t)
        rows[t] = (a * PAGE, fl * PAGE, any(horizon(v) < t for v in vs))
    return h, rows

def check(name, entry, vs):
    h, want = profile(vs)
    f = entry["Fields"]
    assert f["HasLruGen"] is True, name
    assert f["HorizonUSec"] == h, (name, f["HorizonUSec"], h)
    got = {r["IdleUSec"]: r for r in entry["Ladder"]}
    assert sorted(got) == sorted(want), (name, sorted(got), sorted(want))
    for t, w in want.items():
        r = got[t]
        if w is None:
            assert r["Known"] is False and r["AnonBytes"] is None, (name, t, r)
            continue
        assert (r["AnonBytes"], r["FileBytes"], r["AtLeast"]) == w, (name, t, r, w)
        assert r["Oldest"] == (t == h), (name, t, r)
    print(f"{name}: horizon {h / 1e6:g}s, {len(want)} rows as the generations say")

a = json.load(open(sys.argv[2]))
check("host", a["host"], lruvecs)
for c in a["cgroups"]:
    check(c["Path"], c["Profile"], [v for v in lruvecs if v["path"] == c["Path"]])
ab = next(c for c in a["cgroups"] if c["Path"] == "/work load.slice/a b")["Profile"]["Fields"]
# What T = 10 s frees: generations 3 and 4 (never the two youngest), all anon.
assert ab["ForecastTUSec"] == 10_000_000 and ab["ForecastTFlags"] == 0, ab
assert ab["ForecastTAnonBytes"] == (24716 + 4524) * PAGE and ab["ForecastTFileBytes"] == 0, ab
b = next(c for c in a["cgroups"] if c["Path"] == "/work load.slice/b")["Profile"]["Fields"]
assert b["ForecastTFlags"] & 2, b  # not known yet: the generations span 1.8 s
EOF

# The table says the same, and says what it does not know.
grep -qE '^  18s oldest +96M +0 +96M$' "$tmp/advise.txt" || fail "a b: no 18s row"
grep -qE '^  30s\.\.1h +not known yet' "$tmp/advise.txt" || fail "a b: unknown rungs not shown as such"
grep -qF 'would free now: T=10s 114M (anon 114M, file 0)' "$tmp/advise.txt" || fail "a b: forecast"
grep -qF 'would free now: T=10s not known yet' "$tmp/advise.txt" || fail "b: forecast"
grep -qE '^  10s +≥148M ' "$tmp/advise.txt" || fail "host: the 10s rung is a lower bound"
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"
pid=

# Without lru_gen: what can and cannot be estimated, no ladder, no forecast.
start_daemon --debugfs-root "$tmp/nowhere"
for _ in $(seq 100); do
        [[ -S $tmp/bus ]] && ctl --json advise 2>/dev/null | grep -q '"HasLruLists":true' && break
        sleep 0.1
done
ctl advise >"$tmp/advise.txt" || fail "advise without lru_gen exited $?"
echo "--- mglructl advise without lru_gen:"; cat "$tmp/advise.txt"
grep -qF 'how long memory has been idle cannot be estimated' "$tmp/advise.txt" || fail "no statement"
[[ $(grep -c 'cannot be estimated' "$tmp/advise.txt") == 3 ]] || fail "host and both cgroups say so"
grep -qE 'IDLE|would free now' "$tmp/advise.txt" && fail "a ladder or forecast without lru_gen"
grep -qF "What memory.stat tells: inactive anon 114M file 0, active anon 8M file 54M" \
        "$tmp/advise.txt" || fail "a b: memory.stat's lists"
ctl --json advise | python3 -c 'import json, sys
a = json.load(sys.stdin)
for e in [a["host"]] + [c["Profile"] for c in a["cgroups"]]:
    assert e["Fields"]["HasLruGen"] is False and e["Ladder"] == [], e
ab = next(c for c in a["cgroups"] if c["Path"] == "/work load.slice/a b")["Profile"]["Fields"]
assert ab["InactiveAnonBytes"] == 119767040 and ab["ActiveFileBytes"] == 56623104, ab
assert "ForecastTUSec" not in ab, ab' || fail "advise --json without lru_gen"
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"
pid=
echo "mglructl advise profile: ok"
