#!/bin/bash
# Faults on the host, on a copy of the 7.3 fixture tree:
#  - --metrics-file never writes through a symlink planted next to it (PATH.tmp, PATH);
#  - a second daemon on the same runtime directory refuses to start, the first stays reachable;
#    a runtime directory others may write to is refused;
#  - a memory.reclaim write that never returns (a FIFO here) stops the watchdog pings, and
#    SIGTERM still ends the daemon within the stop timeout.
set -euo pipefail
mglrud=$1 ctl=$2 src=$3
. "$(dirname "$0")/lib-mglrud.sh"
copy_tree "$src"

# --- metrics file and symlinks ---------------------------------------------------------------
echo secret > "$tmp/victim"
ln -s "$tmp/victim" "$tmp/m.prom.tmp"
start_daemon --metrics-file "$tmp/m.prom"
wait_estimates
for _ in $(seq 50); do [[ -f $tmp/m.prom ]] && break; sleep 0.1; done
[[ -f $tmp/m.prom && ! -L $tmp/m.prom ]] || fail "no metrics file"
[[ $(cat "$tmp/victim") == secret ]] || fail "metrics written through the symlink m.prom.tmp"
rm -f "$tmp/m.prom"; ln -s "$tmp/victim" "$tmp/m.prom"
sleep 1.5
[[ $(cat "$tmp/victim") == secret ]] || fail "metrics written through the symlink m.prom"
grep -q '^mglrud_cycles_total ' "$tmp/m.prom" || fail "the symlink at m.prom was not replaced"
ls -a "$tmp" | grep -q '^\.m\.prom\.' && fail "temporary metrics file left behind"

# --- one daemon per runtime directory ----------------------------------------------------------
rc=0
timeout 10 "$mglrud" --interval 1s --dry-run --runtime-dir "$tmp" --config "$tree/mglrud.conf" \
        --cgroup-root "$tree/cgroup" --debugfs-root "$tree/debugfs" --proc-root "$tree/proc" \
        >"$tmp/second.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "second daemon on $tmp: exit $rc, expected 1: $(cat "$tmp/second.log")"
grep -q "Another mglrud (pid $pid) serves $tmp" "$tmp/second.log" || fail "second daemon: $(cat "$tmp/second.log")"
ctl status >/dev/null || fail "the first daemon is no longer reachable"
kill "$pid"; wait "$pid" || fail "first daemon exit status $?"
pid=

unsafe=$(mktemp -d); chmod 0777 "$unsafe"
rc=0
timeout 10 "$mglrud" --interval 1s --dry-run --runtime-dir "$unsafe" --config "$tree/mglrud.conf" \
        --cgroup-root "$tree/cgroup" --debugfs-root "$tree/debugfs" --proc-root "$tree/proc" \
        >"$tmp/unsafe.log" 2>&1 || rc=$?
rm -rf "$unsafe"
[[ $rc == 1 ]] || fail "world-writable runtime dir: exit $rc, expected 1"
grep -q "writable by it alone" "$tmp/unsafe.log" || fail "unsafe dir: $(cat "$tmp/unsafe.log")"

# --- a write that never returns ----------------------------------------------------------------
cg="$tree/cgroup/work load.slice/a b"
mkfifo "$cg/memory.reclaim"
cat > "$tree/stuck.conf" <<'EOC'
[/work load.slice/a b]
Mode=pressure
ReclaimRatio=1%
EOC
python3 - "$tmp/notify" "$tmp/pings" <<'EOP' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "w", buffering=1) as out:
    while True:
        msg = s.recv(4096).decode(errors="replace")
        if "WATCHDOG=1" in msg:
            out.write("%.3f\n" % time.monotonic())
EOP
listener=$!
for _ in $(seq 50); do [[ -S $tmp/notify ]] && break; sleep 0.1; done
NOTIFY_SOCKET=$tmp/notify WATCHDOG_USEC=2000000 "$mglrud" --interval 1s --runtime-dir "$tmp" \
        --config "$tree/stuck.conf" --cgroup-root "$tree/cgroup" --debugfs-root "$tree/none" \
        --proc-root "$tree/proc" --log-level debug >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "no longer pinging the watchdog" "$tmp/log" && break; sleep 0.1; done
grep -q "no longer pinging the watchdog" "$tmp/log" || fail "the stuck write was not noticed"
n1=$(wc -l <"$tmp/pings")
[[ $n1 -ge 1 ]] || fail "no watchdog ping before the write got stuck"
sleep 3
n2=$(wc -l <"$tmp/pings")
[[ $n2 == "$n1" ]] || fail "watchdog pinged while the writer was stuck ($n1 -> $n2)"
t0=$(date +%s)
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
t=$(( $(date +%s) - t0 ))
kill "$listener" 2>/dev/null || true
[[ $t -le 15 ]] || fail "SIGTERM took ${t}s with a stuck write"
grep -q "stuck in a write" "$tmp/log" || fail "no line about the stuck writer at exit"
echo "host faults: metrics symlinks ignored, one daemon per runtime dir, stuck write: pings stopped after $n1, exit in ${t}s (rc $rc)"
