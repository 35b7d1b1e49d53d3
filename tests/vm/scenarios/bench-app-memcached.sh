# bench-app-memcached (issue 24, part 2): a real cache server under a skewed client. memcached
# from Debian 12 (the apps root image, tests/vm/mkrootfs.sh --apps) in its own systemd service
# (bench.slice/memcached-bench.service, one worker thread, pinned to CPU 0), tests/bench/mc-zipf
# on CPU 1 filling it with 280,000 values of 1000 bytes in a random order (~317 MiB: the popular
# keys lie scattered over the slab pages), then gets of Zipf(0.99) keys for `duration` seconds,
# 16 written at once (depth: a busy server's many clients; one at a time, TCG's cross-CPU
# wake-ups hold it to ~300 gets/s). One variant per boot:
#   none    the kernel alone (limit=1, the default here: tests/bench/idle-limit on memcached from
#           the start of the timed phase, idle for 20/60/120 s; it clears the accessed bits once)
#   active  mglrud from the package, Mode=active on the service, MinColdAge/MaxColdAge
#   walks   no controller: the scenario writes an ageing command for memcached's memcg every
#           walk_every seconds (default 15), as mglrud does ("+ ID 0 MAX_SEQ") in the first half
#           of the run and with the 4th and 5th fields given ("+ ID 0 MAX_SEQ 100 1":
#           swappiness 100, force_scan 1) in the second; lru_gen_full after each walk goes to
#           lru_gen_full.series and the walks' page tables looked at (F) and PTEs found young (Y)
#           per walk to the result keys app_walk_*
#   damon   the kernel's DAMON_RECLAIM: DAMON_STAT off first (or enabling fails with EIO),
#           min_age = minage, watermarks opened (high 1000, mid 999, low 0: it runs at any free
#           memory), the rest its defaults (the whole physical address space, quota 10 ms or
#           128 MiB per second); kdamond_pid must be set
# run-scenario: --root-disk=apps
# Args: variant=none|active|damon, duration (s, default 240), keys (default 280000), value (bytes,
#       default 1000), zipf (default 0.99), interval (daemon, default 2s), mincold/maxcold
#       (active, default 20s/2min), minage (damon, s, default 30), limit (0|1, default 1 for none),
#       at (idle-limit offsets, default 20,60,120), depth (default 16), lrugen_caps (written to
#       /sys/kernel/mm/lru_gen/enabled before the run, e.g. 0x0003: the ageing walk then looks
#       at every PTE table instead of skipping those whose non-leaf PMD entry was not accessed;
#       default: the kernel's, 0x0007), visitor (ms, default off: a shell on memcached's CPU
#       that wakes every visitor ms; each switch between it and memcached loads another page
#       table, which flushes that CPU's TLB: accesses set the PTEs' accessed bits again that a
#       still-cached translation would not), lrugen_dump (0|1, default 0: memcached's memcg
#       section of lru_gen_full every 10 s into lru_gen_full.series, with the walks' counts of
#       page table entries looked at (T) and found young (Y) under the youngest generation).
# Output: result keys app_* (parsed by tests/bench/run-bench.sh app-memcached), the client's log,
# a 5 s series, the daemon's log or DAMON's parameters, idle-limit's output.
DEB=/mglrud/mglrud.deb
V="${MGLRUD_ARG_variant:-none}"
DUR="${MGLRUD_ARG_duration:-240}"
KEYS="${MGLRUD_ARG_keys:-280000}" VSIZE="${MGLRUD_ARG_value:-1000}" ZIPF="${MGLRUD_ARG_zipf:-0.99}"
IV="${MGLRUD_ARG_interval:-2s}"
MINC="${MGLRUD_ARG_mincold:-20s}" MAXC="${MGLRUD_ARG_maxcold:-2min}"
MINAGE="${MGLRUD_ARG_minage:-30}"
AT="${MGLRUD_ARG_at:-20,60,120}"
DEPTH="${MGLRUD_ARG_depth:-16}"
LIMIT="${MGLRUD_ARG_limit:-}"
CAPS="${MGLRUD_ARG_lrugen_caps:-}"
VISITOR="${MGLRUD_ARG_visitor:-}"
LRUGEN_DUMP="${MGLRUD_ARG_lrugen_dump:-0}"
WALK_EVERY="${MGLRUD_ARG_walk_every:-15}"
[ -n "$LIMIT" ] || { [ "$V" = none ] && LIMIT=1 || LIMIT=0; }
UNIT=memcached-bench.service
CG="bench.slice/$UNIT"
DAMON=/sys/module/damon_reclaim/parameters
case "$V" in none|active|damon|walks) ;; *) fail "unknown variant $V" ;; esac
[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd (run-scenario --root-disk=apps)"
command -v memcached >/dev/null || fail "memcached is not in the root image (tests/vm/mkrootfs.sh --apps)"
need_bin mc-zipf
[ "$LIMIT" = 0 ] || need_bin idle-limit
vmstat_get() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# memcached's memcg section of lru_gen_full (walks, lrugen_dump).
memcg_section() { awk -v cg="/$CG" '/^memcg/ { on = ($3 == cg) } on' /sys/kernel/debug/lru_gen_full; }

if [ "$V" = active ]; then
	assert_file "$DEB" "the package"
	dpkg -i "$DEB" > /tmp/dpkg-i.log 2>&1 || { cat /tmp/dpkg-i.log; fail "dpkg -i failed"; }
	# The package's service would manage with the shipped configuration: this run starts its own.
	systemctl disable --now mglrud.service > /dev/null 2>&1
	cat > /tmp/bench.conf <<EOC
[Daemon]
Interval=$IV

[/$CG]
Mode=active
MinColdAge=$MINC
MaxColdAge=$MAXC
EOC
fi
if [ "$V" = damon ]; then
	[ -d "$DAMON" ] || fail "no $DAMON (a kernel without CONFIG_DAMON_RECLAIM)"
	# DAMON_STAT holds the one DAMON context a built-in module may run: enabling DAMON_RECLAIM
	# beside it fails with EIO.
	stat_en=/sys/module/damon_stat/parameters/enabled
	result app_damon_stat_was "$(cat "$stat_en" 2>/dev/null || echo absent)"
	[ ! -w "$stat_en" ] || echo N > "$stat_en" || fail "cannot switch DAMON_STAT off"
fi

# memcached as a real service: its own cgroup, CPU 0, no memory limit (nothing is reclaimed
# without a controller), swap allowed. -m 1024: its cache limit is above the data set.
systemd-run --unit="$UNIT" --slice=bench.slice -p MemoryAccounting=yes -p CPUAffinity=0 \
	/usr/bin/memcached -u memcache -l 127.0.0.1 -p 11211 -m 1024 -t 1 -c 64 > /tmp/systemd-run.log 2>&1 ||
	{ cat /tmp/systemd-run.log; fail "systemd-run memcached failed"; }
i=0
until mc-zipf --keys 1 --no-fill --duration 0.01 > /dev/null 2>&1; do
	i=$((i + 1))
	[ "$i" -lt 300 ] || fail "memcached does not answer on 127.0.0.1:11211 ($(systemctl is-active "$UNIT"))"
	sleep 0.1
done
MC_PID=$(systemctl show -p MainPID --value "$UNIT")
# The client, this shell, the samplers and the controller on the other CPU (split_cpus).
n=$(nproc)
[ "$n" -lt 2 ] || taskset -p "$(printf '%x' $(( (1 << n) - 2 )))" $$ > /dev/null
result app_cpus "$n"
if [ -n "$CAPS" ]; then
	echo "$CAPS" > /sys/kernel/mm/lru_gen/enabled || fail "cannot write $CAPS to lru_gen/enabled"
fi
result app_lrugen_enabled "$(cat /sys/kernel/mm/lru_gen/enabled)"
VIS_PID=
if [ -n "$VISITOR" ]; then
	taskset -c 0 sh -c "while :; do sleep $(awk -v m="$VISITOR" 'BEGIN { printf "%.3f", m / 1000 }'); done" &
	VIS_PID=$!
fi
result app_visitor_ms "${VISITOR:-0}"
mc-zipf --keys "$KEYS" --value-size "$VSIZE" --zipf "$ZIPF" --duration "$DUR" --depth "$DEPTH" --report 5 > /tmp/mc.log 2>&1 &
CL_PID=$!
wait_event /tmp/mc.log ready 600 || fail "mc-zipf did not fill memcached: $(tail -n 3 /tmp/mc.log)"
cur0=$(cg_read "$CG" memory.current)
refa0=$(cg_stat "$CG" workingset_refault_anon)
out0=$(vmstat_get pswpout) in0=$(vmstat_get pswpin)
t0=$(date +%s)
case "$V" in
active)
	mglrud --cgroup-root /sys/fs/cgroup --config /tmp/bench.conf --log-level debug > /tmp/mglrud.log 2>&1 &
	D_PID=$! ;;
damon)
	echo $((MINAGE * 1000000)) > "$DAMON/min_age" &&
		echo 1000 > "$DAMON/wmarks_high" && echo 999 > "$DAMON/wmarks_mid" &&
		echo 0 > "$DAMON/wmarks_low" || fail "cannot set DAMON_RECLAIM's parameters"
	echo Y > "$DAMON/enabled" || fail "enabling DAMON_RECLAIM failed"
	sleep 2
	kd=$(cat "$DAMON/kdamond_pid")
	[ -n "$kd" ] && [ "$kd" -gt 0 ] 2>/dev/null || fail "DAMON_RECLAIM enabled but kdamond_pid is '$kd'"
	result app_kdamond_pid "$kd" ;;
walks)
	(
		memcg=$(awk -v cg="/$CG" '$1 == "memcg" && $3 == cg { print $2 }' /sys/kernel/debug/lru_gen)
		[ -n "$memcg" ] || exit 1
		k=0
		while [ $(( $(date +%s) - t0 )) -lt "$DUR" ]; do
			sleep "$WALK_EVERY"
			seq=$(awk -v cg="/$CG" '$1 == "memcg" { on = ($3 == cg); next } on && NF == 4 && $1 ~ /^[0-9]+$/ { m = $1 } END { print m }' /sys/kernel/debug/lru_gen)
			if [ $(( $(date +%s) - t0 )) -lt $((DUR / 2)) ]; then tail=; else tail=" 100 1"; fi
			echo "+ $memcg 0 $seq$tail" > /sys/kernel/debug/lru_gen 2>> /tmp/walks.err
			k=$((k + 1))
			{ echo "walk=$k t=$(( $(date +%s) - t0 )) cmd=+ $memcg 0 $seq$tail"
			  memcg_section; } >> /tmp/lrugen.series
		done
	) &
	W_PID=$! ;;
esac
if [ "$LIMIT" = 1 ]; then
	idle-limit --pid "$MC_PID" --at "$AT" > /tmp/idle.out 2> /tmp/idle.err &
	IL_PID=$!
fi
# Series every 5 s: t memory.current memory.swap.current workingset_refault_anon pswpout pswpin
: > /tmp/series
while kill -0 "$CL_PID" 2>/dev/null; do
	if [ "$LRUGEN_DUMP" = 1 ] && [ $(( ($(date +%s) - t0) % 10 )) -lt 5 ]; then
		{ echo "t=$(( $(date +%s) - t0 ))"
		  memcg_section; } >> /tmp/lrugen.series
	fi
	echo "$(( $(date +%s) - t0 )) $(cg_read "$CG" memory.current) $(cg_read "$CG" memory.swap.current) $(cg_stat "$CG" workingset_refault_anon) $(vmstat_get pswpout) $(vmstat_get pswpin)" >> /tmp/series
	sleep 5
done
wait "$CL_PID"; crc=$?
[ -z "$VIS_PID" ] || kill "$VIS_PID"
cur1=$(cg_read "$CG" memory.current)
refa1=$(cg_stat "$CG" workingset_refault_anon)
out1=$(vmstat_get pswpout) in1=$(vmstat_get pswpin)
drc=none
if [ "$V" = active ]; then
	kill -TERM "$D_PID"; wait "$D_PID"; drc=$?
	result_file mglrud.log /tmp/mglrud.log
fi
if [ "$V" = damon ]; then
	for p in "$DAMON"/*; do echo "${p##*/}=$(cat "$p" 2>/dev/null)"; done > /tmp/damon.params
	result_file damon.params /tmp/damon.params
	result app_damon_reclaimed_bytes "$(cat "$DAMON/bytes_reclaimed_regions")"
	result app_damon_tried_bytes "$(cat "$DAMON/bytes_reclaim_tried_regions")"
	result app_damon_quota_exceeds "$(cat "$DAMON/nr_quota_exceeds" 2>/dev/null)"
	echo N > "$DAMON/enabled"
fi
result_file mc.log /tmp/mc.log
result_file series /tmp/series
[ "$LRUGEN_DUMP" != 1 ] && [ "$V" != walks ] || result_file lru_gen_full.series /tmp/lrugen.series
if [ "$V" = walks ]; then
	wait "$W_PID"
	[ ! -s /tmp/walks.err ] || result_file walks.err /tmp/walks.err
	# Per walk: the tables (F) and young PTEs (Y) its stats line added, and the command's form.
	awk '/^walk=/ { form = ($0 ~ / 100 1$/) ? "forced" : "plain" }
	     /[0-9]T +[0-9]+Y +[0-9]+F/ { f = $3 + 0; y = $2 + 0
	         if (nf != "") printf "%s %d %d\n", form, f - nf, y - ny; nf = f; ny = y }' /tmp/lrugen.series > /tmp/walks.sum
	result_file walks.sum /tmp/walks.sum
	for form in plain forced; do
		result "app_walk_${form}_tables" "$(awk -v f="$form" '$1 == f { s += $2; n++ } END { if (n) printf "%.0f", s / n }' /tmp/walks.sum)"
		result "app_walk_${form}_young" "$(awk -v f="$form" '$1 == f { s += $3; n++ } END { if (n) printf "%.0f", s / n }' /tmp/walks.sum)"
	done
fi
[ "$crc" = 0 ] || fail "mc-zipf exited $crc: $(tail -n 3 /tmp/mc.log)"

result app_variant "$V"
result app_duration "$DUR"
result app_rss_ready_kib "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$MC_PID/status")"
result app_mem_ready "$cur0"
result app_mem_end "$cur1"
# memory.current averaged over the samples of the second half of the timed phase.
result app_mem_avg_2nd "$(awk -v h="$((DUR / 2))" '$1 >= h { s += $2; n++ } END { if (n) printf "%.0f", s / n }' /tmp/series)"
result app_swap_avg_2nd "$(awk -v h="$((DUR / 2))" '$1 >= h { s += $3; n++ } END { if (n) printf "%.0f", s / n }' /tmp/series)"
result app_ops_per_s "$(event_get /tmp/mc.log final ops_per_s)"
result app_p50_us "$(event_get /tmp/mc.log final p50_us)"
result app_p99_us "$(event_get /tmp/mc.log final p99_us)"
result app_max_us "$(event_get /tmp/mc.log final max_us)"
result app_misses "$(event_get /tmp/mc.log final misses)"
result app_fill_s "$(event_get /tmp/mc.log ready fill_s)"
# The worst 5 s window's p99 (the tail a user would see during an eviction).
result app_p99_worst_us "$(grep '^event=report ' /tmp/mc.log | tr ' ' '\n' | sed -n 's/^p99_us=//p' | sort -g | tail -n 1)"
result app_refault_anon "$((refa1 - refa0))"
result app_pswpout "$((out1 - out0))"
result app_pswpin "$((in1 - in0))"
result app_mglrud_rc "$drc"
if [ "$V" = active ]; then
	# Eviction writes and what they got: the MGLRUD_BYTES= (asked) and MGLRUD_BYTES_GOT= fields
	# of the "CG: evict asked X, got anon A file F (REASON)" lines.
	grep ' asked .*MGLRUD_BYTES_GOT=' /tmp/mglrud.log | awk '
		{ a = g = 0; for (i = 1; i <= NF; i++) { if ($i ~ /^MGLRUD_BYTES=/) a = substr($i, 14) + 0
			if ($i ~ /^MGLRUD_BYTES_GOT=/) g = substr($i, 18) + 0 }
		  n++; sa += a; sg += g; if (g < a / 4) few++ }
		END { printf "writes=%d asked_bytes=%.0f got_bytes=%.0f got_under_quarter=%d\n", n, sa, sg, few }' > /tmp/evict.sum
	result app_evictions "$(cat /tmp/evict.sum)"
fi
if [ "$LIMIT" = 1 ]; then
	wait "$IL_PID"; irc=$?
	cat /tmp/idle.out /tmp/idle.err
	result_file idle-limit.out /tmp/idle.out
	result_file idle-limit.err /tmp/idle.err
	result app_limit_rc "$irc"
	for t in $(echo "$AT" | tr ',' ' '); do
		line=$(grep "^event=idle at_s=$t " /tmp/idle.out)
		v() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
		result "app_limit_rss_${t}_kib" "$(v rss_kib)"
		result "app_limit_idle_${t}_kib" "$(v idle_kib)"
		result "app_limit_anon_idle_${t}_kib" "$(v anon_idle_kib)"
	done
fi
systemctl stop "$UNIT"
pass "variant $V done"
