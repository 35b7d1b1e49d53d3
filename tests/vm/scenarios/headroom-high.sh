# headroom-high: a cgroup under memory.high (96 MiB, no memory.max) with a hot set (16 MiB,
# written continuously), a warm set (16 MiB, written every 5 s) and a cold set that grows at
# 1 MiB/s into the limit (anon-tiers --cold-growth) up to 90 MiB (at 90 s), zram as swap. The
# same workload runs up to three times in this boot: unconstrained (no memory.high, no daemon:
# the hot loop's reference), the kernel alone under memory.high, then mglrud with
# HighHeadroom=10%. For each: memory.events "high" increments (the kernel throttling the cgroup
# over memory.high), the cgroup's PSI some and full stall (memory.pressure totals, µs), the hot
# loop's rate (touches/s over the run) and the anon/file refaults (memory.stat). Goal: mglrud has
# far fewer "high" events than the kernel alone (none while the cold set can be offloaded) and
# the hot loop is not slower than ~90% of the kernel alone's; the hot loop's ratio to the
# unconstrained run is reported (the issue's goal is within 5%; TCG swings 2-3x between runs, so
# it is a measurement, not an assertion).
# The sizing (mglructl advise, the gauge mglrud_memory_needed_bytes) is read at 60 s, while the
# cold set grows, and 8 s before the end, 22 s after it stopped growing: by then the generations
# tell the cold pages idle for MinColdAge, and the need brackets the 32 MiB hot+warm set. While
# the cold set grows the need also counts the cold pages written within MinColdAge and the
# generation before (10-20 MiB at 1 MiB/s), and right after a headroom eviction, which takes the
# generations idle for MinColdAge first, those left may not reach back that far.
# Args: MGLRUD_ARG_duration (workload seconds, default 120), MGLRUD_ARG_growth (cold MiB/s,
# default 1), MGLRUD_ARG_cold (the cold set's final size, MiB, default 90), MGLRUD_ARG_high
# (memory.high MiB, default 96), MGLRUD_ARG_modes (default "kernel,headroom"; any order of
# unconstrained, kernel and headroom, e.g. "unconstrained,kernel,headroom"; one alone runs only
# that one), MGLRUD_ARG_loglevel (default debug: the between-cycle decisions are logged at debug).
need_bin mglrud
need_bin mglructl
DUR="${MGLRUD_ARG_duration:-120}"
GROWTH="${MGLRUD_ARG_growth:-1}"
HIGH_MIB="${MGLRUD_ARG_high:-96}"
MODES=$(echo "${MGLRUD_ARG_modes:-kernel,headroom}" | tr , " ")
LEVEL="${MGLRUD_ARG_loglevel:-debug}"
COLD_MIB="${MGLRUD_ARG_cold:-90}"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
cg_event() { awk -v k="$2" '$1 == k { print $2 }' "$CG_ROOT/$1/memory.events"; }

# run_mode unconstrained|kernel|headroom: one run of the workload in its own cgroup (no
# memory.high when unconstrained); results prefixed MODE_.
run_mode() {
	local mode="$1" cg="test.slice/hr-$1" d_pid="" drc=0 peak=0 cur
	if [ "$mode" = unconstrained ]; then cg_create "$cg"; else cg_create "$cg" "" "${HIGH_MIB}M"; fi
	local high0 some0 full0 refa0 reff0
	high0=$(cg_event "$cg" high); some0=$(cg_psi "$cg" some); full0=$(cg_psi "$cg" full)
	refa0=$(cg_stat "$cg" workingset_refault_anon); reff0=$(cg_stat "$cg" workingset_refault_file)

	if [ "$mode" = headroom ]; then
		cat > /tmp/headroom.conf <<EOC
[Daemon]
Interval=2s

[/test.slice/hr-headroom]
Mode=active
MinColdAge=10s
MaxColdAge=40s
# Under TCG lru_gen eviction into zram runs at ~1.5 MiB/s: bounded writes keep the cycle
# responsive.
MaxStep=12M
HighHeadroom=10%
EOC
	fi
	run_anon_tiers "$cg" "/tmp/wl-$mode.log" 60 --cold $COLD_MIB --warm 16 --hot 16 \
		--warm-interval 5 --cold-growth "$GROWTH" --duration "$DUR" --report 10
	local wl=$WL_PID
	split_cpus "$wl"
	if [ "$mode" = headroom ]; then
		export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
		mglrud --cgroup-root /sys/fs/cgroup --config /tmp/headroom.conf --log-level "$LEVEL" \
			--runtime-dir /run/mglrud > /tmp/mglrud.log 2>&1 &
		d_pid=$!
	fi
	local t0 t advised="" early=""
	t0=$(date +%s)
	while kill -0 "$wl" 2>/dev/null; do
		# The same while the cold set grows (60 s): it counts the cold pages written lately.
		if [ -n "$d_pid" ] && [ -z "$early" ] && [ $(( $(date +%s) - t0 )) -ge 60 ]; then
			early=1
			timeout 30 mglructl --runtime-dir /run/mglrud advise > /tmp/advise-60s.txt 2>&1
			result_file advise-60s.txt /tmp/advise-60s.txt
			result "${mode}_advise_sizing_60s" "$(grep -o 'needs ~[^:]*' /tmp/advise-60s.txt | head -n 1 | tr ' ' _)"
			result "${mode}_current_at_60s_mib" "$(mib "$(cg_read "$cg" memory.current)")"
		fi
		# The sizing near the end, the cold set grown and idle since: advise's line, the gauges.
		if [ -n "$d_pid" ] && [ -z "$advised" ] && [ $(( $(date +%s) - t0 )) -ge $((DUR - 8)) ]; then
			advised=1
			timeout 30 mglructl --runtime-dir /run/mglrud advise > /tmp/advise.txt 2>&1
			timeout 30 mglructl --runtime-dir /run/mglrud metrics > /tmp/metrics.txt 2>&1
			result_file advise.txt /tmp/advise.txt
			result "${mode}_advise_sizing" "$(grep -o 'needs ~[^:]*' /tmp/advise.txt | head -n 1 | tr ' ' _)"
			result "${mode}_need_bytes" "$(grep '^mglrud_memory_needed_bytes{' /tmp/metrics.txt | head -n 1 | awk '{ print $NF }')"
			result "${mode}_current_at_advise_mib" "$(mib "$(cg_read "$cg" memory.current)")"
		fi
		cur=$(cg_read "$cg" memory.current)
		[ "$cur" -gt "$peak" ] && peak=$cur
		t=$(( $(date +%s) - t0 ))
		[ $((t % 10)) -eq 0 ] && log "$mode t=${t}s memory.current $(mib "$cur") MiB swap $(mib "$(cg_read "$cg" memory.swap.current)") MiB high events $(cg_event "$cg" high)"
		sleep 1
	done
	wait "$wl"
	if [ -n "$d_pid" ]; then
		if kill -0 "$d_pid" 2>/dev/null; then
			kill -TERM "$d_pid"; wait "$d_pid"; drc=$?
		else
			wait "$d_pid"; drc=$?
			log "mglrud exited early (rc=$drc)"
		fi
		result_file mglrud.log /tmp/mglrud.log
		result "${mode}_over_limit_lines" "$(grep -c 'working set exceeds the limit' /tmp/mglrud.log)"
		result "${mode}_headroom_lines" "$(grep -c 'over the headroom line' /tmp/mglrud.log)"
		result "${mode}_early_decisions" "$(grep -c 'past its headroom line .*: deciding now' /tmp/mglrud.log)"
		log "mglrud log tail:"; grep -v 'lru_gen command' /tmp/mglrud.log | tail -n 8
	fi
	result_file "anon-tiers-$mode.log" "/tmp/wl-$mode.log"
	local total high some full refa reff
	total=$(event_get "/tmp/wl-$mode.log" final hot_touches_total)
	assert_match "$total" '^[0-9]+$' "$mode: anon-tiers gave no final hot_touches_total"
	high=$(( $(cg_event "$cg" high) - high0 ))
	some=$(( $(cg_psi "$cg" some) - some0 )); full=$(( $(cg_psi "$cg" full) - full0 ))
	refa=$(( $(cg_stat "$cg" workingset_refault_anon) - refa0 ))
	reff=$(( $(cg_stat "$cg" workingset_refault_file) - reff0 ))
	result "${mode}_mglrud_rc" "$drc"
	result "${mode}_high_events" "$high"
	result "${mode}_psi_some_us" "$some"
	result "${mode}_psi_full_us" "$full"
	result "${mode}_hot_touches_per_s" "$((total / DUR))"
	result "${mode}_refault_anon" "$refa"
	result "${mode}_refault_file" "$reff"
	result "${mode}_peak_current_mib" "$(mib "$peak")"
	result "${mode}_cold_filled_kib" "$(event_get "/tmp/wl-$mode.log" final cold_filled_kib)"
	result "${mode}_swap_mib" "$(mib "$(cg_read "$cg" memory.swap.current)")"
	log "$mode: high events $high, PSI some ${some} us full ${full} us, hot $((total / DUR))/s, refaults anon $refa file $reff, peak $(mib "$peak") MiB"
	eval "R_${mode}_high=$high R_${mode}_rate=$((total / DUR)) R_${mode}_rc=$drc"
}

for m in $MODES; do
	run_mode "$m"
done

case " $MODES " in *" kernel "*) has_kernel=1 ;; *) has_kernel=0 ;; esac
case " $MODES " in *" headroom "*) has_headroom=1 ;; *) has_headroom=0 ;; esac
case " $MODES " in *" unconstrained "*)
	for m in kernel headroom; do
		eval "r=\${R_${m}_rate:-}"
		[ -n "$r" ] && [ "$R_unconstrained_rate" -gt 0 ] &&
			result "${m}_hot_vs_unconstrained_pct" "$((r * 100 / R_unconstrained_rate))"
	done ;;
esac
if [ "$has_kernel$has_headroom" = 11 ]; then
	assert_eq "$R_headroom_rc" 0 "mglrud exit code on SIGTERM"
	assert_gt "$R_kernel_high" 0 "the kernel alone must hit memory.high (else the run tests nothing)"
	assert_le "$((R_headroom_high * 10))" "$R_kernel_high" \
		"HighHeadroom=10%: at most a tenth of the kernel alone's memory.high events"
	assert_ge "$((R_headroom_rate * 100))" "$((R_kernel_rate * 90))" \
		"HighHeadroom=10%: hot loop at least 90% of the kernel alone's rate"
	pass "memory.high events: kernel alone $R_kernel_high, HighHeadroom=10% $R_headroom_high; hot loop $R_kernel_rate -> $R_headroom_rate touches/s"
fi
pass "modes $MODES measured (no comparison)"
