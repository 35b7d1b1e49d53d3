# smoke-kernel: the 7.3 kernel facts the daemon relies on, without mglrud.
# lru_gen lists a new memcg under its cgroup inode number; memory.reclaim with swappiness
# works and moves anon to zram; memory.stat has the *_proactive counters; PSI files exist.
CG="smoke.slice/w"
cg_create "$CG" 256M
assert_file "$LRU_GEN" "debugfs lru_gen"
assert_match "$(cat /sys/kernel/mm/lru_gen/enabled)" '^0x[0-9a-f]*[1-7]$' "lru_gen enabled"
assert_file /proc/pressure/memory
assert_gt "$(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo)" 0 "zram swap configured"

run_anon_tiers "$CG" /tmp/wl.log 30 --cold 48 --warm 0 --hot 4 --duration 0 --report 2
cg_run "$CG" /tmp/mixed.log mixed --anon 0 --file /data/medium.bin --file-mib 48 --duration 0
wait_event /tmp/mixed.log ready 30 || fail "mixed did not start"

ino=$(cg_inode "$CG")
line=$(lru_gen_id_line "$ino")
result cgroup_inode "$ino"
result lru_gen_line "$line"
assert_eq "$line" "memcg $ino /$CG" "lru_gen memcg line uses the cgroup inode as id"

for k in pgsteal_proactive pgscan_proactive; do
	v=$(cg_stat "$CG" "$k")
	assert_match "$v" '^[0-9]+$' "memory.stat has $k"
done

before=$(cg_read "$CG" memory.current)
out=$(kwrite "$CG_ROOT/$CG/memory.reclaim" "16M swappiness=max") || fail "memory.reclaim 16M swappiness=max: $out"
swapped=$(cg_read "$CG" memory.swap.current)
out=$(kwrite "$CG_ROOT/$CG/memory.reclaim" "16M swappiness=0") || fail "memory.reclaim 16M swappiness=0: $out"
after=$(cg_read "$CG" memory.current)
steal=$(cg_stat "$CG" pgsteal_proactive)
result memory_current_before "$before"
result memory_current_after "$after"
result swap_current "$swapped"
result pgsteal_proactive "$steal"
assert_gt "$swapped" 0 "memory.swap.current after anon-only reclaim"
assert_ge "$steal" 8192 "pgsteal_proactive after 32M of reclaim (pages)"
assert_le "$after" "$((before - 24 * 1048576))" "memory.current dropped by >= 24M"

# Ageing creates a generation; evicting the youngest two is refused.
max=$(lru_gen_max_seq "$ino")
out=$(kwrite "$LRU_GEN" "+ $ino 0 $max 1 1") || fail "lru_gen aging: $out"
assert_eq "$(lru_gen_max_seq "$ino")" "$((max + 1))" "max_seq after aging"
out=$(kwrite "$LRU_GEN" "- $ino 0 $((max + 1))") && fail "evicting max_seq succeeded: $out"
assert_match "$out" 'errno=EINVAL' "evicting max_seq"

kill "$WL_PID" 2>/dev/null
pass "lru_gen id = inode, memory.reclaim + swappiness, proactive counters"
