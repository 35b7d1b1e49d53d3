# refault-guard: the refault guard (RefaultGuard=) stops a reclaim job within one chunk once the
# file pages it evicted are read again, with the PSI triggers off so that the guard alone acts.
# A cgroup holds 96 MiB of cold anon memory and a warm file set (/data/hot.bin, 64 MiB, read
# once after mglrud started: its BPF program counts re-reads only of files it saw inserted).
# mglrud, made over-aggressive (Mode=pressure, ReclaimRatio=90%, Swappiness=150), plans one job
# that first evicts the page cache (file-only memory.reclaim writes, milliseconds per 4 MiB
# chunk) and then anon memory into zram (tens of milliseconds per chunk: what makes the job
# last). Once the job has reclaimed 8 MiB (its page-cache part is done by then), the warm set's
# reader starts reading it again in a loop; the evicted pages come back (mglrud's own count,
# the one RefaultCheck= uses). psi-watch --stat workingset_refault_file notes the first refault
# (the shadow entries are intact: the kernel counts these) and pgsteal_proactive then. Asserts
# that the guard loaded, stopped the job after the first refault (log line with reason refault
# burst, dump, mglructl --json dump), and that at most two chunks (the one in flight and the
# next) were reclaimed after the first refault; what the kernel reclaimed over what the whole
# job asked (a few hundred pages: memory.reclaim works in batches) is allowed on top. Args:
# MGLRUD_ARG_baseline=yes then runs the same with RefaultGuard=no and shows the job going on
# (no stop, more chunks after the first refault); MGLRUD_ARG_interval (default 4s).
need_bin mglrud
need_bin mglructl
need_bin psi-watch
IVL="${MGLRUD_ARG_interval:-4s}"
BASELINE="${MGLRUD_ARG_baseline:-no}"
CHUNK_PAGES=1024
ctl() { timeout 30 mglructl "$@"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
mono() { cut -d' ' -f1 /proc/uptime; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (a - b) * 1000 }'; }

# phase NAME GUARD: one run on a fresh cgroup with a fresh daemon; sets AFTER_PAGES (reclaimed
# after the first refault), OVER_PAGES, STOPPED, REREAD_S (uptime when the reader started),
# REFAULT_S (CLOCK_MONOTONIC of the first refault), GUARD_S (of the stop) and STOP_WAIT_S (how
# long after the reader's start the stop showed in the log).
phase() {
	local name="$1" guard="$2" cg="test.slice/rg-$1" conf="/tmp/$1.conf"
	sync; echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg"
	run_anon_tiers "$cg" "/tmp/$name-wl.log" 60 --cold 96 --warm 0 --hot 0 --duration 0 --report 5
	local wl=$WL_PID
	cat > "$conf" <<EOC
[Daemon]
Interval=$IVL
PressureTriggers=no
RefaultGuard=$guard

[/$cg]
Mode=pressure
ReclaimRatio=90%
MaxStep=256M
Swappiness=150
StreamProtection=no
EOC
	mglrud --cgroup-root /sys/fs/cgroup --config "$conf" --log-level debug > "/tmp/$name-mglrud.log" 2>&1 &
	local d=$!
	local i=0
	while ! grep -q "Managing /$cg" "/tmp/$name-mglrud.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "Managing /$cg" "/tmp/$name-mglrud.log" || fail "$name: mglrud did not start: $(head -n 5 "/tmp/$name-mglrud.log")"
	# The warm set, read once now that the BPF program watches insertions.
	cg_run "$cg" "/tmp/$name-warm.log" cat /data/hot.bin
	wait "$WL_PID"
	local steal0
	steal0=$(cg_stat "$cg" pgsteal_proactive)
	log "$name: warm set read at $(mono)s: memory.stat file $(( $(cg_stat "$cg" file) >> 20 )) MiB, anon $(( $(cg_stat "$cg" anon) >> 20 )) MiB"
	# The job begins at the second cycle; wait until 8 MiB are in: a job is then writing.
	i=0
	while [ "$(cg_stat "$cg" pgsteal_proactive)" -lt $((steal0 + 2048)) ] && [ $i -lt 400 ]; do
		sleep 0.05; i=$((i + 1))
	done
	[ "$(cg_stat "$cg" pgsteal_proactive)" -ge $((steal0 + 2048)) ] || fail "$name: no 8 MiB reclaim within 20 s"
	# The re-reads begin when the first evicted page is read again: psi-watch notes the first
	# growth of workingset_refault_file (the shadow entries are intact: the kernel counts these)
	# and pgsteal_proactive at that moment.
	psi-watch --stat workingset_refault_file --poll 2000 --duration 20 "$CG_ROOT/$cg" > "/tmp/$name-rf.log" 2>&1 &
	local pw=$!
	wait_event "/tmp/$name-rf.log" start 10 || fail "$name: psi-watch did not start"
	REREAD_S=$(mono)
	cg_run "$cg" "/tmp/$name-reread.log" sh -c 'while :; do cat /data/hot.bin > /dev/null; sleep 0.2; done'
	local reader=$WL_PID
	wait_event "/tmp/$name-rf.log" stall 10 || fail "$name: no refault counted within 10 s of the re-reads"
	local steal_reread
	steal_reread=$(event_get "/tmp/$name-rf.log" stall pgsteal_proactive)
	REFAULT_S=$(awk -v u="$(event_get "/tmp/$name-rf.log" stall mono_us)" 'BEGIN { printf "%.3f", u / 1e6 }')
	log "$name: reader started at ${REREAD_S}s, first refault at ${REFAULT_S}s, $(( (steal_reread - steal0) >> 8 )) MiB reclaimed by then"
	if [ "$guard" = yes ]; then
		i=0
		while ! grep -q 'refault burst (' "/tmp/$name-mglrud.log" && [ $i -lt 150 ]; do
			sleep 0.1; i=$((i + 1))
		done
		STOP_WAIT_S=$(awk -v a="$(mono)" -v b="$REREAD_S" 'BEGIN { printf "%.2f", a - b }')
	else
		# As long as the guarded run took at most, and the same settling time.
		i=0
		while [ $i -lt "${STOP_WAIT_TENTHS:-50}" ]; do sleep 0.1; i=$((i + 1)); done
	fi
	sleep 3 # the steal counter after the stop: nothing more may come
	local steal_end
	steal_end=$(cg_stat "$cg" pgsteal_proactive)
	AFTER_PAGES=$((steal_end - steal_reread))
	# memory.reclaim may take a little more than a chunk asks (the kernel reclaims in batches):
	# what the whole job got beyond what it asked is the kernel's, not more chunks.
	local asked
	asked=$(sed -n 's/.*refault burst (.* pages back, \([0-9]*\) asked).*/\1/p' "/tmp/$name-mglrud.log" | head -n 1)
	OVER_PAGES=0
	[ -n "$asked" ] && [ $((steal_end - steal0)) -gt "$asked" ] && OVER_PAGES=$((steal_end - steal0 - asked))
	ctl dump > "/tmp/$name-dump.txt" 2>&1 || fail "$name: mglructl dump"
	ctl --json dump > "/tmp/$name-dump.json" 2>&1 || fail "$name: mglructl --json dump"
	kill "$reader" "$pw" 2>/dev/null; wait "$reader" "$pw" 2>/dev/null
	GUARD_S=$(sed -n 's/.*Refault guard stops: .* the last at \([0-9.]*\)s.*/\1/p' "/tmp/$name-dump.txt" | head -n 1)
	kill -TERM "$d"; wait "$d"
	local rc=$?
	kill "$wl" 2>/dev/null; wait "$wl" 2>/dev/null
	assert_eq "$rc" 0 "$name: mglrud exit code on SIGTERM"
	STOPPED=$(grep -c 'refault burst (' "/tmp/$name-mglrud.log")
	local line
	line=$(grep 'refault burst (' "/tmp/$name-mglrud.log" | head -n 1)
	result_file "$name-mglrud.log" "/tmp/$name-mglrud.log"
	result_file "$name-dump.txt" "/tmp/$name-dump.txt"
	result_file "$name-dump.json" "/tmp/$name-dump.json"
	result_file "$name-rf.log" "/tmp/$name-rf.log"
	result "${name}_first_refault_s" "$REFAULT_S"
	result "${name}_guard_stop_s" "${GUARD_S:-none}"
	[ -n "$GUARD_S" ] && result "${name}_stop_after_first_refault_ms" "$(ms "$GUARD_S" "$REFAULT_S")"
	result "${name}_reclaimed_before_first_refault_mib" "$(mib $(( (steal_reread - steal0) * 4096 )))"
	result "${name}_reclaimed_after_first_refault_mib" "$(mib $((AFTER_PAGES * 4096)))"
	result "${name}_reclaimed_after_first_refault_pages" "$AFTER_PAGES"
	result "${name}_refault_stops" "$STOPPED"
	result "${name}_kernel_over_reclaim_pages" "$OVER_PAGES"
	[ -n "$line" ] && log "$name: $line"
	grep 'decision:' "/tmp/$name-mglrud.log" | head -n 2 | while read -r l; do log "$name: $l"; done
	grep 'Refault guard\|Stall guard' "/tmp/$name-dump.txt" | while read -r l; do log "$name: dump: $l"; done
	rmdir "$CG_ROOT/$cg" 2>/dev/null
	return 0
}

t_start=$(mono)
phase on yes
grep -q 'built without BPF' /tmp/on-mglrud.log && skip "built without BPF"
grep -q 'Refault guard: counting' /tmp/on-mglrud.log ||
	fail "the refault guard did not load: $(grep -i 'guard\|stream' /tmp/on-mglrud.log | head -n 3)"
[ "$STOPPED" -ge 1 ] || fail "no refault guard stop (see on-mglrud.log)"
grep -q 'reclaim stall (tasks spent' /tmp/on-mglrud.log && fail "the stall guard stopped the job, not the refault guard"
grep -q 'Refault guard stops: 1,' /tmp/on-dump.txt || fail "no refault guard stop in the dump"
grep -q '"RefaultGuardStops":1' /tmp/on-dump.json || fail "no RefaultGuardStops in mglructl --json dump"
stop_ms=$(ms "$GUARD_S" "$REFAULT_S")
assert_ge "$stop_ms" 0 "the guard stopped after the first refault, not before (a false stop)"
assert_le "$AFTER_PAGES" $((2 * CHUNK_PAGES + OVER_PAGES)) "at most two chunks (+ the kernel's $OVER_PAGES pages over what the job asked) reclaimed after the first refault"
on_after=$AFTER_PAGES on_wait=$STOP_WAIT_S
result on_phase_s "$(awk -v a="$(mono)" -v b="$t_start" 'BEGIN { printf "%.1f", a - b }')"
base=""
if [ "$BASELINE" = yes ]; then
	STOP_WAIT_TENTHS=$(awk -v s="$on_wait" 'BEGIN { printf "%d", s * 10 + 0.5 }')
	phase off no
	grep -q 'Refault guard: counting' /tmp/off-mglrud.log && fail "RefaultGuard=no loaded the guard"
	[ "$STOPPED" -eq 0 ] || fail "RefaultGuard=no stopped anyway"
	assert_gt "$AFTER_PAGES" $((2 * CHUNK_PAGES)) "without the guard the job goes on after the re-reads"
	base=" vs $(mib $((AFTER_PAGES * 4096))) MiB without the guard"
fi
pass "refault guard stop ${stop_ms} ms after the first refault; reclaimed after it $(mib $((on_after * 4096))) MiB$base"
