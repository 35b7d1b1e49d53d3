# pressure-mode: mglrud with Mode=pressure (the TMO law: memory.reclaim of
# memory.current × ReclaimRatio × (1 − PSI some / PressureTarget) per cycle) over the
# active-cold-anon workload must shrink memory.current somewhat through memory.reclaim
# (pgsteal_proactive grows, "reclaim asked" lines in its log, no lru_gen eviction) and exit 0 on
# SIGTERM. Args: MGLRUD_ARG_seconds (daemon run, default 40).
need_bin mglrud
SECS="${MGLRUD_ARG_seconds:-40}"
CG="test.slice/tmo"
cg_create "$CG" 600M
run_anon_tiers "$CG" /tmp/wl.log 90 --cold 160 --warm 16 --hot 16 --warm-interval 5 --duration 0 --report 5
WL=$WL_PID
cat > /tmp/tmo.conf <<EOC
[Daemon]
Interval=2s

[/test.slice/tmo]
Mode=pressure
# 1% of memory.current (~2 MiB) per cycle: visible within the run, still far below MaxStep.
ReclaimRatio=1%
PressureTarget=1%
Swappiness=max
EOC
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ino=$(cg_inode "$CG")
cur0=$(cg_read "$CG" memory.current)
steal0=$(cg_stat "$CG" pgsteal_proactive)
lru0=$(lru_gen_seqs "$ino")
mglrud --cgroup-root /sys/fs/cgroup --config /tmp/tmo.conf --log-level debug > /tmp/mglrud.log 2>&1 &
D_PID=$!
sleep "$SECS"
if kill -0 "$D_PID" 2>/dev/null; then
	kill -TERM "$D_PID"; wait "$D_PID"; drc=$?
else
	wait "$D_PID"; drc=$?
	log "mglrud exited early (rc=$drc)"
fi
cur1=$(cg_read "$CG" memory.current)
steal1=$(cg_stat "$CG" pgsteal_proactive)
result_file mglrud.log /tmp/mglrud.log
result mglrud_rc "$drc"
result memory_current_before "$cur0"
result memory_current_after "$cur1"
result memory_current_drop_mib "$(mib $((cur0 - cur1)))"
result pgsteal_proactive "$steal0 -> $steal1"
result lru_gen_seqs "$lru0 -> $(lru_gen_seqs "$ino")"
result reclaim_lines "$(grep -c 'reclaim asked' /tmp/mglrud.log)"
result evict_lines "$(grep -c 'evict asked' /tmp/mglrud.log)"
result hot_present_kib "$(event_get /tmp/wl.log report hot_present_kib)"
log "mglrud log tail:"; tail -n 8 /tmp/mglrud.log
kill "$WL" 2>/dev/null
assert_eq "$drc" 0 "mglrud exit code on SIGTERM"
assert_gt "$steal1" "$steal0" "pgsteal_proactive must grow"
assert_ge "$(grep -c 'reclaim asked' /tmp/mglrud.log)" 1 "reclaim actions in the log"
assert_eq "$(grep -c 'evict asked' /tmp/mglrud.log)" 0 "Mode=pressure must not use lru_gen eviction"
assert_le "$cur1" "$((cur0 - 4 * 1048576))" "memory.current must drop by >= 4 MiB"
pass "memory.reclaim: $(mib "$cur0") -> $(mib "$cur1") MiB"
