# idle-limit (issue 24, part 1): the physical limit of S1's workload on the real kernel, with no
# daemon: anon-tiers with bench-s1's arguments in bench.slice/s1 (memory.max 800M, pinned to
# CPU 0 as bench-s1 does), tests/bench/idle-limit --cgroup on it (clear_refs, then smaps_rollup
# and smaps at each offset), and how many bytes were not referenced for 20 s, 60 s, 120 s.
# Args: at (offsets, default 20,60,120), delay (s after the workload's ready before clearing,
#       default 0: when bench-s1 starts its daemon), duration (workload, default 180), cold/warm/
#       hot (MiB, default 240/64/32), warmiv (s, default 30).
# Output: limit_idle_T_kib, limit_anon_idle_T_kib, limit_rss_T_kib, limit_referenced_T_kib per
# offset T, and idle-limit's output (idle-limit.out). Fails when the idle anon bytes at the
# first offset of 60 s or more are not the cold set (within 10%): the tool or the kernel's
# accessed bits are then wrong.
AT="${MGLRUD_ARG_at:-20,60,120}"
DELAY="${MGLRUD_ARG_delay:-0}"
DUR="${MGLRUD_ARG_duration:-180}"
COLD="${MGLRUD_ARG_cold:-240}" WARM="${MGLRUD_ARG_warm:-64}" HOT="${MGLRUD_ARG_hot:-32}"
WARMIV="${MGLRUD_ARG_warmiv:-30}"
CG="bench.slice/s1"
need_bin idle-limit
[ -w /proc/self/clear_refs ] && [ -r /proc/self/smaps_rollup ] || fail "no clear_refs or smaps_rollup in this kernel"
cg_create "$CG" 800M
run_anon_tiers "$CG" /tmp/wl.log 120 --cold "$COLD" --warm "$WARM" --hot "$HOT" --warm-interval "$WARMIV" --duration "$DUR" --report 5
WL=$WL_PID
split_cpus "$WL"
[ "$DELAY" = 0 ] || sleep "$DELAY"
idle-limit --cgroup "$(cg_path "$CG")" --at "$AT" > /tmp/idle.out 2> /tmp/idle.err
irc=$?
cat /tmp/idle.out /tmp/idle.err
kill "$WL" 2>/dev/null
wait "$WL"
result_file idle-limit.out /tmp/idle.out
result_file idle-limit.err /tmp/idle.err
result_file anon-tiers.log /tmp/wl.log
[ "$irc" = 0 ] || fail "idle-limit exited $irc: $(tail -n 3 /tmp/idle.err)"
result limit_rc "$irc"
result limit_cpus_split "${CPUS_SPLIT:-0}"
result limit_delay "$DELAY"
check=""
for t in $(echo "$AT" | tr ',' ' '); do
	line=$(grep "^event=idle at_s=$t " /tmp/idle.out)
	[ -n "$line" ] || fail "no measurement at $t s"
	v() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	result "limit_rss_${t}_kib" "$(v rss_kib)"
	result "limit_referenced_${t}_kib" "$(v referenced_kib)"
	result "limit_idle_${t}_kib" "$(v idle_kib)"
	result "limit_anon_idle_${t}_kib" "$(v anon_idle_kib)"
	result "limit_file_idle_${t}_kib" "$(v file_idle_kib)"
	result "limit_exited_${t}" "$(v exited)"
	[ -z "$check" ] && [ "$t" -ge 60 ] 2>/dev/null && check="$(v anon_idle_kib)"
done
if [ -n "$check" ]; then
	lo=$((COLD * 1024 * 9 / 10)) hi=$((COLD * 1024 * 11 / 10))
	[ "$check" -ge "$lo" ] && [ "$check" -le "$hi" ] ||
		fail "anon idle for 60 s or more is $((check / 1024)) MiB, the cold set is $COLD MiB"
fi
pass "idle for $AT s measured"
