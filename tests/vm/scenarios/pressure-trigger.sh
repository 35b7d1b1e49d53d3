# pressure-trigger: how long mglrud's reclaim goes on after the first stalled task, with and
# without PSI triggers (PressureTriggers=). A 150 MiB cgroup whose 120 MiB hot set is written
# all the time; mglrud in Mode=pressure with a reclaim step that overshoots (60% of
# memory.current, in 4 MiB chunks to zram): once the cold pages are gone it evicts hot ones, the
# workload refaults them and stalls. psi-watch notes on CLOCK_MONOTONIC when the cgroup's "some"
# total first grows after the reclaim began; mglructl dump says when mglrud stopped (the trigger)
# and when its last reclaim write ended. Phase 1 runs without triggers (the cycle's average
# decides), phase 2 with them, each on a fresh cgroup. Asserts that with triggers the stop
# comes within 1 s of the first stall. Args: MGLRUD_ARG_interval (default 10s).
need_bin mglrud
need_bin mglructl
need_bin psi-watch
IVL="${MGLRUD_ARG_interval:-10s}"
ctl() { timeout 30 mglructl "$@"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (a - b) * 1000 }'; }

# phase NAME TRIGGERS: one run; sets STALL_S, STOP_S, WRITE_END_S, STEAL_AT_STALL, STEAL_END.
phase() {
	local name="$1" trig="$2" cg="trig.slice/$1" conf="/tmp/$1.conf"
	cg_create "$cg" 200M
	run_anon_tiers "$cg" "/tmp/$name-wl.log" 90 --cold 24 --warm 0 --hot 120 --duration 0 --report 5
	local wl=$WL_PID
	cat > "$conf" <<EOC
[Daemon]
Interval=$IVL
PressureTriggers=$trig

[/trig.slice/$name]
Mode=pressure
ReclaimRatio=60%
MaxStep=128M
Swappiness=max
EOC
	local steal0
	steal0=$(cg_stat "$cg" pgsteal_proactive)
	mglrud --cgroup-root /sys/fs/cgroup --config "$conf" --log-level info > "/tmp/$name-mglrud.log" 2>&1 &
	local d=$!
	# The reclaim begins at the second cycle (the first has no rates).
	local i=0
	while [ "$(cg_stat "$cg" pgsteal_proactive)" = "$steal0" ] && [ $i -lt 400 ]; do
		sleep 0.05; i=$((i + 1))
	done
	[ "$(cg_stat "$cg" pgsteal_proactive)" != "$steal0" ] || fail "$name: no reclaim within 20 s"
	psi-watch --poll 2000 --duration 40 "$CG_ROOT/$cg" > "/tmp/$name-psi.log" 2>&1 &
	local pw=$!
	wait_event "/tmp/$name-psi.log" stall 30 || fail "$name: the workload never stalled"
	# Long enough for the whole job without triggers (22 chunks) and a cycle after it.
	sleep 25
	ctl dump > "/tmp/$name-dump.txt" 2>&1 || fail "$name: mglructl dump"
	kill "$pw" 2>/dev/null; wait "$pw"
	kill -TERM "$d"; wait "$d"
	kill "$wl" 2>/dev/null; wait "$wl" 2>/dev/null
	STALL_S=$(awk -v u="$(event_get "/tmp/$name-psi.log" stall mono_us)" 'BEGIN { printf "%.3f", u / 1e6 }')
	STEAL_AT_STALL=$(event_get "/tmp/$name-psi.log" stall pgsteal_proactive)
	STEAL_END=$(event_get "/tmp/$name-psi.log" final pgsteal_proactive)
	WRITE_END_S=$(sed -n 's/.*Last reclaim write: ended at \([0-9.]*\)s.*/\1/p' "/tmp/$name-dump.txt" | head -n 1)
	STOP_S=$(sed -n 's/.*Pressure stops: .* last at \([0-9.]*\)s.*/\1/p' "/tmp/$name-dump.txt" | head -n 1)
	result_file "$name-mglrud.log" "/tmp/$name-mglrud.log"
	result_file "$name-dump.txt" "/tmp/$name-dump.txt"
	result "${name}_first_stall_s" "$STALL_S"
	result "${name}_stop_s" "${STOP_S:-none}"
	result "${name}_last_write_end_s" "${WRITE_END_S:-none}"
	result "${name}_reclaimed_after_stall_mib" "$(mib $(( (STEAL_END - STEAL_AT_STALL) * 4096 )))"
	result "${name}_stall_total_ms" "$(( $(event_get "/tmp/$name-psi.log" final stall_us) / 1000 ))"
	[ -n "$STOP_S" ] && result "${name}_stop_after_stall_ms" "$(ms "$STOP_S" "$STALL_S")"
	[ -n "$WRITE_END_S" ] && result "${name}_writes_after_stall_ms" "$(ms "$WRITE_END_S" "$STALL_S")"
	rmdir "$CG_ROOT/$cg" 2>/dev/null
}

phase off no
off_writes=$(ms "${WRITE_END_S:-$STALL_S}" "$STALL_S") off_after=$((STEAL_END - STEAL_AT_STALL))
phase on yes
[ -n "$STOP_S" ] || fail "with triggers: no pressure stop in the dump (see on-dump.txt)"
on_stop=$(ms "$STOP_S" "$STALL_S") on_writes=$(ms "$WRITE_END_S" "$STALL_S")
on_after=$((STEAL_END - STEAL_AT_STALL))
grep -q 'memory pressure (tasks stalled' /tmp/on-mglrud.log || fail "no stop line in the log"
grep -q 'Pressure stops' /tmp/off-dump.txt && fail "PressureTriggers=no stopped anyway"
log "first stall -> stop: $on_stop ms with triggers; writes went on $off_writes ms without, $on_writes ms with"
assert_le "$on_stop" 1000 "stop within 1 s of the first stall"
pass "stop ${on_stop} ms after the first stall (writes ended after ${on_writes} ms, ${off_writes} ms without triggers); reclaimed after the stall $(mib $((on_after * 4096))) MiB vs $(mib $((off_after * 4096))) MiB"
