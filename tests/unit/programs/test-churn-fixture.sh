#!/bin/bash
# Cgroups coming and going on a fixture tree while mglrud manages them in active mode (issue 14):
# after each cycle (cycle-meter --each-cycle, so the tree never changes under a read)
# mkscale-tree removes the oldest leaves, adds as many new ones (new inodes: new cgroup ids) and
# rewrites lru_gen_full. One group is managed as a whole with its leaves unmanaged, so the leaves
# it covers change under it too. The daemon must manage the new cgroups, drop the gone ones, write
# nothing for a cgroup it dropped, log no warning, and exit 0: under MGLRUD_TEST_WRAPPER
# (valgrind in the valgrind-daemon suite) without a leak or a memory error, under ASan without
# LeakSanitizer complaints.
#   test-churn-fixture.sh MGLRUD CYCLE-METER MKSCALE-TREE CAPTURE-DIR
set -euo pipefail
mglrud=$1 meter=$2 mktree=$3 capture=$4
LEAVES=60 CHURN=10 CYCLES=${MGLRUD_CHURN_CYCLES:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- daemon log (tail):"; grep -v '^debug: ' "$tmp/log" | tail -n 30; exit 1; }

"$mktree" --capture "$capture" --out "$tmp/t" --cgroups "$LEAVES" --per-group 20
# The leaves exist as regular files here: writes to memory.reclaim and lru_gen land in them.
cat > "$tmp/t/mglrud.conf" <<'EOC'
[Daemon]
Interval=1s

[Defaults]
MinColdAge=10s
MaxColdAge=10s
StreamProtection=no

[/scale.slice/*/*]
Mode=active

# g000 is managed as a whole: its leaves are covered by it, not managed themselves.
[/scale.slice/g000.slice]
Mode=active

[/scale.slice/g000.slice/*]
Mode=off
EOC

read -r -a wrapper <<<"${MGLRUD_TEST_WRAPPER:-}"
# Churn from the third cycle on (the first two find the tree and take the first samples).
each="[ \"\$CYCLE\" -ge 2 ] && '$mktree' --capture '$capture' --out '$tmp/t' --churn $CHURN"
"$meter" --cycles "$CYCLES" --skip 0 --timeout 600 --each-cycle "$each" -- \
        "${wrapper[@]}" "$mglrud" --config "$tmp/t/mglrud.conf" --cgroup-root "$tmp/t/cgroup" \
        --debugfs-root "$tmp/t/debugfs" --proc-root "$tmp/t/proc" --runtime-dir "$tmp" \
        --log-level debug >"$tmp/meter" 2>"$tmp/log" || fail "cycle-meter: $(tail -n 3 "$tmp/meter")"

status=$(sed -n 's/^exit status=//p' "$tmp/meter")
[ "$status" = 0 ] || fail "mglrud exit status $status"
managed=$(grep -c 'Managing /scale.slice/' "$tmp/log" || true)
dropped=$(grep -c 'No longer managing /scale.slice/' "$tmp/log" || true)
# Every churned leaf outside g000 is managed when it comes and dropped when it goes.
(( dropped >= CHURN )) || fail "only $dropped cgroups dropped"
(( managed >= LEAVES - 20 + dropped )) || fail "only $managed cgroups managed ($dropped dropped)"
read -r writes after_drop warnings < <(awk '
        /No longer managing / { p = $0; sub(/^.*No longer managing /, "", p); sub(/\.$/, "", p); gone[p] = 1; next }
        /: (lru_gen age|lru_gen evict|memory.reclaim) of .* took / {
                p = $0; sub(/^debug: /, "", p); sub(/: (lru_gen age|lru_gen evict|memory.reclaim) of .*$/, "", p)
                # A write that began before the drop (its job stopped while it ran) is not after it.
                writes++; if ((p in gone) && $0 !~ /stopped while it ran\)$/) after++
        }
        /^(warning|error): / { warn++ }
        END { print writes + 0, after + 0, warn + 0 }' "$tmp/log")
(( writes > 0 )) || fail "no write at all: the test does not test"
(( after_drop == 0 )) || fail "$after_drop writes for cgroups already dropped"
(( warnings == 0 )) || fail "$warnings warnings: $(grep -E '^(warning|error): ' "$tmp/log" | head -n 3)"
# mkscale-tree prints each memcg's directory inode as its id, like 7.x: found by id, so the
# histogram's paths are not kept (manager-probe.c).
grep -q 'lru_gen ids are cgroup ids' "$tmp/log" || fail "lru_gen ids not recognised as cgroup ids"
# The covering group worked on its leaves' lruvecs too: its first decision ages them all.
grep -qE '/scale.slice/g000.slice: decision: .*ageing ([2-9]|[1-9][0-9]+) lruvecs' "$tmp/log" ||
        fail "g000.slice never aged its covered leaves"
echo "churn: $managed managed, $dropped dropped, $writes writes, none after a drop, no warning"
