# dryrun-cold-anon: mglrud --dry-run --once over a cgroup holding cold anon memory must print
# advice for that cgroup and write nothing: no proactive reclaim, memory.current unchanged.
# Then a dry-run daemon on the same cgroup: memory.min is kept between reads and read again
# when inotify reports a write to it (kernfs writes raise IN_MODIFY), so writing 1G there turns
# its decision to at-floor within a few cycles (Interval=2s), not at the 60 s rescan, and
# writing 0 turns it back.
need_bin mglrud
need_bin mglructl
CG="test.slice/cold"
cg_create "$CG" 300M
run_anon_tiers "$CG" /tmp/wl.log 60 --cold 96 --warm 8 --hot 4 --warm-interval 2 --duration 0 --report 5

cat > /tmp/dry.conf <<EOC
[Daemon]
Interval=2s

[/test.slice/cold]
Mode=active
MinColdAge=5s
MaxColdAge=20s
EOC
# The harness (not mglrud) ages the memcg twice, 12 s apart: the cold set, touched once at start,
# stays in the older generations while the hot and warm sets move to the youngest. With
# T = sqrt(5 s * 20 s) = 10 s the generations older than the second ageing are idle >= 12 s.
ino=$(cg_inode "$CG")
kwrite "$LRU_GEN" "+ $ino 0 $(lru_gen_max_seq "$ino") 1 1" >/dev/null
sleep 12
kwrite "$LRU_GEN" "+ $ino 0 $(lru_gen_max_seq "$ino") 1 1" >/dev/null
awk -v id="$ino" '$1 == "memcg" { p = ($2 == id) } p' "$LRU_GEN" > /tmp/lru_gen.cg

steal0=$(cg_stat "$CG" pgsteal_proactive)
cur0=$(cg_read "$CG" memory.current)
swap0=$(cg_read "$CG" memory.swap.current)
lru0=$(lru_gen_seqs "$ino")
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mglrud --once --dry-run --cgroup-root /sys/fs/cgroup --config /tmp/dry.conf > /tmp/mglrud.out 2> /tmp/mglrud.err
rc=$?
steal1=$(cg_stat "$CG" pgsteal_proactive)
cur1=$(cg_read "$CG" memory.current)
swap1=$(cg_read "$CG" memory.swap.current)
lru1=$(lru_gen_seqs "$ino")
result_file mglrud.out /tmp/mglrud.out
result_file lru_gen.cg /tmp/lru_gen.cg
log "lru_gen of the cgroup as mglrud read it:"; cat /tmp/lru_gen.cg
result_file mglrud.err /tmp/mglrud.err
result mglrud_rc "$rc"
result advice "$(grep -F "/$CG" /tmp/mglrud.out | head -n 1)"
result memory_current_before "$cur0"
result memory_current_after "$cur1"
result pgsteal_proactive "$steal0 -> $steal1"
result lru_gen_seqs "$lru0 -> $lru1"
log "mglrud stdout:"; cat /tmp/mglrud.out
log "mglrud stderr:"; tail -n 20 /tmp/mglrud.err

assert_eq "$rc" 0 "mglrud --once --dry-run exit code"
grep -qF "/$CG" /tmp/mglrud.out || fail "no advice line for /$CG"
# The 96 MiB cold set must be seen as cold anon (at least 64 MiB of it, in M units).
cold_mib=$(sed -n 's|.*: cold anon \([0-9.]*\)M .*|\1|p' /tmp/mglrud.out | head -n 1)
result cold_anon_mib "${cold_mib:-none}"
assert_ge "${cold_mib%.*}" 64 "advice must see the cold anon set as cold"
grep -qF "would evict" /tmp/mglrud.out || fail "advice does not say what it would evict"
assert_eq "$steal1" "$steal0" "pgsteal_proactive must not move in dry-run"
assert_eq "$swap1" "$swap0" "memory.swap.current must not move in dry-run"
assert_eq "$lru1" "$lru0" "dry-run must not age or evict (lru_gen min/max seq)"
# Allow 2 MiB of noise (the hot loop, page tables); reclaim would show as tens of MiB.
assert_ge "$cur1" "$((cur0 - 2 * 1048576))" "memory.current must not drop in dry-run"

mglrud --dry-run --cgroup-root /sys/fs/cgroup --config /tmp/dry.conf --runtime-dir /run/mglrud \
	> /tmp/daemon.log 2>&1 &
d_pid=$!
# Prints the seconds since boot, in tenths (/proc/uptime: busybox date has no %N).
uptime_ds() { awk '{ printf "%d", $1 * 10 }' /proc/uptime; }
# Prints the seconds (wall clock, one decimal) until mglructl dump shows reason $1 for the
# cgroup, or "none" after $2 seconds.
reason_after() {
	local want=$1 limit=$2 t0
	t0=$(uptime_ds)
	while [ $(( $(uptime_ds) - t0 )) -lt $((limit * 10)) ]; do
		timeout 10 mglructl --runtime-dir /run/mglrud dump 2>/dev/null |
			awk -v cg="-> /$CG" '$0 == cg { p = 1; next } /^-> / { p = 0 } p' > /tmp/dump.cg
		if grep -q "Last reason: $want\$" /tmp/dump.cg; then
			awk -v t=$(( $(uptime_ds) - t0 )) 'BEGIN { printf "%.1f", t / 10 }'
			return 0
		fi
		sleep 0.5
	done
	echo none
}
first=$(reason_after cold-generations 30)
echo 1G > "$CG_ROOT/$CG/memory.min"
floor=$(reason_after at-floor 20)
echo 0 > "$CG_ROOT/$CG/memory.min"
back=$(reason_after cold-generations 20)
kill -TERM "$d_pid"; wait "$d_pid"; drc=$?
result_file daemon.log /tmp/daemon.log
result memory_min_seen "first=${first}s floor=${floor}s back=${back}s"
assert_eq "$drc" 0 "mglrud exit code on SIGTERM"
[ "$first" != none ] || fail "the daemon never decided cold-generations on the cold set"
[ "$floor" != none ] || fail "memory.min written to 1G: the decision never turned to at-floor"
[ "$back" != none ] || fail "memory.min written back to 0: the decision never turned back"
# Three intervals at most: the write was seen through inotify, not at the 60 s rescan.
assert_le "${floor%.*}" 6 "memory.min written: at-floor within three cycles"
assert_le "${back%.*}" 6 "memory.min written back: cold-generations within three cycles"

kill "$WL_PID" 2>/dev/null
pass "advice printed, nothing reclaimed; memory.min writes seen at the next cycles (${floor}s, ${back}s)"
