# stream-unmanaged: the stream-protection BPF program counts page-cache insertions only in the
# cgroups mglrud manages with stream protection on (issue 20). One managed cgroup with
# StreamProtection=yes reads 100 files; then ROUNDS (20) unmanaged cgroups each read the first
# byte of all 1,024 files of /data/small after dropping the caches (without the filter: 1,024
# map entries a round, the 16,384-entry map full after 16). Asserts that the map holds the managed
# files (the control: the filter lets them through) and stays near that after the unmanaged
# rounds (mglrud_stream_map_files), and that a daemon loaded for RefaultCheck= alone, with
# StreamProtection=no everywhere, does not say that it drops streams.
need_bin mglrud

ROUNDS=${MGLRUD_ARG_ROUNDS:-20} # run-scenario --arg ROUNDS=N
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

# metric NAME: the value of NAME (no labels) in the daemon's metrics file ("" if none).
metric() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' /tmp/mglrud.prom 2>/dev/null; }
# wait_cycles N: waits (at most 10 s each) until the daemon has run N more cycles.
wait_cycles() {
	local n=$1 c0 i
	while [ "$n" -gt 0 ]; do
		c0=$(metric mglrud_cycles_total) i=0
		while [ "$(metric mglrud_cycles_total)" = "$c0" ]; do
			sleep 0.2; i=$((i + 1))
			[ $i -lt 50 ] || fail "no cycle within 10 s"
		done
		n=$((n - 1))
	done
}
# start_daemon LOG: mglrud with /tmp/su.conf, metrics in /tmp/mglrud.prom.
start_daemon() {
	rm -f /tmp/mglrud.prom
	DLOG=$1
	mglrud --cgroup-root /sys/fs/cgroup --config /tmp/su.conf --metrics-file /tmp/mglrud.prom \
		--log-level info > "$DLOG" 2>&1 &
	DPID=$!
	local i=0
	while [ ! -s /tmp/mglrud.prom ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	kill -0 "$DPID" 2>/dev/null || { cat "$DLOG"; fail "mglrud exited early"; }
}
stop_daemon() {
	kill "$DPID"; wait "$DPID"
	assert_eq "$?" 0 "mglrud exit code on SIGTERM"
}

cg_create test.slice/managed
i=1
while [ $i -le "$ROUNDS" ]; do cg_create "test.slice/other-$i"; i=$((i + 1)); done
cat > /tmp/su.conf <<EOC
[Daemon]
Interval=1s
RefaultCheck=no
RefaultGuard=no

[/test.slice/managed]
StreamProtection=yes
EOC
start_daemon /tmp/mglrud-prot.log
grep -q "Stream protection: tracking page-cache insertions with BPF, dropping streams" /tmp/mglrud-prot.log ||
	fail "the BPF program did not load: $(grep -i "stream" /tmp/mglrud-prot.log | head -n 2)"

sync; echo 3 > /proc/sys/vm/drop_caches
cg_run test.slice/managed /tmp/managed.log sh -c 'for f in /data/small/f00[0-9][0-9]; do cat "$f" > /dev/null; done'
wait "$WL_PID"
wait_cycles 2
managed=$(metric mglrud_stream_map_files)
counted=$(metric mglrud_stream_counted_cgroup_ids)
log "managed cgroup read 100 files: map $managed files, insertions counted in $counted cgroup ids"
result managed_map_files "$managed"
result counted_cgroup_ids "$counted"
assert_eq "$counted" 1 "cgroup ids whose insertions are counted (the managed one)"
assert_ge "$managed" 100 "map files after the managed cgroup read 100 files"

t0=$(date +%s)
i=1
while [ $i -le "$ROUNDS" ]; do
	echo 3 > /proc/sys/vm/drop_caches
	cg_run "test.slice/other-$i" /tmp/other.log head -q -c 1 /data/small/*
	wait "$WL_PID" || fail "reading /data/small in test.slice/other-$i: $(head -c 300 /tmp/other.log)"
	i=$((i + 1))
done
wait_cycles 2
after=$(metric mglrud_stream_map_files)
log "$ROUNDS unmanaged cgroups read 1,024 files each in $(( $(date +%s) - t0 )) s: map $after files (was $managed)"
result unmanaged_rounds "$ROUNDS"
result map_files_after_unmanaged "$after"
stop_daemon
result_file mglrud-prot.log /tmp/mglrud-prot.log
assert_le "$after" "$((managed + 64))" "map files after $ROUNDS unmanaged cgroups read 1,024 files each"

# Loaded for the own refault count only: it must not claim to drop streams.
cat > /tmp/su.conf <<EOC
[Daemon]
Interval=1s
RefaultCheck=yes

[Defaults]
StreamProtection=no

[/test.slice/managed]
Mode=active
EOC
start_daemon /tmp/mglrud-noprot.log
wait_cycles 1
stop_daemon
result_file mglrud-noprot.log /tmp/mglrud-noprot.log
line=$(grep -m1 "tracking page-cache insertions" /tmp/mglrud-noprot.log)
log "StreamProtection=no, RefaultCheck=yes: $line"
[ -n "$line" ] || fail "the BPF program did not load for RefaultCheck=: $(grep -i "stream\|refault" /tmp/mglrud-noprot.log | head -n 2)"
grep -qi "dropping streams" /tmp/mglrud-noprot.log && fail "says it drops streams with StreamProtection=no: $line"
pass "map $managed -> $after files after $ROUNDS unmanaged rounds; no stream claim with StreamProtection=no"
