# faults: mglrud in Mode=active on the real kernel while things go wrong around it. In every
# phase the daemon must keep running, keep the other cgroups managed and leave nothing
# half-done:
#  1. a cgroup removed while it is being reclaimed;
#  2. a workload that exits mid-eviction (its cgroup stays, empty);
#  3. debugfs unmounted at run time (then a reload: the memory.reclaim fallback), and back;
#  4. MGLRU switched off at run time (fallback) and on again (back to lru_gen);
#  5. host memory short (MemAvailable below HostMinAvailable): the guard pauses reclaim;
#  6. SIGKILL in the middle of a reclaim, then a restart: no persistent kernel setting changed.
# (EAGAIN from memory.reclaim is handled as "less than asked", not an error, and EINTR the
# same; neither can be provoked on demand from outside the daemon's thread.)
need_bin mglrud
need_bin mglructl
CONF=/tmp/faults.conf
cat > "$CONF" <<'EOC'
[Daemon]
Interval=2s
HostMinAvailable=32M

[Defaults]
MinColdAge=5s
MaxColdAge=10s
MaxStep=8M

[/faults.slice/*]
Mode=active
Swappiness=max
EOC
mkdir -p "$CONF.d"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
alive() { kill -0 "$D_PID" 2>/dev/null || fail "mglrud died during: $1 (log tail: $(tail -n 5 /tmp/mglrud.log | tr '\n' '|'))"; }
managed() { mglructl status 2>/dev/null | grep -q "^/faults.slice/$1 " ; }
# Waits (at most $2 s) until cgroup $1's pgsteal_proactive grows: an eviction is under way.
wait_evicting() {
	local s0 i=0
	s0=$(cg_stat "faults.slice/$1" pgsteal_proactive)
	while [ "$(cg_stat "faults.slice/$1" pgsteal_proactive)" = "$s0" ] && [ $i -lt $(( $2 * 5 )) ]; do
		sleep 0.2; i=$((i + 1))
	done
	[ "$(cg_stat "faults.slice/$1" pgsteal_proactive)" != "$s0" ] || fail "no eviction of $1 within $2 s"
}
warnings() { grep -cE '^(warning|error): ' /tmp/mglrud.log || true; }
start_daemon() {
	mglrud --config "$CONF" --cgroup-root /sys/fs/cgroup --log-level info >> /tmp/mglrud.log 2>&1 &
	D_PID=$!
	i=0
	while ! mglructl status >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	mglructl status >/dev/null 2>&1 || fail "mglrud did not start"
}
# The kernel settings a daemon could have changed for good.
settings() {
	for f in /proc/sys/vm/swappiness /proc/sys/vm/watermark_scale_factor /proc/sys/vm/min_free_kbytes \
		/sys/kernel/mm/lru_gen/enabled /sys/kernel/mm/lru_gen/min_ttl_ms; do
		echo "$f=$(cat "$f" 2>/dev/null)"
	done
	for d in $CG_ROOT/faults.slice $CG_ROOT/faults.slice/*/; do
		for k in memory.min memory.low memory.high memory.max memory.swap.max memory.zswap.max; do
			echo "${d#$CG_ROOT}$k=$(cat "$d/$k" 2>/dev/null)"
		done
	done
}

cg_create faults.slice/keeper 400M
cg_create faults.slice/victim 400M
run_anon_tiers faults.slice/keeper /tmp/keeper.log 60 --cold 48 --warm 0 --hot 8 --duration 0 --report 5
K_PID=$WL_PID
run_anon_tiers faults.slice/victim /tmp/victim.log 60 --cold 96 --warm 0 --hot 8 --duration 0 --report 5
settings > /tmp/settings.before
start_daemon

# 1. The victim is removed while its cold set is being evicted.
wait_evicting victim 60
echo 1 > "$CG_ROOT/faults.slice/victim/cgroup.kill"
i=0; while [ -n "$(cat "$CG_ROOT/faults.slice/victim/cgroup.procs" 2>/dev/null)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
w0=$(warnings)
rmdir "$CG_ROOT/faults.slice/victim" || fail "rmdir victim"
sleep 6
alive "cgroup removed mid-reclaim"
managed keeper || fail "keeper unmanaged after the victim's removal"
managed victim && fail "the removed victim is still listed"
assert_eq "$(warnings)" "$w0" "no warning about the removed cgroup"
result phase1 "victim removed mid-eviction; keeper managed; warnings $w0 -> $(warnings)"

# 2. A workload exits mid-eviction; its cgroup stays, empty.
cg_create faults.slice/exiter 400M
run_anon_tiers faults.slice/exiter /tmp/exiter.log 60 --cold 96 --warm 0 --hot 8 --duration 0 --report 5
E_PID=$WL_PID
wait_evicting exiter 60
kill -9 "$E_PID"; wait "$E_PID" 2>/dev/null
w0=$(warnings)
sleep 6
alive "workload exited mid-eviction"
managed exiter || fail "the emptied cgroup is no longer managed"
assert_eq "$(warnings)" "$w0" "no warning after the workload exited"
result phase2 "exiter killed mid-eviction; still managed, no warnings, memory.current $(mib "$(cg_read faults.slice/exiter memory.current)") MiB"

# 3. debugfs goes away (lazily: the daemon's open files keep working until it reloads).
umount -l /sys/kernel/debug || fail "umount debugfs"
kill -HUP "$D_PID"
sleep 5
alive "debugfs unmounted"
grep -q "lru_gen is not available\|No multi-gen LRU histogram" /tmp/mglrud.log || fail "the missing lru_gen was not noticed"
managed keeper || fail "keeper unmanaged without debugfs"
mount -t debugfs debugfs /sys/kernel/debug || fail "mount debugfs"
n_before=$(grep -c "lru_gen full+write\|Configuration reloaded" /tmp/mglrud.log)
kill -HUP "$D_PID"
sleep 5
alive "debugfs back"
[ "$(grep -c "Configuration reloaded" /tmp/mglrud.log)" -ge 2 ] || fail "the reload after remount failed"
result phase3 "debugfs lazily unmounted + reload: fallback noticed; remounted + reload: ok"

# 4. MGLRU off at run time, then on.
echo n > /sys/kernel/mm/lru_gen/enabled || fail "switching MGLRU off"
sleep 5
alive "MGLRU off"
grep -q "MGLRU was switched off" /tmp/mglrud.log || fail "MGLRU off not noticed"
echo y > /sys/kernel/mm/lru_gen/enabled || fail "switching MGLRU on"
sleep 5
alive "MGLRU on"
grep -q "MGLRU is on again" /tmp/mglrud.log || fail "MGLRU on not noticed"
managed keeper || fail "keeper unmanaged across MGLRU off/on"
result phase4 "MGLRU off: fallback noticed; on: back"

# 5. Host memory short: with HostMinAvailable above what the host has, nothing is reclaimed.
avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
printf '[Daemon]\nHostMinAvailable=%s\n' "$(( avail + (256 << 20) ))" > "$CONF.d/50-short.conf"
cg_create faults.slice/guarded 400M
run_anon_tiers faults.slice/guarded /tmp/guarded.log 60 --cold 48 --warm 0 --hot 8 --duration 0 --report 5
G_PID=$WL_PID
kill -HUP "$D_PID"
s0=$(cg_stat faults.slice/guarded pgsteal_proactive)
sleep 14
alive "host guard"
s1=$(cg_stat faults.slice/guarded pgsteal_proactive)
assert_eq "$s1" "$s0" "no proactive reclaim while the host is short of memory"
mglructl dump | grep -A12 -- '-> /faults.slice/guarded' | grep -q 'Last reason: host-pressure' ||
	fail "the dump does not say host-pressure"
rm "$CONF.d/50-short.conf"
kill -HUP "$D_PID"
wait_evicting guarded 60
result phase5 "HostMinAvailable above MemAvailable: pgsteal $s0 -> $s1 over 14 s, host-pressure; lifted: eviction resumed"

# 6. SIGKILL mid-reclaim, restart, nothing persistent changed.
cg_create faults.slice/killed 400M
run_anon_tiers faults.slice/killed /tmp/killed.log 60 --cold 96 --warm 0 --hot 8 --duration 0 --report 5
wait_evicting killed 60
kill -9 "$D_PID"; wait "$D_PID" 2>/dev/null
settings > /tmp/settings.after
start_daemon
managed keeper || fail "keeper unmanaged after the restart"
managed killed || fail "killed unmanaged after the restart"
# The cgroups created since the first snapshot are compared from the second one on.
grep -v 'faults.slice/\(exiter\|guarded\|killed\)/' /tmp/settings.after | grep -v 'victim' > /tmp/settings.after.cmp
grep -v 'victim' /tmp/settings.before > /tmp/settings.before.cmp
diff /tmp/settings.before.cmp /tmp/settings.after.cmp > /tmp/settings.diff || fail "kernel settings changed: $(cat /tmp/settings.diff | tr '\n' '|')"
result_file settings.after /tmp/settings.after
result phase6 "SIGKILL mid-eviction, restart: lock and socket taken over, settings unchanged ($(wc -l < /tmp/settings.before) checked)"

sleep 4
alive "the end"
kill "$D_PID"; wait "$D_PID"; drc=$?
kill "$K_PID" "$G_PID" 2>/dev/null
result_file mglrud.log /tmp/mglrud.log
result mglrud_rc "$drc"
result warnings "$(warnings)"
assert_eq "$drc" 0 "mglrud exit code"
pass "six faults: removed cgroup, exiting workload, debugfs gone, MGLRU off/on, host short, SIGKILL+restart"
