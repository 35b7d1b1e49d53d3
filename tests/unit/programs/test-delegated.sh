#!/bin/bash
# A cgroup delegated to a user (its memory.reclaim owned by uid 1000, mode 0200) under a daemon
# without CAP_DAC_OVERRIDE, as under the unit: said once, advised only, no error repeated every
# cycle; a cgroup whose memory.reclaim is ours is still reclaimed. Needs root (chown, setpriv).
set -euo pipefail
mglrud=$1 src=$2
[[ $(id -u) == 0 ]] && command -v setpriv >/dev/null || { echo "SKIP: needs root and setpriv"; exit 77; }
tree=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tree"' EXIT
cp -r "$src/." "$tree/"
fail() { echo "FAIL: $*"; echo "--- log:"; cat "$tree/log"; exit 1; }
user="$tree/cgroup/work load.slice/a b" own="$tree/cgroup/work load.slice/b"
: > "$user/memory.reclaim"; chown 1000:1000 "$user/memory.reclaim" "$user"; chmod 0200 "$user/memory.reclaim"
: > "$own/memory.reclaim"
cat > "$tree/pressure.conf" <<'EOC'
[Daemon]
Interval=1s
[/work load.slice/*]
Mode=pressure
ReclaimRatio=1%
EOC
setpriv --bounding-set=-dac_override --inh-caps=-dac_override -- "$mglrud" --config "$tree/pressure.conf" \
        --cgroup-root "$tree/cgroup" --debugfs-root "$tree/none" --proc-root "$tree/proc" \
        --runtime-dir "$tree/run" >"$tree/log" 2>&1 &
pid=$!
sleep 6
kill "$pid"; wait "$pid" || fail "exit status $?"
pid=
[[ $(grep -c "a b: memory.reclaim is not writable (the cgroup is owned by uid 1000" "$tree/log") == 1 ]] ||
        fail "the delegated cgroup was not named once"
grep -q "Permission denied" "$tree/log" && fail "a write was tried and refused"
[[ ! -s $user/memory.reclaim ]] || fail "the delegated memory.reclaim was written"
[[ -s $own/memory.reclaim ]] || fail "the daemon's own cgroup was not reclaimed"
grep -q "a b: .*would reclaim" "$tree/log" || fail "no advice for the delegated cgroup"
echo "delegated: named once, advised, never written; the other cgroup reclaimed"
