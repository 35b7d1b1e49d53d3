#!/bin/bash
# Bad kernel input costs only what it concerns, and every message names the file and line:
#  - one malformed memcg record in lru_gen_full: that cgroup gets no decision this cycle, the
#    other keeps its histogram-based advice;
#  - a malformed memory.stat: named with its line, once per break on a running daemon (not every
#    cycle), and once when it reads again;
#  - a malformed /proc/pressure/memory: named with its line, not ignored.
set -euo pipefail
mglrud=$1 src=$2
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp -r "$src/." "$tree/"
fail() { echo "FAIL: $*"; echo "--- stderr:"; cat "$tree/err"; echo "--- stdout:"; cat "$tree/out"; exit 1; }
run() {
        "$mglrud" --once --dry-run --config "$tree/mglrud.conf" --cgroup-root "$tree/cgroup" \
                --debugfs-root "$tree/debugfs" --proc-root "$tree/proc" >"$tree/out" 2>"$tree/err"
}

# The record of /work load.slice/b: its first generation line gets a letter in the age field.
n=$(grep -n '^memcg [0-9]* /work load.slice/b$' "$tree/debugfs/lru_gen_full" | cut -d: -f1)
bad=$((n + 2))
sed -i "${bad}s/^\( *[0-9]* *[0-9]*\)/\1q/" "$tree/debugfs/lru_gen_full"
run || fail "mglrud --once exited $?"
grep -q "lru_gen_full, line $bad: malformed memcg record (1 in all)" "$tree/err" || fail "no line $bad named"
grep -q '^/work load.slice/a b \[.*\]: cold anon 122M' "$tree/out" || fail "a b lost its histogram"
grep -q '^/work load.slice/b \[[^]]*\]: ' "$tree/out" && fail "b was decided on a malformed record"
# Its idle-age table says it was not read, not that the kernel has no lru_gen.
grep -A1 '^/work load.slice/b \[advise' "$tree/out" | grep -q '^  not read yet: every cycle so far skipped it' ||
        fail "b's idle-age table does not say it was not read"
cp "$src/debugfs/lru_gen_full" "$tree/debugfs/lru_gen_full"

# memory.stat of b: line 3 broken.
sed -i '3s/ [0-9]*$/ x/' "$tree/cgroup/work load.slice/b/memory.stat"
run || fail "mglrud --once exited $?"
grep -q '/work load.slice/b: cannot read memory.stat, line 3: Invalid argument' "$tree/err" ||
        fail "memory.stat line 3 not named"
grep -q '^/work load.slice/a b ' "$tree/out" || fail "a b was not advised"
cp "$src/cgroup/work load.slice/b/memory.stat" "$tree/cgroup/work load.slice/b/memory.stat"

# A running daemon says a broken file once per cgroup and kind (file and errno), not every
# cycle; that it reads again; and a new break (or another kind) again. At debug level each
# repeat is a debug line, which counts the cycles.
stat=$tree/cgroup/work\ load.slice/b/memory.stat pressure=$tree/cgroup/work\ load.slice/b/memory.pressure
cp "$stat" "$tree/stat.good"
cp "$pressure" "$tree/pressure.good"
sed -i '3s/ [0-9]*$/ x/' "$stat"
mkdir "$tree/run"
"$mglrud" --interval 100ms --dry-run --log-level debug --runtime-dir "$tree/run" \
        --config "$tree/mglrud.conf" --cgroup-root "$tree/cgroup" --debugfs-root "$tree/debugfs" \
        --proc-root "$tree/proc" >"$tree/out" 2>"$tree/err" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$tree"' EXIT
count() { grep -c -- "$1" "$tree/err" || true; }
# wait_count PATTERN N: waits up to 10 s for N lines of the pattern in the daemon's log.
wait_count() {
        for _ in $(seq 100); do
                (( $(count "$1") >= $2 )) && return 0
                sleep 0.1
        done
        fail "not $2 lines of '$1' but $(count "$1")"
}
w_stat='^warning: /work load.slice/b: cannot read memory.stat, line 3: Invalid argument$'
d_stat='^debug: /work load.slice/b: cannot read memory.stat, line 3: Invalid argument$'
wait_count "$d_stat" 5
(( $(count "$w_stat") == 1 )) || fail "memory.stat warned $(count "$w_stat") times in 6 cycles"
cp "$tree/stat.good" "$stat"
wait_count '^/work load.slice/b: memory.stat reads again.$' 1
# (cp, not sed -i: the daemon keeps the file open, a new inode would not be read)
sed '3s/ [0-9]*$/ x/' "$tree/stat.good" >"$tree/stat.bad"
cp "$tree/stat.bad" "$stat"
wait_count "$w_stat" 2
# Another kind: memory.stat reads, memory.pressure does not.
cp "$tree/stat.good" "$stat"
sed '1s/avg10=[0-9.]*/avg10=x/' "$tree/pressure.good" >"$tree/pressure.bad"
cp "$tree/pressure.bad" "$pressure"
wait_count '^warning: /work load.slice/b: cannot read memory.pressure, line 1: ' 1
n=$(count "$d_stat")
wait_count '^debug: /work load.slice/b: cannot read memory.pressure, line 1: ' 5
(( $(count "$w_stat") == 2 )) && (( $(count '^warning: .*cannot read memory.pressure') == 1 )) ||
        fail "warnings: $(grep -c '^warning: ' "$tree/err")"
echo "a broken memory.stat over $(( n + 2 )) cycles: $(count "$w_stat") warnings (one per break)"
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"
trap 'rm -rf "$tree"' EXIT
cp "$tree/stat.good" "$stat"
cp "$tree/pressure.good" "$pressure"

# /proc/pressure/memory: line 2 broken.
sed -i '2s/total=0/total=zero/' "$tree/proc/pressure/memory"
run || fail "mglrud --once exited $?"
grep -q "proc/pressure/memory, line 2: Invalid argument; the host pressure guard only watches MemAvailable" "$tree/err" ||
        fail "pressure/memory line 2 not named"
# MGLRU switched off at run time (/sys/kernel/mm/lru_gen/enabled, next to debugfs): the fallback.
mkdir -p "$tree/mm/lru_gen"
echo 0x0000 > "$tree/mm/lru_gen/enabled"
run || fail "mglrud --once exited $?"
grep -q "MGLRU was switched off" "$tree/err" || fail "MGLRU off not noticed"
grep -q '^/work load.slice/a b .*no lru_gen histogram' "$tree/out" || fail "no fallback with MGLRU off"
echo 0x0007 > "$tree/mm/lru_gen/enabled"
run || fail "mglrud --once exited $?"
grep -q '^/work load.slice/a b .*cold anon 122M' "$tree/out" || fail "MGLRU on: no histogram"

echo "bad input: lru_gen_full line $bad, memory.stat line 3, pressure/memory line 2 named; the others decided"
