#!/bin/bash
# Discovery follows mkdir/rename/rmdir through inotify: a cgroup created under a watched directory
# is managed by the next cycle, a renamed one keeps its state under its new path, and a removed
# one is dropped, long before the 60 s periodic rescan.
set -euo pipefail
mglrud=$1 ctl=$2 fixture=$3
source "$(dirname "$0")/lib-mglrud.sh"

copy_tree "$fixture"
cat > "$tree/mglrud.conf" <<'EOC'
[Defaults]
MinColdAge=10s
MaxColdAge=10s

[/work load.slice/*]
Mode=advise
EOC
start_daemon
wait_estimates
ctl dump | grep -q -- '-> /work load.slice/a b' || fail "a b not managed at start"
ctl dump | grep -q -- '-> /work load.slice/new' && fail "new managed before it exists"

# A new cgroup, as a container runtime would create it (the fixture's files stand in for the
# kernel's).
mkdir "$tree/cgroup/work load.slice/new"
cp "$tree/cgroup/work load.slice/b/"memory.* "$tree/cgroup/work load.slice/new/"
t0=$(date +%s%N)
for _ in $(seq 50); do
        ctl dump | grep -q -- '-> /work load.slice/new' && break
        sleep 0.1
done
ctl dump | grep -q -- '-> /work load.slice/new' || fail "new cgroup not managed within 5 s"
echo "new cgroup managed after $(( ($(date +%s%N) - t0) / 1000000 )) ms"

# Renamed: the same cgroup (the same id) under its new path, not a new one.
id=$(ctl dump | grep -A1 -- '-> /work load.slice/new$' | sed -n 's/^ *Id: //p')
mv "$tree/cgroup/work load.slice/new" "$tree/cgroup/work load.slice/renamed"
for _ in $(seq 50); do
        ctl dump | grep -q -- '-> /work load.slice/renamed' && break
        sleep 0.1
done
ctl dump | grep -A1 -- '-> /work load.slice/renamed$' | grep -q "Id: $id\$" ||
        fail "renamed cgroup not managed under its new path with id $id"
ctl dump | grep -q -- '-> /work load.slice/new$' && fail "old path still listed after the rename"
grep -q "Managing /work load.slice/renamed" "$tmp/log" && fail "the rename was taken for a new cgroup"

rm -rf "$tree/cgroup/work load.slice/renamed"
for _ in $(seq 50); do
        ctl dump | grep -q -- '-> /work load.slice/renamed' || break
        sleep 0.1
done
ctl dump | grep -q -- '-> /work load.slice/renamed' && fail "removed cgroup still managed after 5 s"
grep -q "No longer managing /work load.slice/renamed" "$tmp/log" || fail "no log line for the removal"
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"
pid=
echo "discovery follows mkdir, rename and rmdir"
