#!/bin/bash
# Descriptors: 400 cgroups under `ulimit -n 1024` (soft and hard) are all managed, the daemon
# says once how many files each keeps open, and no "Too many open files" appears; at 40
# cgroups every file stays open. A copy of the 7.3 fixture cgroup, 400 times.
set -euo pipefail
mglrud=$1 ctl=$2 src=$3
tree=$(mktemp -d)
mkdir -p "$tree/cgroup/many.slice" "$tree/proc/pressure"
cp "$src/cgroup/memory.stat" "$src/cgroup/memory.pressure" "$tree/cgroup/"
cp "$src/proc/meminfo" "$src/proc/swaps" "$tree/proc/"
cp "$src/proc/pressure/memory" "$tree/proc/pressure/"
for i in $(seq 1 400); do
        d="$tree/cgroup/many.slice/c$i"
        mkdir "$d"
        cp "$src/cgroup/work load.slice/b/"* "$d/"
done
printf '[/many.slice/*]\nMode=advise\n' > "$tree/mglrud.conf"
. "$(dirname "$0")/lib-mglrud.sh"
trap 'cleanup; rm -rf "$tree"' EXIT

run() { # N: manage c1..cN under ulimit -n 1024 and check
        local n=$1
        for i in $(seq $((n + 1)) 400); do mv "$tree/cgroup/many.slice/c$i" "$tree/cgroup/c$i.off" 2>/dev/null || true; done
        (ulimit -n 1024; exec "$mglrud" --interval 1s --dry-run --runtime-dir "$tmp" --config "$tree/mglrud.conf" \
                --cgroup-root "$tree/cgroup" --debugfs-root "$tree/none" --proc-root "$tree/proc") \
                >"$tmp/log" 2>&1 &
        pid=$!
        local out=""
        for _ in $(seq 100); do
                out=$(ctl status 2>/dev/null || true)
                grep -q "Advising on $n cgroups" <<<"$out" && break
                sleep 0.2
        done
        grep -q "Advising on $n cgroups" <<<"$out" || fail "$n cgroups: $out"
        sleep 2
        grep -qi "too many open files" "$tmp/log" && fail "$n cgroups: EMFILE in the log"
        nfd=$(ls "/proc/$pid/fd" | wc -l)
        kill "$pid"; wait "$pid" || fail "exit status $?"
        pid=
        for i in $(seq $((n + 1)) 400); do mv "$tree/cgroup/c$i.off" "$tree/cgroup/many.slice/c$i" 2>/dev/null || true; done
        echo "$n cgroups: $nfd descriptors open"
}
run 400 | tee "$tmp/out400"
grep -q "Descriptor limit 1024 for 400 managed cgroups: keeping 0 of their files open" "$tmp/log" ||
        fail "no line about the descriptor budget: $(grep -i descriptor "$tmp/log")"
run 40 | tee "$tmp/out40"
grep -q "Descriptor limit" "$tmp/log" && fail "40 cgroups fit: no line expected"
echo "fd limit: $(cat "$tmp/out400"), $(cat "$tmp/out40")"
