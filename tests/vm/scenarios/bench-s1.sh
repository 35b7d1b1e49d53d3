# bench-s1 (tests/bench/run-bench.sh, not a meson test): anon tiers with zram under one variant.
# Args: variant=none|active|pressure, duration (s, default 180), mid (s, default 90),
#       settle (s after which warm refaults count, default 120), cold/warm/hot (MiB,
#       default 240/64/32), warmiv (s, default 30), interval (daemon, default 2s),
#       mincold/maxcold (active, default 20s/2min), maxstep (default 64M, the daemon's), pin (1: workload on
#       CPU 0, the rest on the other CPUs, see split_cpus; 0: no pinning), daemon/cg (more
#       lines for the [Daemon] and the cgroup's section, KEY:VALUE,KEY:VALUE, for ablations:
#       daemon=StallGuard:no,RefaultGuard:no cg=StreamProtection:no).
# Output: result keys bench_* (parsed by run-bench.sh) plus the workload log and a 5 s series.
V="${MGLRUD_ARG_variant:-none}"
DUR="${MGLRUD_ARG_duration:-180}"
MID="${MGLRUD_ARG_mid:-90}"
SETTLE="${MGLRUD_ARG_settle:-120}"
COLD="${MGLRUD_ARG_cold:-240}" WARM="${MGLRUD_ARG_warm:-64}" HOT="${MGLRUD_ARG_hot:-32}"
WARMIV="${MGLRUD_ARG_warmiv:-30}"
IV="${MGLRUD_ARG_interval:-2s}"
MINC="${MGLRUD_ARG_mincold:-20s}" MAXC="${MGLRUD_ARG_maxcold:-2min}"
STEP="${MGLRUD_ARG_maxstep:-64M}"
CG="bench.slice/s1"
cg_create "$CG" 800M
case "$V" in none|active|pressure) ;; *) fail "unknown variant $V" ;; esac
[ "$V" = none ] || need_bin mglrud
conf_lines() { echo "$1" | tr ',' '\n' | sed -n 's/^\([A-Za-z]*\):/\1=/p'; }
cat > /tmp/bench.conf <<EOC
[Daemon]
Interval=$IV
$(conf_lines "${MGLRUD_ARG_daemon:-}")

[/bench.slice/s1]
Mode=$V
MinColdAge=$MINC
MaxColdAge=$MAXC
MaxStep=$STEP
$(conf_lines "${MGLRUD_ARG_cg:-}")
EOC
result_file bench.conf /tmp/bench.conf
run_anon_tiers "$CG" /tmp/wl.log 120 --cold "$COLD" --warm "$WARM" --hot "$HOT" --warm-interval "$WARMIV" --duration "$DUR" --report 5
WL=$WL_PID
# The workload on CPU 0, this shell, the samplers and the daemon on the other (guest-lib).
if [ "${MGLRUD_ARG_pin:-1}" = 1 ]; then split_cpus "$WL"; fi
cur0=$(cg_read "$CG" memory.current)
steal0=$(cg_stat "$CG" pgsteal_proactive)
t0=$(date +%s)
ctxt0=$(sys_ctxt)
kthread_costs > /tmp/kthreads0
if [ "$V" != none ]; then
	mglrud --cgroup-root /sys/fs/cgroup --config /tmp/bench.conf --log-level debug > /tmp/mglrud.log 2>&1 &
	D_PID=$!
fi
# Series every 5 s: t memory.current swap.current workingset_refault_anon pgsteal_proactive
: > /tmp/series
refa_settle=""
while kill -0 "$WL" 2>/dev/null; do
	t=$(( $(date +%s) - t0 ))
	ra=$(cg_stat "$CG" workingset_refault_anon)
	echo "$t $(cg_read "$CG" memory.current) $(cg_read "$CG" memory.swap.current) $ra $(cg_stat "$CG" pgsteal_proactive)" >> /tmp/series
	[ -z "$refa_settle" ] && [ "$t" -ge "$SETTLE" ] && refa_settle="$ra"
	# The daemon's cost of starting (loading its BPF programs, the first ageing) apart.
	[ "$V" != none ] && [ ! -e /tmp/daemon-tasks-10s ] && [ "$t" -ge 10 ] && task_costs "$D_PID" > /tmp/daemon-tasks-10s
	sleep 5
done
wait "$WL"
t1=$(date +%s)
ctxt1=$(sys_ctxt)
kthread_costs > /tmp/kthreads1
: > /tmp/daemon-tasks
[ "$V" = none ] || task_costs "$D_PID" > /tmp/daemon-tasks
refa_end=$(cg_stat "$CG" workingset_refault_anon)
# memory.current at the last sample while the workload still ran (it is ~0 after its exit).
cur1=$(tail -n 1 /tmp/series | cut -d" " -f2)
steal1=$(cg_stat "$CG" pgsteal_proactive)
drc=none
if [ "$V" != none ]; then
	kill -TERM "$D_PID"; wait "$D_PID"; drc=$?
	result_file mglrud.log /tmp/mglrud.log
fi
result_file anon-tiers.log /tmp/wl.log
result_file series /tmp/series
result_file daemon-tasks /tmp/daemon-tasks
[ -e /tmp/daemon-tasks-10s ] && result_file daemon-tasks-10s /tmp/daemon-tasks-10s
result_file kthreads /tmp/kthreads1
# Cold offloaded (swapped out) at the report nearest MID and at the final report.
cold_at() { awk -v m="$1" '$1 == "event=report" || $1 == "event=final" { split($2, a, "="); t = a[2]; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	d = t - m; if (d < 0) d = -d; if (best == "" || d < best) { best = d; out = sprintf("%.1f", 100 * v["cold_swapped_kib"] / v["cold_kib"]) } } END { print out }' /tmp/wl.log; }
result bench_variant "$V"
result bench_cpus_split "${CPUS_SPLIT:-0}"
# Median of the 5 s hot-loop rates: robust to one slow window, unlike the total.
result bench_hot_rate_median "$(awk '$1 == "event=report" { for (i = 3; i <= NF; i++) if ($i ~ /^hot_touches_per_s=/) { split($i, kv, "="); print kv[2] } }' /tmp/wl.log | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')"
result bench_duration "$DUR"
result bench_cold_off_mid "$(cold_at "$MID")"
result bench_cold_off_end "$(event_get /tmp/wl.log final cold_swapped_kib | awk -v k="$(event_get /tmp/wl.log final cold_kib)" '{ printf "%.1f", 100 * $1 / k }')"
result bench_warm_refault_pct "$(awk -v a="${refa_settle:-$refa_end}" -v b="$refa_end" -v w="$WARM" 'BEGIN { printf "%.1f", 100 * (b - a) / (w * 256) }')"
result bench_refault_anon_total "$refa_end"
result bench_warm_pass_max_ms "$(event_get /tmp/wl.log final warm_pass_max_ms)"
result bench_hot_touches_total "$(event_get /tmp/wl.log final hot_touches_total)"
result bench_hot_present_pct "$(event_get /tmp/wl.log final hot_present_kib | awk -v k="$(event_get /tmp/wl.log final hot_kib)" '{ printf "%.1f", 100 * $1 / k }')"
result bench_mem_before "$cur0"
result bench_mem_after "$cur1"
result bench_pgsteal_proactive "$((steal1 - steal0))"
result bench_mglrud_rc "$drc"
# What the run cost the CPUs: context switches per second of all CPUs, and the daemon's own
# (every thread: switches are wakeups, each one under TCG a software-TLB flush for what runs
# next on that CPU), CPU time, ageing and eviction decisions per minute (from its debug log),
# and the reclaim kernel threads' CPU time over the run.
el=$(( t1 > t0 ? t1 - t0 : 1 ))
result bench_elapsed_s "$el"
result bench_sys_csw_per_s "$(( (ctxt1 - ctxt0) / el ))"
result bench_daemon_csw_per_s "$(awk -v el="$el" '{ s += $3 + $4 } END { printf "%.1f", s / el }' /tmp/daemon-tasks)"
result bench_daemon_threads "$(awk '{ printf "%s%s:%d/%d", (NR > 1 ? "," : ""), $2, $3, $4 }' /tmp/daemon-tasks)"
result bench_daemon_cpu_ms "$(awk '{ s += $6 } END { printf "%.0f", s / 1e6 }' /tmp/daemon-tasks)"
if [ "$V" != none ]; then
	result bench_daemon_cpu_ms_10s "$(awk '{ s += $6 } END { printf "%.0f", s / 1e6 }' /tmp/daemon-tasks-10s 2>/dev/null)"
	result bench_daemon_aged_per_min "$(grep -c ': aged [0-9]* lruvec' /tmp/mglrud.log | awk -v el="$el" '{ printf "%.1f", 60 * $1 / el }')"
	result bench_daemon_decisions_per_min "$(grep -c ': decision: ' /tmp/mglrud.log | awk -v el="$el" '{ printf "%.1f", 60 * $1 / el }')"
fi
result bench_kthreads_ms "$(awk 'NR == FNR { r[$1] = $2; next } { printf "%s%s:%.0f", n++ ? "," : "", $1, ($2 - r[$1]) / 1e6 }' /tmp/kthreads0 /tmp/kthreads1)"
pass "variant $V done"
