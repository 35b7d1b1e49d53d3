# stream-protect: one-shot stream protection with BPF. A hot file read at random with pread next
# to a stream read once, in a memcg with memory.max 100M; three runs per stream shape (no daemon,
# mglrud with StreamProtection=no, mglrud with StreamProtection=yes), each in a fresh cgroup
# after dropping the caches. Asserts that with protection the hot file stays resident (lowest
# residency during the stream >= 90%) and the file refaults fall strongly against the kernel
# alone. Then the opposite case: a file larger than memory.max re-read in a loop must not be
# dropped. Prints a table and the classification log.
# The protected runs use the default Interval=10s: within a 12-14 s run only the fast path can
# drop in time (a cycle at the start, the next 10 s later), and each drop line says how long
# after the file crossed a stream threshold it finished: the median must be at most 250 ms (the
# target of issue 15); for the big stream also the largest, at most 1 s (a cycle takes 10). The
# small files are read at about 590 a second, within the 1,024 a second stream protection drops
# at most; their largest is not asserted (the first drop waits for 8 MiB of them).
need_bin mglrud
need_bin file-hot-stream

RATE=${STREAM_RATE:-0}       # MiB/s, 0: as fast as the disk goes
PROT_INTERVAL=${PROT_INTERVAL:-10s}
SHAPES=${SHAPES:-big small}
MODES=${MODES:-none noprot prot}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mountpoint -q /sys/kernel/tracing 2>/dev/null || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

# start_daemon no|yes CGROUP_GLOB: mglrud in the background, logging to /tmp/mglrud-$N.log
# (Interval=1s without protection, PROT_INTERVAL with it).
start_daemon() {
	local iv=1s
	[ "$1" = yes ] && iv=$PROT_INTERVAL
	cat > /tmp/sp.conf <<EOC
[Daemon]
Interval=$iv

[$2]
StreamProtection=$1
EOC
	DLOG=/tmp/mglrud-$RUN.log
	mglrud --cgroup-root /sys/fs/cgroup --config /tmp/sp.conf --log-level info > "$DLOG" 2>&1 &
	DPID=$!
	sleep 1
	kill -0 "$DPID" 2>/dev/null || { cat "$DLOG"; fail "mglrud exited early"; }
}

stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill "$DPID" 2>/dev/null
	wait "$DPID"
	local rc=$?
	DPID=
	assert_eq "$rc" 0 "mglrud exit code on SIGTERM ($RUN)"
}

RUN=0
# run_hot MODE(none|noprot|prot) SHAPE(big|small): one run; appends a table row.
run_hot() {
	local mode="$1" shape="$2" stream dur cg
	RUN=$((RUN + 1))
	cg="test.slice/s$RUN"
	case "$shape" in
	big) stream=/data/cold.bin; dur=14 ;;
	small) stream=/data/small; dur=12 ;;
	esac
	sync; echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg" 100M
	case "$mode" in
	noprot) start_daemon no "/test.slice/s$RUN" ;;
	prot) start_daemon yes "/test.slice/s$RUN" ;;
	esac
	local wl=/tmp/wl-$RUN.log
	cg_run "$cg" "$wl" file-hot-stream --hot /data/hot.bin --stream "$stream" --stream-rate "$RATE" \
		--stream-delay 2 --duration "$dur" --report 1
	wait_event "$wl" ready 60 || fail "file-hot-stream did not start ($mode $shape)"
	local r0 peak=0 avg
	r0=$(cg_stat "$cg" workingset_refault_file)
	avg_current_while "$cg" "$WL_PID"
	avg=$AVG_CURRENT_MIB
	wait "$WL_PID"
	stop_daemon
	local refaults=$(( $(cg_stat "$cg" workingset_refault_file) - r0 ))
	# Lowest hot residency over the reports after the stream started (t > 2 s after ready).
	local minres final p50 fp50
	minres=$(awk '/^event=report / { t = 0; p = -1; for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == "t") t = kv[2]; if (kv[1] == "hot_resident_pct") p = kv[2] }
		if (t >= 3 && p >= 0 && (m == "" || p < m)) m = p } END { print (m == "" ? -1 : m) }' "$wl")
	final=$(event_get "$wl" final hot_resident_pct)
	fp50=$(event_get "$wl" final p50_us)
	local dropped lat lat_n=0 lat_p50=- lat_max=-
	dropped=$(grep -c "dropped " "/tmp/mglrud-$RUN.log" 2>/dev/null || true)
	# The fast path's latencies (ms from the crossing to the end of the drop), sorted.
	lat=$(sed -n 's/.*dropped .*, \([0-9]*\) ms after the threshold\.$/\1/p' "/tmp/mglrud-$RUN.log" 2>/dev/null | sort -n)
	if [ -n "$lat" ]; then
		lat_n=$(echo "$lat" | wc -l)
		lat_p50=$(echo "$lat" | sed -n "$(( (lat_n + 1) / 2 ))p")
		lat_max=$(echo "$lat" | tail -n 1)
	fi
	ROWS="$ROWS$(printf '%-7s %-6s %8s %8s %9s %8s %7s %6s %11s' "$shape" "$mode" "$minres" "$final" \
		"$refaults" "$avg" "$fp50" "${dropped:-0}" "$lat_n/$lat_p50/$lat_max")\n"
	result "${shape}_${mode}_min_resident_pct" "$minres"
	result "${shape}_${mode}_refaults" "$refaults"
	result "${shape}_${mode}_avg_current_mib" "$avg"
	result "${shape}_${mode}_p50_us" "$fp50"
	result "${shape}_${mode}_latency_ms" "n=$lat_n p50=$lat_p50 max=$lat_max"
	eval "MINRES_${shape}_${mode}=\${minres%.*}"
	eval "REFAULTS_${shape}_${mode}=$refaults"
	eval "CURRENT_${shape}_${mode}=$avg"
	eval "DROPS_${shape}_${mode}=${dropped:-0}"
	eval "LATN_${shape}_${mode}=$lat_n LATP50_${shape}_${mode}=$lat_p50 LATMAX_${shape}_${mode}=$lat_max"
	[ -f "/tmp/mglrud-$RUN.log" ] && result_file "mglrud-$shape-$mode.log" "/tmp/mglrud-$RUN.log"
	result_file "wl-$shape-$mode.log" "$wl"
}

# run_reread MODE(none|prot): medium.bin (128M, more than memory.max) read in a loop for 12 s.
run_reread() {
	local mode="$1" cg
	RUN=$((RUN + 1))
	cg="test.slice/s$RUN"
	sync; echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg" 100M
	[ "$mode" = prot ] && start_daemon yes "/test.slice/s$RUN"
	local r0
	r0=$(cg_stat "$cg" workingset_refault_file)
	cg_run "$cg" /tmp/reread-$RUN.log sh -c \
		'n=0; while :; do cat /data/medium.bin > /dev/null; n=$((n + 1)); echo "pass=$n"; done'
	sleep 12
	echo 1 > "$CG_ROOT/$cg/cgroup.kill"; wait "$WL_PID" 2>/dev/null
	result "reread_${mode}_passes" "$(tail -n 1 /tmp/reread-$RUN.log)"
	stop_daemon
	local refaults=$(( $(cg_stat "$cg" workingset_refault_file) - r0 ))
	local dropped
	dropped=$(grep -c "dropped .*medium.bin" "/tmp/mglrud-$RUN.log" 2>/dev/null || true)
	ROWS="$ROWS$(printf '%-7s %-6s %8s %8s %9s %8s %7s %6s %11s' reread "$mode" - - "$refaults" - - "${dropped:-0}" -)\n"
	result "reread_${mode}_refaults" "$refaults"
	result "reread_${mode}_drops" "${dropped:-0}"
	eval "REFAULTS_reread_${mode}=$refaults"
	eval "DROPS_reread_${mode}=${dropped:-0}"
	[ -f "/tmp/mglrud-$RUN.log" ] && result_file "mglrud-reread-$mode.log" "/tmp/mglrud-$RUN.log"
}

ROWS=""
for shape in $SHAPES; do
	for mode in $MODES; do
		run_hot "$mode" "$shape"
	done
done
run_reread none
run_reread prot

log "stream protection, memory.max 100M, hot /data/hot.bin 64M, stream rate cap ${RATE} MiB/s (0: none):"
printf '%-7s %-6s %8s %8s %9s %8s %7s %6s %11s\n' shape daemon minres% final% refaults avgcurM p50us drops lat:n/p50/max
printf "$ROWS"
log "classification log (mglrud with StreamProtection=yes):"
for f in /tmp/mglrud-*.log; do
	grep -hE "Stream protection|stream|small files" "$f" | grep -v "^$" | head -n 12
done

cat /tmp/mglrud-*.log | grep -q "Stream protection: tracking" ||
	fail "the BPF program did not load: $(cat /tmp/mglrud-*.log | grep "Stream protection" | head -n 1)"
for shape in $SHAPES; do
	eval "minres=\$MINRES_${shape}_prot rp=\$REFAULTS_${shape}_prot rn=\$REFAULTS_${shape}_none"
	eval "cp=\$CURRENT_${shape}_prot cn=\$CURRENT_${shape}_none drops=\$DROPS_${shape}_prot"
	assert_gt "$drops" 0 "the $shape stream must be classified and dropped"
	assert_ge "$minres" 90 "hot residency with protection ($shape stream)"
	# The kernel alone may keep the hot set here (then it has next to no refaults to cut):
	# cut them at least 4x when there are some (10 MiB), never add more than 1 MiB.
	if [ "$rn" -ge 2560 ]; then
		assert_le "$((rp * 4))" "$rn" "file refaults with protection vs kernel alone ($shape)"
	else
		assert_le "$rp" "$((rn + 256))" "file refaults with protection vs kernel alone ($shape)"
	fi
	assert_le "$cp" "$((cn + 4))" "average memory.current (MiB) with protection vs kernel alone ($shape)"
	eval "ln=\$LATN_${shape}_prot lp=\$LATP50_${shape}_prot lm=\$LATMAX_${shape}_prot"
	assert_gt "$ln" 0 "drops by the fast path, with their latency ($shape stream)"
	assert_le "$lp" 250 "median ms from crossing to drop ($shape stream)"
	[ "$shape" = small ] || assert_le "$lm" 1000 "largest ms from crossing to drop ($shape stream)"
done
assert_eq "$DROPS_reread_prot" 0 "a file re-read in a loop must not be dropped"
grep -q "medium.bin: not a stream" /tmp/mglrud-*.log || fail "no classification line for medium.bin"
assert_le "$((REFAULTS_reread_prot * 100))" "$((REFAULTS_reread_none * 115))" "re-read refaults with mglrud"
pass "hot residency kept, stream refaults cut, re-read file left alone"
