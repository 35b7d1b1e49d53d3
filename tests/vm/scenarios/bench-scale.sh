# bench-scale: mglrud's cost per cycle and its memory on the real 7.3 kernel, next to readers of
# the same kernel files measured in the same run (tests/bench/run-scale.sh --vm prints the table):
#  1. real cgroups: COUNT cgroups under /swarm.slice, each holding a small process (cgroup-swarm,
#     ALLOC KiB each), mglrud --dry-run managing them (Interval=1s, defaults) under cycle-meter,
#     then scale-reader keep (open once, pread each cycle: the floor) and reopen (open, read,
#     close each cycle: the peers), ROUNDS times interleaved;
#  2. how many reads a pass over lru_gen_full takes with a 64 KiB and a 16 MiB buffer;
#  3. a fixture tree of FIXTURE cgroups in tmpfs (mkscale-tree, the host's tree), the same three
#     runs: the host cannot give 10,000 cgroups their descriptors, the guest's root can.
# Under TCG only ratios measured side by side mean anything (docs: tests/bench/RESULTS.md).
# Args: count (1000), alloc (256), rounds (3), cycles (15), fixture (10000; 0 skips it).
need_bin mglrud
need_bin cgroup-swarm
need_bin cycle-meter
need_bin scale-reader
need_bin mkscale-tree
COUNT="${MGLRUD_ARG_count:-1000}"
ALLOC="${MGLRUD_ARG_alloc:-256}"
ROUNDS="${MGLRUD_ARG_rounds:-3}"
CYCLES="${MGLRUD_ARG_cycles:-15}"
FIXTURE="${MGLRUD_ARG_fixture:-10000}"
ulimit -n 1048576 || fail "cannot raise RLIMIT_NOFILE"
result nofile "$(ulimit -n)"

# One round: the daemon, then both readers, on cgroup root $2 (debugfs $3, proc $4), files
# tagged $1; $5 is the readers' --match.
round() {
	tag=$1 cgroot=$2 dbg=$3 proc=$4 match=$5 conf=$6 r=$7
	mkdir -p /run/m
	cycle-meter --cycles "$CYCLES" --skip 3 --timeout 1800 -- mglrud --dry-run --config "$conf" \
		--cgroup-root "$cgroot" --debugfs-root "$dbg" --proc-root "$proc" --runtime-dir /run/m \
		> "/tmp/$tag-daemon-$r.txt" 2> "/tmp/$tag-daemon-$r.log" || log "$tag daemon round $r: cycle-meter failed"
	result_file "$tag-daemon-$r.txt" "/tmp/$tag-daemon-$r.txt"
	grep -E '^(warning|error):' "/tmp/$tag-daemon-$r.log" | head -n 5 > "/tmp/$tag-daemon-$r.warn"
	result_file "$tag-daemon-$r.warn" "/tmp/$tag-daemon-$r.warn"
	for mode in keep reopen; do
		scale-reader --mode "$mode" --cgroup-root "$cgroot" --debugfs-root "$dbg" --proc-root "$proc" \
			--match "$match" --cycles 10 --interval-ms 1000 --skip 1 > "/tmp/$tag-$mode-$r.txt" 2>&1
		result_file "$tag-$mode-$r.txt" "/tmp/$tag-$mode-$r.txt"
	done
	log "$tag round $r: $(tail -n 1 "/tmp/$tag-daemon-$r.txt"); $(tail -n 1 "/tmp/$tag-keep-$r.txt")"
}

# --- 1. real cgroups
t0=$(date +%s)
cgroup-swarm --root "$CG_ROOT/swarm.slice" --count "$COUNT" --alloc-kib "$ALLOC" hold > /tmp/swarm.log 2>&1 &
SWARM=$!
wait_event /tmp/swarm.log ready 900 || fail "cgroup-swarm did not start $COUNT cgroups"
result swarm_setup_s "$(( $(date +%s) - t0 ))"
result swarm_cgroups "$(event_get /tmp/swarm.log ready cgroups)"
result lru_gen_full_bytes "$(wc -c < /sys/kernel/debug/lru_gen_full)"
result lru_gen_memcgs "$(grep -c '^memcg' /sys/kernel/debug/lru_gen_full)"
result mem_available_kib "$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)"
cat > /tmp/real.conf <<EOC
[Daemon]
Interval=1s

[/swarm.slice/*]
Mode=active
EOC
for r in $(seq 1 "$ROUNDS"); do
	round real "$CG_ROOT" /sys/kernel/debug /proc '/swarm.slice/*' /tmp/real.conf "$r"
done

# --- 2. reads per pass over lru_gen_full
for chunk in 65536 16777216; do
	scale-reader --mode lrugen --chunk "$chunk" --cgroup-root "$CG_ROOT" --debugfs-root /sys/kernel/debug \
		--proc-root /proc --cycles 5 --interval-ms 200 > "/tmp/lrugen-$chunk.txt" 2>&1
	result_file "lrugen-$chunk.txt" "/tmp/lrugen-$chunk.txt"
done

kill -TERM "$SWARM"
wait "$SWARM"
result swarm_rc "$?"
result_file swarm.log /tmp/swarm.log

# --- 3. the fixture tree
if [ "$FIXTURE" -gt 0 ]; then
	t0=$(date +%s)
	mkscale-tree --capture /mglrud/fixtures/kernel-7.3 --out /tmp/f --cgroups "$FIXTURE" ||
		fail "mkscale-tree failed"
	result fixture_setup_s "$(( $(date +%s) - t0 ))"
	for r in $(seq 1 "$ROUNDS"); do
		round fixture /tmp/f/cgroup /tmp/f/debugfs /tmp/f/proc '/scale.slice/*/*' /tmp/f/mglrud.conf "$r"
	done
fi
pass "measured $COUNT real cgroups$([ "$FIXTURE" -gt 0 ] && echo " and a fixture of $FIXTURE")"
