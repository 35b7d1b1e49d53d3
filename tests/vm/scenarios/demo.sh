# demo: two slices with different policies under mglrud; prints a before/after table.
# Args: MGLRUD_ARG_seconds (daemon run time, default 75).
SECS="${MGLRUD_ARG_seconds:-75}"
BATCH="demo.slice/batch"
WEB="demo.slice/web"
cg_create "$BATCH" 400M
cg_create "$WEB" 300M
cg_run "$BATCH" /tmp/batch.log anon-tiers --cold 160 --warm 32 --hot 16 --warm-interval 10 --duration 0 --report 10
B_PID=$WL_PID
cg_run "$WEB" /tmp/web.log file-hot-stream --hot /data/hot.bin --no-stream --duration 0 --report 10
W_PID=$WL_PID
cg_run "$WEB" /tmp/web-anon.log anon-tiers --cold 32 --warm 16 --hot 8 --warm-interval 5 --duration 0 --report 10
wait_event /tmp/batch.log ready 60 || fail "batch workload did not start"
wait_event /tmp/web.log ready 60 || fail "web workload did not start"
wait_event /tmp/web-anon.log ready 60 || fail "web anon workload did not start"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
row() { # label cgroup
	local cg="$2" refa refaf
	refa=$(cg_stat "$cg" workingset_refault_anon)
	refaf=$(cg_stat "$cg" workingset_refault_file)
	printf 'MGLRUD-DEMO: %-7s %-18s %8s %8s %8s %8s %9s %10s %10s\n' "$1" "/$cg" \
		"$(mib "$(cg_read "$cg" memory.current)")" "$(mib "$(cg_stat "$cg" anon)")" \
		"$(mib "$(cg_stat "$cg" file)")" "$(mib "$(cg_read "$cg" memory.swap.current)")" \
		"$((refa + refaf))" "$(awk -v u="$(cg_psi "$cg" some)" 'BEGIN { printf "%.3f", u / 1e6 }')" \
		"$(cg_stat "$cg" pgsteal_proactive)"
	result "$1_$(echo "$cg" | tr '/.' '__')_memory_current" "$(cg_read "$cg" memory.current)"
}
header() {
	printf 'MGLRUD-DEMO: %-7s %-18s %8s %8s %8s %8s %9s %10s %10s\n' when cgroup "mem MiB" "anon" \
		"file" "swapped" "refaults" "psi some s" "pgsteal_pro"
}
sleep 5
{ header; row before "$BATCH"; row before "$WEB"; } | tee /tmp/table-before

if command -v mglrud >/dev/null 2>&1; then
	log "running mglrud (active, /mglrud/demo.conf) for ${SECS}s"
	mglrud --cgroup-root /sys/fs/cgroup --config /mglrud/demo.conf --metrics-file /tmp/mglrud.prom > /tmp/mglrud.log 2>&1 &
	D_PID=$!
	t=0
	while [ $t -lt "$SECS" ] && kill -0 "$D_PID" 2>/dev/null; do
		sleep 15; t=$((t + 15))
		echo "MGLRUD-DEMO: t=${t}s batch $(mib "$(cg_read "$BATCH" memory.current)") MiB, web $(mib "$(cg_read "$WEB" memory.current)") MiB"
	done
	if kill -0 "$D_PID" 2>/dev/null && command -v mglructl >/dev/null 2>&1; then
		# What the operator sees: the daemon's own view over its bus socket.
		mglructl status > /tmp/mglructl-status.txt 2>&1
		mglructl dump > /tmp/mglructl-dump.txt 2>&1
		COLUMNS=120 mglructl top --once > /tmp/mglructl-top.txt 2>&1
		result_file mglructl-top.txt /tmp/mglructl-top.txt
		result_file mglructl-status.txt /tmp/mglructl-status.txt
		result_file mglructl-dump.txt /tmp/mglructl-dump.txt
		[ -e /tmp/mglrud.prom ] && result_file mglrud.prom /tmp/mglrud.prom
	fi
	if kill -0 "$D_PID" 2>/dev/null; then
		kill "$D_PID"; wait "$D_PID"; drc=$?
	else
		wait "$D_PID"; drc=$?
		log "mglrud exited early (rc=$drc)"
	fi
	result_file mglrud.log /tmp/mglrud.log
	result mglrud_rc "$drc"
	DAEMON=ran
else
	log "mglrud not built: showing the workloads alone for ${SECS}s"
	sleep "$SECS"
	DAEMON=missing
fi
{ header; row after "$BATCH"; row after "$WEB"; } | tee /tmp/table-after
if [ "$DAEMON" = ran ]; then
	# What mglrud did, from its own journal-style lines (one per action, measured effect).
	for cg in "$BATCH" "$WEB"; do
		n=$(grep -c "^/$cg: evict asked\|^/$cg: reclaim asked" /tmp/mglrud.log)
		[ "$n" -gt 0 ] && echo "MGLRUD-DEMO: mglrud on /$cg: $n eviction writes; last: $(grep "^/$cg: \(evict\|reclaim\) asked" /tmp/mglrud.log | tail -n 1 | sed -e "s|^/$cg: ||" -e "s| MGLRUD_CGROUP=.*||")"
		adv=$(grep "^/$cg: cold " /tmp/mglrud.log | tail -n 1 | sed "s|^/$cg: ||")
		[ -n "$adv" ] && echo "MGLRUD-DEMO: mglrud advice for /$cg: $adv"
	done
	[ -s /tmp/mglructl-top.txt ] && sed 's/^/MGLRUD-DEMO: /' /tmp/mglructl-top.txt | head -n 12
	[ -s /tmp/mglructl-dump.txt ] && sed 's/^/MGLRUD-DEMO: | /' /tmp/mglructl-dump.txt | head -n 40
fi
echo "MGLRUD-DEMO: batch hot loop: $(event_get /tmp/batch.log report hot_touches_per_s) touches/s; web p99 read: $(event_get /tmp/web.log report p99_us) us"
kill "$B_PID" "$W_PID" 2>/dev/null
result daemon "$DAEMON"
[ "$DAEMON" = ran ] || skip "mglrud not built; table shows the workloads without the daemon"
[ "$drc" = 0 ] || fail "mglrud exited with status $drc (its log: mglrud.log)"
pass "demo done"
