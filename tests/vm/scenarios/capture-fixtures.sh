# capture-fixtures: real 7.3 kernel outputs for the parser tests (tests/fixtures/kernel-7.3).
# Run through tests/vm/capture-fixtures.sh, which unpacks the files into the fixtures dir.
#
# Main cgroup "/work load.slice/a b" (spaces on purpose) holds cold/warm/hot anon (anon-tiers)
# plus anon and page cache from the data disk (mixed), is aged and reclaimed (file, then anon
# into zram) and re-reads part of its file so refault and tier counters are non-zero.
A="work load.slice/a b"
B="work load.slice/b"
cg_create "$A" 400M
cg_create "$B" 200M
echo 8M > "$CG_ROOT/$A/memory.min"
echo 32M > "$CG_ROOT/$A/memory.low"
echo 64M > "$CG_ROOT/$B/memory.swap.max"
echo 150M > "$CG_ROOT/$B/memory.high"

cg_run "$A" /tmp/tiers.log anon-tiers --cold 96 --warm 16 --hot 8 --warm-interval 3 --duration 0 --report 5
wait_event /tmp/tiers.log ready 60 || fail "anon-tiers did not start"
cg_run "$A" /tmp/mixed.log mixed --anon 32 --file /data/cold.bin --file-mib 96 --duration 0
wait_event /tmp/mixed.log ready 60 || fail "mixed did not start in A"
cg_run "$B" /tmp/mixed-b.log mixed --anon 16 --file /data/medium.bin --file-mib 24 --duration 0
wait_event /tmp/mixed-b.log ready 60 || fail "mixed did not start in B"

ID=$(cg_inode "$A")
IDB=$(cg_inode "$B")
[ -n "$(lru_gen_id_line "$ID")" ] || fail "memcg $ID not in lru_gen"

age() { kwrite "$LRU_GEN" "+ $1 0 $(lru_gen_max_seq "$1") 1 1" >/dev/null; }
# room ID: ages until min_seq <= max_seq - 2 so that "- ID 0 min_seq" is allowed.
room() {
	local i=0
	while [ $(( $(lru_gen_max_seq "$1") - $(lru_gen_min_seq "$1") )) -lt 2 ] && [ $i -lt 4 ]; do
		age "$1"; i=$((i + 1))
	done
}
sleep 2
age "$ID"; age "$IDB"; log "aged at $(cut -d" " -f1 /proc/uptime)"
sleep 2
age "$ID"; age "$IDB"; log "aged at $(cut -d" " -f1 /proc/uptime)"
kwrite "$CG_ROOT/$A/memory.reclaim" "50M" > /tmp/reclaim1.out || log "reclaim 50M: $(cat /tmp/reclaim1.out)"
kwrite "$CG_ROOT/$A/memory.reclaim" "30M swappiness=max" > /tmp/reclaim2.out || log "reclaim 30M max: $(cat /tmp/reclaim2.out)"
kwrite "$CG_ROOT/$B/memory.reclaim" "8M swappiness=max" > /dev/null || true
kwrite "$CG_ROOT/$B/memory.reclaim" "8M swappiness=0" > /dev/null || true
# A bounded file-only eviction leaves min_seq where it is, so the tier counters of the oldest
# generation ("rep" columns of lru_gen_full) stay visible; then refault the evicted file pages.
room "$ID"
kwrite "$LRU_GEN" "- $ID 0 $(lru_gen_min_seq "$ID") 0 4096" > /tmp/evict.out || log "evict: $(cat /tmp/evict.out)"
cg_run "$A" /tmp/reread.log sh -c 'head -c 96M /data/cold.bin > /dev/null; echo event=done t=0'
wait_event /tmp/reread.log done 60 || fail "re-read did not finish"
sleep 1

# --- snapshot
result_file lru_gen "$LRU_GEN"
result_file lru_gen_full /sys/kernel/debug/lru_gen_full
result_file meminfo /proc/meminfo
result_file swaps /proc/swaps
result_file proc-pressure-memory /proc/pressure/memory
result_file lru_gen-enabled /sys/kernel/mm/lru_gen/enabled
result_file lru_gen-min_ttl_ms /sys/kernel/mm/lru_gen/min_ttl_ms
for f in memory.stat memory.pressure memory.current memory.min memory.low memory.high memory.max \
	 memory.peak memory.events memory.events.local memory.swap.current memory.swap.max \
	 memory.swap.events memory.swap.peak memory.numa_stat memory.zswap.current memory.zswap.max \
	 cgroup.controllers cgroup.subtree_control; do
	[ -e "$CG_ROOT/$A/$f" ] && result_file "cgroup-a-b/$f" "$CG_ROOT/$A/$f"
	[ -e "$CG_ROOT/$B/$f" ] && result_file "cgroup-b/$f" "$CG_ROOT/$B/$f"
	[ -e "$CG_ROOT/$f" ] && result_file "cgroup-root/$f" "$CG_ROOT/$f"
done
echo "/$A" | result_text cgroup-a-b/PATH
echo "/$B" | result_text cgroup-b/PATH
# "inode path" for every cgroup directory (path relative to the cgroup2 root, "/" for it).
find "$CG_ROOT" -type d | sort | while read -r d; do
	p="${d#$CG_ROOT}"
	echo "$(stat -c %i "$d") ${p:-/}"
done | result_text cgroup-inodes.txt
cat /tmp/tiers.log /tmp/mixed.log | result_text workload-output.txt

result cgroup_a_id "$ID"
result cgroup_b_id "$IDB"
result a_memory_current "$(cg_read "$A" memory.current)"
result a_swap_current "$(cg_read "$A" memory.swap.current)"
result a_workingset_refault_file "$(cg_stat "$A" workingset_refault_file)"
result a_pgsteal_proactive "$(cg_stat "$A" pgsteal_proactive)"

# --- write-error behaviour (after the snapshot: these writes change the state)
ERR=/tmp/errors.txt
{
	echo "# Write results on Linux $(uname -r), captured by tests/vm/scenarios/capture-fixtures.sh."
	echo "# Tab-separated: target, string written (without newline), min_seq/max_seq of node 0 before"
	echo "# (lru_gen rows), kwrite output (rc=0 bytes=N, or rc=-1 errno=NAME errno_num=N)."
	echo "# ID=$ID is /$A; IDB=$IDB is /$B."
} > "$ERR"
try() { # label path string
	local seqs out
	seqs=-
	case "$1" in lru_gen*) seqs="$(lru_gen_seqs "$ID" | tr ' ' '/')" ;; esac
	out=$(kwrite "$2" "$3")
	printf '%s\t%s\t%s\t%s\n' "$1" "$3" "$seqs" "$out" >> "$ERR"
}
seq_min() { lru_gen_min_seq "$ID"; }
seq_max() { lru_gen_max_seq "$ID"; }
R="$CG_ROOT/$A/memory.reclaim"
try lru_gen "$LRU_GEN" "- $ID 0 $(seq_max)"
try lru_gen "$LRU_GEN" "- $ID 0 $(( $(seq_max) - 1 ))"
try lru_gen "$LRU_GEN" "- $ID 0 $(seq_min)"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max)"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max)"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max) 1 1"
try lru_gen "$LRU_GEN" "+ $ID 0 $(( $(seq_max) - 1 ))"
try lru_gen "$LRU_GEN" "+ $ID 0 $(( $(seq_max) + 5 ))"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max) 0 0"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max) 1 1 junk"
try lru_gen "$LRU_GEN" "+ 999999 0 1"
try lru_gen "$LRU_GEN" "+ $ID 1 $(seq_max)"
try lru_gen "$LRU_GEN" "x $ID 0 $(seq_max)"
try lru_gen "$LRU_GEN" ""
try lru_gen "$LRU_GEN" "+ $ID 0"
# Eviction arguments, each with room to evict (min_seq <= max_seq - 2) and a small budget.
for sw in 200 201 202 max 0 060 -1 "60 256 junk"; do
	room "$ID"
	try lru_gen "$LRU_GEN" "- $ID 0 $(seq_min) $sw 256"
done
room "$ID"
try lru_gen "$LRU_GEN" "- $ID 0 $(seq_min) 100"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max); + $IDB 0 $(lru_gen_max_seq "$IDB")"
try lru_gen "$LRU_GEN" "+ $ID 0 $(seq_max)
+ $IDB 0 $(lru_gen_max_seq "$IDB")"
try lru_gen-root "$LRU_GEN" "+ 1 0 $(lru_gen_max_seq 1)"
# A cgroup without its own memory controller (parent lacks +memory in subtree_control).
mkdir -p "$CG_ROOT/nomem.slice/child"
NOMEM=$(stat -c %i "$CG_ROOT/nomem.slice/child")
try lru_gen-nomem-child "$LRU_GEN" "+ $NOMEM 0 1"
# A removed cgroup.
mkdir "$CG_ROOT/gone"
GONE=$(stat -c %i "$CG_ROOT/gone")
rmdir "$CG_ROOT/gone"
try lru_gen-removed "$LRU_GEN" "+ $GONE 0 1"
try memory.reclaim "$R" "0 swappiness=max"
try memory.reclaim "$R" "0"
try memory.reclaim "$R" "1M"
try memory.reclaim "$R" "1M swappiness=0"
try memory.reclaim "$R" "1M swappiness=200"
try memory.reclaim "$R" "1M swappiness=201"
try memory.reclaim "$R" "1M swappiness=max"
try memory.reclaim "$R" "1M swappiness=-1"
try memory.reclaim "$R" "1M swappiness="
try memory.reclaim "$R" "1M swappiness=60 junk"
try memory.reclaim "$R" "1M junk"
try memory.reclaim "$R" "abc"
try memory.reclaim "$R" ""
try memory.reclaim "$R" "1048576"
try memory.reclaim "$R" "4k"
cg_create "work load.slice/empty"
try memory.reclaim-empty "$CG_ROOT/work load.slice/empty/memory.reclaim" "2G"
echo 0 > "$CG_ROOT/$B/memory.swap.max"
try memory.reclaim-b-swapmax0 "$CG_ROOT/$B/memory.reclaim" "4M swappiness=max"
try memory.reclaim-root "$CG_ROOT/memory.reclaim" "1M"
try memory.reclaim-nomem "$CG_ROOT/nomem.slice/child/memory.reclaim" "1M"
result_file errors.txt "$ERR"

kill "$WL_PID" 2>/dev/null
pass "captured"
