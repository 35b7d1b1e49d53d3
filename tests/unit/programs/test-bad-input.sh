#!/bin/bash
# Bad kernel input costs only what it concerns, and every message names the file and line:
#  - one malformed memcg record in lru_gen_full: that cgroup gets no decision this cycle, the
#    other keeps its histogram-based advice;
#  - a malformed memory.stat: named with its line;
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
