# bench-s3 (tests/bench/run-bench.sh, not a meson test): swappiness sweep on the mixed workload
# (anon MGLRUD_ARG_anon MiB touched once + /data/medium.bin, 128 MiB of page cache read once).
# For each N in MGLRUD_ARG_sweep (comma-separated, default 1,100,200; "auto" runs mglrud only),
# on a fresh cgroup each:
#   kernel: one write "64M swappiness=N" to memory.reclaim;
#   mglrud: Mode=active Swappiness=N (MinColdAge=5s MaxColdAge=10s MaxStep=16M) until it has
#           stolen >= 64 MiB (pgsteal_proactive) or 90 s;
#   pressure (MGLRUD_ARG_pressure=1): the same with Mode=pressure (the TMO law through
#           memory.reclaim) and ReclaimRatio=2%, so that 64 MiB go within the 90 s (the
#           default 0.05% would take ~20 min); the split is what is measured, not the speed.
# Both are aged twice 8 s apart first (kwrite to lru_gen), so both types sit in old generations.
# Reports the anon share of what went (Δanon / (Δanon + Δfile) from memory.stat).
# MGLRUD_ARG_kernel=0 skips the kernel runs; MGLRUD_ARG_assert=1 (the CI version, meson test
# swappiness-sweep) fails unless mglrud's anon share rises with N and stays within
# MGLRUD_ARG_tolerance points (default 10) of N/200 for every numeric N.
SWEEP="$(echo "${MGLRUD_ARG_sweep:-1,100,200}" | tr ',' ' ')"
KERNEL="${MGLRUD_ARG_kernel:-1}"
ANON="${MGLRUD_ARG_anon:-100}"
have_d=1; command -v mglrud >/dev/null 2>&1 || have_d=0
one() { # kind N
	local kind="$1" n="$2" cg="bench.slice/s3-$1-$2" a0 f0 a1 f1 s0 s1 t
	echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg" 600M
	cg_run "$cg" "/tmp/mixed-$kind-$n.log" mixed --anon "$ANON" --file /data/medium.bin --duration 0
	local wl=$WL_PID
	wait_event "/tmp/mixed-$kind-$n.log" ready 120 || fail "mixed did not start ($kind $n)"
	# Age twice 8 s apart (both variants), so that anon (promoted by the page-table walk of
	# the first ageing) and file are both in old generations when reclaim starts.
	local ino; ino=$(cg_inode "$cg")
	kwrite "$LRU_GEN" "+ $ino 0 $(lru_gen_max_seq "$ino") 1 1" > /dev/null 2>&1; sleep 8
	kwrite "$LRU_GEN" "+ $ino 0 $(lru_gen_max_seq "$ino") 1 1" > /dev/null 2>&1; sleep 8
	a0=$(cg_stat "$cg" anon) f0=$(cg_stat "$cg" file) s0=$(cg_stat "$cg" pgsteal_proactive)
	t=$(date +%s)
	local mode=active ratio=""
	[ "$kind" = pressure ] && mode=pressure ratio="ReclaimRatio=2%"
	if [ "$kind" = kernel ]; then
		kwrite "$CG_ROOT/$cg/memory.reclaim" "64M swappiness=$n" > /dev/null 2>&1
	else
		cat > /tmp/s3.conf <<EOC
[Daemon]
Interval=2s

[/$cg]
Mode=$mode
$ratio
Swappiness=$n
MinColdAge=5s
MaxColdAge=10s
MaxStep=16M
EOC
		mglrud --cgroup-root /sys/fs/cgroup --config /tmp/s3.conf > "/tmp/$kind-$n.log" 2>&1 &
		local d=$!
		while [ $(( $(date +%s) - t )) -lt 90 ] && [ $(( $(cg_stat "$cg" pgsteal_proactive) - s0 )) -lt 16384 ]; do sleep 1; done
		kill -TERM "$d"; wait "$d"
		result_file "$kind-$n.log" "/tmp/$kind-$n.log"
	fi
	a1=$(cg_stat "$cg" anon) f1=$(cg_stat "$cg" file) s1=$(cg_stat "$cg" pgsteal_proactive)
	result "s3_${kind}_${n}" "$(awk -v a0="$a0" -v a1="$a1" -v f0="$f0" -v f1="$f1" -v s="$((s1 - s0))" -v t="$(( $(date +%s) - t ))" \
		'BEGIN { da = a0 - a1; df = f0 - f1; if (da < 0) da = 0; if (df < 0) df = 0
		printf "anon_share=%.1f%%,anon_mib=%.1f,file_mib=%.1f,steal_mib=%.1f,secs=%d", (da + df) ? 100 * da / (da + df) : 0, da / 1048576, df / 1048576, s / 256, t }')"
	kill "$wl" 2>/dev/null; wait "$wl" 2>/dev/null
	echo 3 > /proc/sys/vm/drop_caches
	rmdir "$CG_ROOT/$cg" 2>/dev/null
}
for n in $SWEEP; do
	# The kernel has no "auto": only mglrud runs it.
	[ "$n" = auto ] || [ "$KERNEL" = 0 ] || one kernel "$n"
	[ "$have_d" = 1 ] && one mglrud "$n"
	[ "$have_d" = 1 ] && [ "${MGLRUD_ARG_pressure:-0}" = 1 ] && one pressure "$n"
done
if [ "${MGLRUD_ARG_assert:-0}" = 1 ]; then
	[ "$have_d" = 1 ] || skip "no mglrud in this build"
	prev=-1
	for n in $SWEEP; do
		[ "$n" = auto ] && continue
		share=$(sed -n "s/^s3_mglrud_$n=anon_share=\([0-9.]*\)%.*/\1/p" "$MGLRUD_RESULT_FILE")
		[ -n "$share" ] || fail "no result for Swappiness=$n"
		awk -v s="$share" -v n="$n" -v tol="${MGLRUD_ARG_tolerance:-10}" 'BEGIN { d = s - n / 2; exit !(d <= tol && d >= -tol) }' ||
			fail "Swappiness=$n: anon share $share%, asked $(awk -v n="$n" 'BEGIN { print n / 2 }')%"
		awk -v s="$share" -v p="$prev" 'BEGIN { exit !(s > p) }' || fail "Swappiness=$n: anon share $share% not above $prev%"
		prev=$share
	done
	pass "anon share rises with Swappiness and stays within ${MGLRUD_ARG_tolerance:-10} points: $(grep '^s3_mglrud_' "$MGLRUD_RESULT_FILE" | sed 's/,anon_mib.*//' | tr '\n' ' ')"
fi
pass "s3 done"
