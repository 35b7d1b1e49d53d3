# bench-s2 (tests/bench/run-bench.sh, not a meson test): S2, a hot file read at random with pread
# next to 480 MiB streamed once, memcg memory.max 100M, in one guest boot: one fresh cgroup per
# row, caches dropped between rows. Rows: the hot reader alone (base), then for each stream shape
# (big: cold.bin then medium.bin; small: the 1024 x 256K files of small/ then cold.bin; both
# capped at --arg stream=480 MiB and read at --arg rate; grep: a real "grep -r" over /tree, 4096
# files of 8 to 256 KiB, 336 MiB, as fast as it goes) the variants none (kernel alone), noprot
# (Mode=active StreamProtection=no), prot (Mode=active StreamProtection=yes), protcycle (the same
# with StreamFastPath=no: drops at each cycle only), pressure (Mode=pressure, TMO law,
# StreamProtection=no).
# Args: hot (MiB of hot.bin, default 56), stream (MiB, 480), rate (stream MiB/s, 16), period (s
#       between hot bursts, 2), burst (hot reads per burst, 2048), shapes ("big,small,grep"),
#       variants ("none,noprot,prot,pressure"; also protcycle), interval (daemon, 1s), grep_s (s the
#       grep row runs after the delay, 40), log (the daemon's --log-level, info), delay (s from ready to the
#       stream, 20), prefill (0, the default: the hot file warms up through its own random reads
#       during the delay, readahead included, like a cache filled by its users; 1: read it once
#       sequentially before ready, which gives every hot page one extra access and lets MGLRU's
#       tiers protect it on their own: the kernel alone then keeps 99-100%).
# Output: result keys s2_<shape>_<variant>_* (parsed by run-bench.sh), workload and daemon logs.
need_bin file-hot-stream
need_bin mglrud
HOT="${MGLRUD_ARG_hot:-56}" SMAX="${MGLRUD_ARG_stream:-480}" RATE="${MGLRUD_ARG_rate:-16}"
PERIOD="${MGLRUD_ARG_period:-2}" BURST="${MGLRUD_ARG_burst:-2048}" IV="${MGLRUD_ARG_interval:-1s}"
SHAPES="$(echo "${MGLRUD_ARG_shapes:-big,small,grep}" | tr ',' ' ')"
VARIANTS="$(echo "${MGLRUD_ARG_variants:-none,noprot,prot,pressure}" | tr ',' ' ')"
DELAY="${MGLRUD_ARG_delay:-20}"
PREFILL=""; [ "${MGLRUD_ARG_prefill:-0}" = 1 ] || PREFILL="--no-prefill"
DUR=$(( DELAY + SMAX / RATE + 6 ))
GREP_S="${MGLRUD_ARG_grep_s:-40}" # the grep row's run time after the delay
[ -d /data/tree ] || fail "no /data/tree on the data disk (tests/vm/mkdata.sh version 2 makes it)"
mountpoint -q /sys/kernel/tracing 2>/dev/null || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
result s2_params "prefill=${MGLRUD_ARG_prefill:-0},delay=${DELAY}s,hot=${HOT}M,stream=${SMAX}M,rate=${RATE}MiB/s,period=${PERIOD}s,burst=${BURST},duration=${DUR}s,interval=$IV"

DPID="" TPID=""
# start_daemon MODE PROT CG [FAST]: mglrud in the background, logging to /tmp/mglrud-$ROW.log,
# each line after the time it was written (epoch seconds to the microsecond, busybox ts): the
# drops, the cycle's lines and the workload's reports (t= from the row's wl_start) line up.
start_daemon() {
	cat > /tmp/s2.conf <<EOC
[Daemon]
Interval=$IV
StreamFastPath=${4:-yes}

[/$3]
Mode=$1
StreamProtection=$2
EOC
	rm -f /tmp/mglrud-log.fifo; mkfifo /tmp/mglrud-log.fifo
	ts %.s < /tmp/mglrud-log.fifo > "/tmp/mglrud-$ROW.log" &
	TPID=$!
	mglrud --cgroup-root /sys/fs/cgroup --config /tmp/s2.conf --log-level "${MGLRUD_ARG_log:-info}" > /tmp/mglrud-log.fifo 2>&1 &
	DPID=$!
	sleep 1
	kill -0 "$DPID" 2>/dev/null || { cat "/tmp/mglrud-$ROW.log"; fail "mglrud exited early ($ROW)"; }
}

ROW=""
N=0
# row SHAPE(base|big|small) VARIANT(none|noprot|prot|pressure)
row() {
	local shape="$1" v="$2" cg
	N=$((N + 1))
	ROW="$shape-$v"
	cg="bench.slice/s2-$N"
	# The workload's command line (busybox sh: no arrays, the positional parameters instead).
	# shellcheck disable=SC2086
	set -- file-hot-stream --hot /data/hot.bin --hot-size "$HOT" --hot-period "$PERIOD" \
		--hot-burst "$BURST" $PREFILL --stream-delay "$DELAY" --report 1
	case "$shape" in
	base) set -- "$@" --no-stream --duration "$DUR" ;;
	big) set -- "$@" --stream /data/cold.bin --stream /data/medium.bin --stream-max "$SMAX" \
		--stream-rate "$RATE" --duration "$DUR" ;;
	small) set -- "$@" --stream /data/small --stream /data/cold.bin --stream-max "$SMAX" \
		--stream-rate "$RATE" --duration "$DUR" ;;
	grep) set -- "$@" --stream-cmd "grep -r mglrud-no-such-string /data/tree" \
		--duration "$((DELAY + GREP_S))" ;;
	esac
	sync; echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg" 100M
	case "$v" in
	noprot) start_daemon active no "$cg" ;;
	prot) start_daemon active yes "$cg" ;;
	protcycle) start_daemon active yes "$cg" no ;;
	pressure) start_daemon pressure no "$cg" ;;
	esac
	local wl=/tmp/wl-$ROW.log
	local t0
	t0=$(echo | ts %.s)
	cg_run "$cg" "$wl" "$@"
	wait_event "$wl" ready 120 || fail "file-hot-stream did not start ($ROW)"
	local r0 avg
	r0=$(cg_stat "$cg" workingset_refault_file)
	avg_current_while "$cg" "$WL_PID"
	avg=$AVG_CURRENT_MIB
	wait "$WL_PID"
	local drc=none dcpu=-
	if [ -n "$DPID" ]; then
		# The daemon's CPU time over the row (utime + stime, clock ticks of 10 ms).
		dcpu=$(awk '{ print ($14 + $15) * 10 }' "/proc/$DPID/stat" 2>/dev/null)
		kill "$DPID"; wait "$DPID"; drc=$?; DPID=""
		wait "$TPID"; TPID=""
		result_file "mglrud-$ROW.log" "/tmp/mglrud-$ROW.log"
	fi
	local p="s2_${shape}_${v}"
	# Lowest hot residency over the reports from 1 s after the stream started.
	result "${p}_min_resident_pct" "$(awk -v t0=$((DELAY + 1)) '/^event=report / { t = 0; p = -1; for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == "t") t = kv[2]; if (kv[1] == "hot_resident_pct") p = kv[2] }
		if (t >= t0 && p >= 0 && (m == "" || p < m)) m = p } END { print (m == "" ? -1 : m) }' "$wl")"
	result "${p}_start_resident_pct" "$(awk -v t0="$DELAY" '/^event=report / { split($2, a, "="); if (a[2] <= t0) for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == "hot_resident_pct") p = kv[2] } } END { print (p == "" ? -1 : p) }' "$wl")"
	result "${p}_final_resident_pct" "$(event_get "$wl" final hot_resident_pct)"
	result "${p}_p50_us" "$(event_get "$wl" final p50_us)"
	result "${p}_p99_us" "$(event_get "$wl" final p99_us)"
	result "${p}_reads" "$(event_get "$wl" final reads)"
	result "${p}_refaults" "$(( $(cg_stat "$cg" workingset_refault_file) - r0 ))"
	result "${p}_avg_current_mib" "$avg"
	result "${p}_stream_mib" "$(event_get "$wl" final stream_mib)"
	result "${p}_stream_mibs" "$(event_get "$wl" stream_done stream_mibs)"
	result "${p}_drops" "$(cat "/tmp/mglrud-$ROW.log" 2>/dev/null | grep -c "dropped ")"
	result "${p}_stream_s" "$(event_get "$wl" stream_done stream_s)"
	# The fast path's drop latency (ms from the crossing to the end of the drop), median and
	# largest over the drop lines that carry it.
	local lat
	lat=$(sed -n 's/.*dropped .*, \([0-9]*\) ms after the threshold\.$/\1/p' "/tmp/mglrud-$ROW.log" 2>/dev/null | sort -n)
	result "${p}_latency_ms_n" "$(echo "$lat" | grep -c .)"
	result "${p}_latency_ms_p50" "$(echo "$lat" | awk 'NF { a[n++] = $1 } END { print n ? a[int((n - 1) / 2)] : "-" }')"
	result "${p}_latency_ms_max" "$(echo "$lat" | awk 'NF { m = $1 } END { print m == "" ? "-" : m }')"
	result "${p}_wl_start" "${t0% }"
	result "${p}_mglrud_rc" "$drc"
	result "${p}_daemon_cpu_ms" "$dcpu"
	result_file "wl-$ROW.log" "$wl"
	rmdir "$CG_ROOT/$cg" 2>/dev/null || true
}

row base none
for shape in $SHAPES; do
	for v in $VARIANTS; do
		row "$shape" "$v"
	done
done
log "classification log (StreamProtection=yes rows):"
for f in /tmp/mglrud-*-prot.log /tmp/mglrud-*-protcycle.log; do
	[ -f "$f" ] && grep -hE "Stream protection|stream|small files|dropped" "$f" | head -n 20
done
pass "S2 rows done"
