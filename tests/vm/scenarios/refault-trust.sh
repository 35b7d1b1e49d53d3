# refault-trust: refault counts you can trust (docs/design.md). In a memcg, a warm file set (200
# files of /data/small, 50 MiB) is read, evicted by mglrud (lru_gen eviction: MinColdAge=3s),
# its shadow entries dropped (echo 2 > drop_caches: the shadow-node shrinker of a memcg that has
# next to nothing left keeps almost none), and read again, slowly (10 files every 0.5 s, about
# 10 cycles). The kernel counts few refaults; mglrud's own count (BPF) sees the re-reads. Run
# twice, RefaultCheck=yes then no, each in a fresh memcg with a fresh daemon:
#  - yes: the undercount is logged once (naming the cgroup), the metric says 1, the dump shows
#    both counts, and T rises;
#  - no: the same re-read leaves T where it was (the kernel's few refaults stay under
#    RefaultTarget's minimum of 1 MiB a cycle).
# Prints, per run, the kernel's and mglrud's counts, T before and after the re-read, and what the
# policy evicted again as a "stream" (file inflow without refaults: the re-read set itself).
# Args: MGLRUD_ARG_files (glob under /data/small, default f0[01]*: 200 files).
need_bin mglrud
need_bin mglructl
GLOB="${MGLRUD_ARG_files:-f0[01]*}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mountpoint -q /sys/kernel/tracing 2>/dev/null || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
NFILES=$(ls /data/small/$GLOB | wc -l)
SET_PAGES=$((NFILES * 64))
[ "$NFILES" -ge 64 ] || fail "only $NFILES files match /data/small/$GLOB"

# metric NAME CG: the value of NAME{cgroup="/CG"...} in the daemon's metrics file ("" if none).
metric() {
	awk -v k="$1{cgroup=\"/$2\"" 'index($0, k) == 1 { v = $NF } END { print v }' /tmp/mglrud.prom 2>/dev/null
}
# wait_cycle: waits (at most 10 s) until the daemon has run another cycle.
wait_cycle() {
	local c0 i=0
	c0=$(awk '$1 == "mglrud_cycles_total" { print $2 }' /tmp/mglrud.prom 2>/dev/null)
	while [ $i -lt 50 ]; do
		sleep 0.2
		[ "$(awk '$1 == "mglrud_cycles_total" { print $2 }' /tmp/mglrud.prom 2>/dev/null)" != "$c0" ] && return 0
		i=$((i + 1))
	done
	return 1
}

ROWS=""
# run CHECK(yes|no)
run() {
	local check="$1" cg="test.slice/rt-$1" rundir="/run/mglrud-$1"
	sync; echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg"
	cat > /tmp/rt.conf <<EOC
[Daemon]
Interval=1s
RefaultCheck=$check

[/$cg]
Mode=active
MinColdAge=3s
MaxColdAge=60s
StreamProtection=no
EOC
	rm -f /tmp/mglrud.prom
	mglrud --cgroup-root /sys/fs/cgroup --config /tmp/rt.conf --runtime-dir "$rundir" \
		--metrics-file /tmp/mglrud.prom --log-level info > "/tmp/mglrud-$check.log" 2>&1 &
	D_PID=$!
	local i=0
	while [ ! -s /tmp/mglrud.prom ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	kill -0 "$D_PID" 2>/dev/null || { cat "/tmp/mglrud-$check.log"; fail "mglrud exited early ($check)"; }
	grep -q "tracking page-cache insertions" "/tmp/mglrud-$check.log" ||
		fail "the BPF program did not load ($check): $(grep -i "stream\|refault" "/tmp/mglrud-$check.log" | head -n 3)"

	# The inodes and dentries are made outside the memcg: its slab, which the shadow-node
	# budget counts with its LRU pages, stays small.
	ls -l /data/small/$GLOB > /dev/null
	cg_run "$cg" /tmp/read0.log sh -c "cat /data/small/$GLOB > /dev/null"
	wait "$WL_PID"
	local file0
	file0=$(cg_stat "$cg" file)
	log "$check: warm set read: $NFILES files, memory.stat file $((file0 >> 20)) MiB"

	# mglrud evicts it once it has been idle for T.
	local t0 file
	t0=$(date +%s)
	while :; do
		sleep 1
		file=$(cg_stat "$cg" file)
		[ "$file" -le $((file0 / 20)) ] && break
		[ $(( $(date +%s) - t0 )) -lt 120 ] || fail "mglrud did not evict the warm set within 120 s ($check): file $file"
	done
	log "$check: evicted by mglrud after $(( $(date +%s) - t0 )) s: file $((file >> 10)) KiB, pgsteal_proactive $(cg_stat "$cg" pgsteal_proactive)"
	# memcg statistics are flushed every 2 s: the shrinker must see the memcg nearly empty.
	sleep 3
	local nr0 nr1
	nr0=$(cg_stat "$cg" workingset_nodereclaim)
	echo 2 > /proc/sys/vm/drop_caches
	nr1=$(cg_stat "$cg" workingset_nodereclaim)
	log "$check: echo 2 > drop_caches: workingset_nodereclaim $nr0 -> $nr1"
	wait_cycle
	local k0 o0 tb
	k0=$(cg_stat "$cg" workingset_refault_file)
	o0=$(metric mglrud_refaults_own_pages_total "$cg")
	tb=$(metric mglrud_cold_age_threshold_seconds "$cg")

	# The re-read, 10 files every 0.5 s.
	cg_run "$cg" /tmp/read1.log sh -c "n=0; for f in /data/small/$GLOB; do cat \"\$f\" > /dev/null; n=\$((n + 1)); [ \$((n % 10)) -eq 0 ] && sleep 0.5; done"
	wait "$WL_PID"
	wait_cycle; wait_cycle; wait_cycle
	local k1 o1 ta under
	k1=$(cg_stat "$cg" workingset_refault_file)
	o1=$(metric mglrud_refaults_own_pages_total "$cg")
	ta=$(metric mglrud_cold_age_threshold_seconds "$cg")
	under=$(metric mglrud_refault_undercount "$cg")
	timeout 30 mglructl --runtime-dir "$rundir" dump > "/tmp/dump-$check.txt" 2>&1
	timeout 30 mglructl --runtime-dir "$rundir" --json dump > "/tmp/dump-$check.json" 2>&1
	kill "$D_PID"; wait "$D_PID"
	local rc=$?
	assert_eq "$rc" 0 "mglrud exit code on SIGTERM ($check)"

	local kernel=$((k1 - k0)) own=$((${o1:-0} - ${o0:-0})) stream
	stream=$(awk '/MGLRUD_REASON=stream/ { for (i = 1; i <= NF; i++) if ($i ~ /^MGLRUD_BYTES_GOT=/) { sub(/.*=/, "", $i); b += $i } } END { print int(b / 1048576) }' "/tmp/mglrud-$check.log")
	log "$check: re-read $SET_PAGES pages: kernel workingset_refault_file +$kernel, mglrud own count +$own, T ${tb}s -> ${ta}s, undercount metric ${under:-?}, evicted again as a stream ${stream} MiB"
	ROWS="$ROWS$(printf '%-6s %9s %9s %8s %10s %10s %7s %10s' "$check" "$SET_PAGES" "$kernel" "$own" "$tb" "$ta" "${under:--}" "$stream")\n"
	result "${check}_stream_evicted_mib" "$stream"
	result "${check}_set_pages" "$SET_PAGES"
	result "${check}_nodereclaim" "$((nr1 - nr0))"
	result "${check}_kernel_refaults" "$kernel"
	result "${check}_own_refaults" "$own"
	result "${check}_t_before_s" "$tb"
	result "${check}_t_after_s" "$ta"
	result "${check}_undercount" "${under:-}"
	result_file "mglrud-$check.log" "/tmp/mglrud-$check.log"
	result_file "dump-$check.txt" "/tmp/dump-$check.txt"
	result_file "dump-$check.json" "/tmp/dump-$check.json"
	eval "KERNEL_$check=$kernel OWN_$check=$own TB_$check=$tb TA_$check=$ta UNDER_$check=${under:-}"
}

run yes
run no

log "refault trust: $NFILES files of /data/small ($SET_PAGES pages) read, evicted by mglrud, shadow entries dropped, read again:"
printf '%-6s %9s %9s %8s %10s %10s %7s %10s\n' check set_pages kernel mglrud T_before_s T_after_s under stream_MiB
printf "$ROWS"
log "undercount log line (RefaultCheck=yes):"
grep "undercounts refaults" /tmp/mglrud-yes.log
grep "File refaults" /tmp/dump-yes.txt

# The kernel counted few of the re-reads, mglrud most of them.
assert_le "$((KERNEL_yes * 4))" "$SET_PAGES" "kernel refaults after the shadow entries were dropped (yes)"
assert_ge "$((OWN_yes * 10))" "$((SET_PAGES * 9))" "mglrud's own count of the re-reads (yes)"
# Said once, naming the cgroup; the metric and the dump say it too.
assert_eq "$(grep -c "undercounts refaults" /tmp/mglrud-yes.log)" 1 "undercount log lines (yes)"
grep -q "^/test.slice/rt-yes: the kernel undercounts refaults\|/test.slice/rt-yes: the kernel undercounts refaults" /tmp/mglrud-yes.log ||
	fail "the undercount line does not name the cgroup"
assert_eq "$UNDER_yes" 1 "mglrud_refault_undercount (yes)"
grep -q "kernel undercounts (own-count)" /tmp/dump-yes.txt || fail "no undercount in mglructl dump"
grep -q '"RefaultUndercount":true' /tmp/dump-yes.json || fail "no RefaultUndercount in mglructl --json dump"
# T rose with the feature, and did not without it.
ta=$(echo "$TA_yes" | cut -d. -f1) tb=$(echo "$TB_yes" | cut -d. -f1)
assert_gt "$ta" "$tb" "T after the re-read with RefaultCheck=yes"
ta=$(echo "$TA_no" | cut -d. -f1) tb=$(echo "$TB_no" | cut -d. -f1)
assert_le "$ta" "$tb" "T after the re-read with RefaultCheck=no"
assert_eq "$(grep -c "undercounts refaults" /tmp/mglrud-no.log)" 0 "undercount log lines (no)"
assert_le "$((KERNEL_no * 4))" "$SET_PAGES" "kernel refaults after the shadow entries were dropped (no)"
pass "kernel counted $KERNEL_yes of $SET_PAGES re-read pages, mglrud $OWN_yes; T ${TB_yes}s -> ${TA_yes}s (RefaultCheck=no: ${TB_no}s -> ${TA_no}s)"
