#!/bin/bash
# The private socket under abuse by an unprivileged user (uid 65534), mglrud on the fixture tree:
#  - 1,100 idle connections: root's mglructl still gets through, the daemon does not spin, and
#    the idle ones are dropped;
#  - a message that claims 100 MB, and slow-drip messages: refused, the daemon's memory stays
#    flat (it held 300 MiB before the bus guard);
#  - with the daemon's descriptor limit at 64, a flood costs it no busy loop (EMFILE).
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
. "$(dirname "$0")/lib-mglrud.sh"
command -v setpriv >/dev/null || { echo "SKIP: setpriv missing"; exit 77; }
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# The unprivileged user must reach the interpreter (a per-user install under /root does not).
py=/usr/bin/python3
[[ -x $py ]] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }

# ASan's quarantine and allocator keep freed memory: measure what the daemon holds, not them.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:thread_local_quarantine_size_kb=64:allocator_release_to_os_interval_ms=100"
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }

start_daemon
wait_estimates
rss0=$(rss_kib)

# 1,100 idle connections held open for 4 s (the guard drops idle ones after 5 s).
"${nobody[@]}" "$py" - "$tmp/bus" 1100 4 <<'EOP' >"$tmp/idle.out" 2>&1 &
import socket, sys, time
path, n, hold = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
socks = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        socks.append(s)
    except OSError as e:
        print("connect:", e)
        break
print("open", len(socks))
time.sleep(hold)
EOP
idle=$!
sleep 1
t0=$(cpu_ticks)
start=$(date +%s%N)
out=$(ctl status) || fail "root's status failed during the flood"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q "Advising on 2 cgroups" <<<"$out" || fail "status: $out"
sleep 2
t1=$(cpu_ticks)
wait "$idle" || true
[[ $ms -lt 2000 ]] || fail "root's status took ${ms} ms during the flood"
[[ $((t1 - t0)) -lt 100 ]] || fail "the daemon burnt $((t1 - t0)) ticks in 2 s during the flood"
grep -q "Refused a bus connection of uid 65534" "$tmp/log" || fail "no refusal logged: $(tail "$tmp/log")"

# A 100 MB claim, and three slow drips of a 60K message (a byte every 50 ms).
"${nobody[@]}" "$py" - "$tmp/bus" <<'EOP' >"$tmp/big.out" 2>&1
import socket, struct, sys, time, threading
path = sys.argv[1]
def hello(s):
    s.sendall(b"\0AUTH ANONYMOUS\r\nBEGIN\r\n")
def big():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); hello(s)
    s.sendall(struct.pack("<cBBBIII", b"l", 1, 0, 1, 100 << 20, 1, 0))
    sent, chunk = 0, b"\0" * (1 << 16)
    try:
        while sent < (64 << 20):
            sent += s.send(chunk)
        print("big: sent %d MiB" % (sent >> 20))
    except OSError as e:
        print("big: closed by the daemon after %d KiB:" % (sent >> 10), e)
def drip(i):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); hello(s)
    s.sendall(struct.pack("<cBBBIII", b"l", 1, 0, 1, 60000, 2, 0))
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 8:
            s.send(b"\0"); time.sleep(0.05)
        print("drip", i, ": still open after 8 s")
    except OSError as e:
        print("drip", i, ": closed after %.1f s:" % (time.monotonic() - t0), e)
ts = [threading.Thread(target=big)] + [threading.Thread(target=drip, args=(i,)) for i in range(3)]
[t.start() for t in ts]; [t.join() for t in ts]
EOP
grep -qE "big: closed by the daemon after [0-9]{1,4} KiB" "$tmp/big.out" ||
        fail "100 MB message: $(cat "$tmp/big.out")"
[[ $(grep -c "closed after [0-6]\." "$tmp/big.out") == 3 ]] || fail "slow drips: $(cat "$tmp/big.out")"
rss1=$(rss_kib)
[[ $((rss1 - rss0)) -lt 16384 ]] || fail "RSS grew from $rss0 to $rss1 KiB"
ctl status >/dev/null || fail "status after the attacks"
kill "$pid"; wait "$pid" || fail "daemon exit status $?"
pid=

# Descriptors exhausted: EMFILE on accept must not spin.
(ulimit -n 64; exec "$mglrud" --interval 1s --dry-run --runtime-dir "$tmp" --config "$tree/mglrud.conf" \
        --cgroup-root "$tree/cgroup" --debugfs-root "$tree/debugfs" --proc-root "$tree/proc") >"$tmp/log" 2>&1 &
pid=$!
wait_estimates
"${nobody[@]}" "$py" - "$tmp/bus" 200 3 <<'EOP' >/dev/null 2>&1 &
import socket, sys, time
path, n, hold = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
socks = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try: s.connect(path)
    except OSError: pass
    socks.append(s)
time.sleep(hold)
EOP
flood=$!
sleep 0.5
t0=$(cpu_ticks); sleep 2; t1=$(cpu_ticks)
wait "$flood" || true
[[ $((t1 - t0)) -lt 100 ]] || fail "EMFILE: the daemon burnt $((t1 - t0)) ticks in 2 s"
sleep 6
ctl status >/dev/null || fail "status after the EMFILE flood"
echo "bus abuse: status in ${ms} ms under 1100 idle connections, RSS $rss0 -> $rss1 KiB, $(cat "$tmp/big.out" | tr '\n' ';')"
