# active-cold-anon: mglrud in Mode=active over a cgroup holding 160 MiB of cold anon, 16 MiB warm
# (touched every 5 s) and 16 MiB hot must offload at least half of the cold set to zram within
# about 90 s of guest time through lru_gen eviction (pgsteal_proactive grows), keep the hot set
# resident (>= 95% present per anon-tiers' pagemap report) and exit 0 on SIGTERM. TCG-bound: the
# eviction itself takes ~60 s of the run.
# Args: MGLRUD_ARG_seconds (longest daemon run, default 140: eviction speed is CPU-bound and drops
# by half when other guests share the 2 host cores), MGLRUD_ARG_loglevel (default debug).
need_bin mglrud
SECS="${MGLRUD_ARG_seconds:-140}"
LEVEL="${MGLRUD_ARG_loglevel:-debug}"
CG="test.slice/active"
COLD_MIB=160
cg_create "$CG" 600M
run_anon_tiers "$CG" /tmp/wl.log 90 --cold $COLD_MIB --warm 16 --hot 16 --warm-interval 5 --duration 0 --report 5
WL=$WL_PID

cat > /tmp/active.conf <<EOC
[Daemon]
Interval=2s

[/test.slice/active]
Mode=active
MinColdAge=10s
MaxColdAge=40s
# Under TCG lru_gen eviction into zram runs at ~1.5 MiB/s: bounded writes keep the cycle (and
# SIGTERM) responsive.
MaxStep=12M
EOC

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ino=$(cg_inode "$CG")
steal0=$(cg_stat "$CG" pgsteal_proactive)
cur0=$(cg_read "$CG" memory.current)
swap0=$(cg_read "$CG" memory.swap.current)
refa0=$(cg_stat "$CG" workingset_refault_anon)
result memory_current_before "$cur0"
result memory_swap_before "$swap0"
result lru_gen_before "$(lru_gen_seqs "$ino")"
grep -A 12 -E "^memcg +$ino " "$LRU_GEN" > /tmp/lru_gen.before 2>/dev/null
result_file lru_gen.before /tmp/lru_gen.before

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mglrud --cgroup-root /sys/fs/cgroup --config /tmp/active.conf --log-level "$LEVEL" > /tmp/mglrud.log 2>&1 &
D_PID=$!
target=$((cur0 - COLD_MIB * 1048576 / 2))
t0=$(date +%s)
t=0 reached=""
while [ $t -lt "$SECS" ] && kill -0 "$D_PID" 2>/dev/null; do
	sleep 5
	t=$(( $(date +%s) - t0 ))
	cur=$(cg_read "$CG" memory.current)
	log "t=${t}s memory.current $(mib "$cur") MiB swap $(mib "$(cg_read "$CG" memory.swap.current)") MiB lru_gen $(lru_gen_seqs "$ino")"
	if [ -z "$reached" ] && [ "$cur" -le "$target" ]; then
		reached=$t
		# Keep the daemon running a little longer: the hot set must survive further cycles.
		SECS=$((t + 6))
	fi
done
if kill -0 "$D_PID" 2>/dev/null; then
	kill -TERM "$D_PID"; wait "$D_PID"; drc=$?
else
	wait "$D_PID"; drc=$?
	log "mglrud exited early (rc=$drc)"
fi
# One fresh workload report after the daemon stopped.
nrep=$(grep -c '^event=report ' /tmp/wl.log)
i=0
while [ "$(grep -c '^event=report ' /tmp/wl.log)" -le "$nrep" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
steal1=$(cg_stat "$CG" pgsteal_proactive)
cur1=$(cg_read "$CG" memory.current)
swap1=$(cg_read "$CG" memory.swap.current)
refa1=$(cg_stat "$CG" workingset_refault_anon)
hot_kib=$(event_get /tmp/wl.log report hot_kib)
warm_kib=$(event_get /tmp/wl.log report warm_kib)
hot_present=$(event_get /tmp/wl.log report hot_present_kib)
cold_present=$(event_get /tmp/wl.log report cold_present_kib)
warm_present=$(event_get /tmp/wl.log report warm_present_kib)
grep -A 12 -E "^memcg +$ino " "$LRU_GEN" > /tmp/lru_gen.after 2>/dev/null
result_file lru_gen.after /tmp/lru_gen.after
result_file mglrud.log /tmp/mglrud.log
result_file anon-tiers.log /tmp/wl.log
result mglrud_rc "$drc"
result reached_half_cold_s "${reached:-never}"
result memory_current_after "$cur1"
result memory_current_drop_mib "$(mib $((cur0 - cur1)))"
result memory_swap_after "$swap1"
result pgsteal_proactive "$steal0 -> $steal1"
result workingset_refault_anon "$refa0 -> $refa1"
result hot_present_kib "$hot_present/$hot_kib"
result warm_present_kib "$warm_present/$warm_kib"
result cold_present_kib "$cold_present"
result lru_gen_after "$(lru_gen_seqs "$ino")"
result evict_lines "$(grep -c 'evict asked' /tmp/mglrud.log)"
log "mglrud log tail:"; grep -v 'lru_gen command' /tmp/mglrud.log | tail -n 15
kill "$WL" 2>/dev/null

# The workload's report must be there: busybox arithmetic turns an empty value into 0, and the
# residency checks below would then compare 0 with 0.
for v in hot_kib hot_present warm_kib warm_present refa0 refa1; do
	eval "x=\$$v"
	assert_match "$x" '^[0-9]+$' "anon-tiers/memory.stat gave no $v"
done
assert_gt "$hot_kib" 0 "anon-tiers reported an empty hot set"
assert_gt "$warm_kib" 0 "anon-tiers reported an empty warm set"
assert_eq "$drc" 0 "mglrud exit code on SIGTERM"
assert_le "$cur1" "$target" "memory.current must drop by >= half the cold set (before $cur0)"
assert_gt "$steal1" "$steal0" "pgsteal_proactive must grow"
assert_ge "$((hot_present * 100))" "$((hot_kib * 95))" "hot set resident >= 95% (present KiB vs 95% of hot KiB)"
# The warm set is touched every 5 s, below MinColdAge=10s: it must stay, and not come back from
# zram page by page (refaults of at most 5% of its pages).
assert_ge "$((warm_present * 100))" "$((warm_kib * 90))" "warm set resident >= 90% (present KiB vs 90% of warm KiB)"
assert_le "$(( (refa1 - refa0) * 4 * 100 ))" "$((warm_kib * 5))" "anon refaults <= 5% of the warm set (pages $refa0 -> $refa1)"
pass "cold anon offloaded in ${reached}s: $(mib "$cur0") -> $(mib "$cur1") MiB, hot $hot_present/$hot_kib KiB resident"
