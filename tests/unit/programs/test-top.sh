#!/bin/bash
# mglructl top against mglrud --dry-run on the 7.3 fixture tree: "top --once" for scripts, then
# the live view inside tmux (both cgroups and the header shown, sort keys, 'q' exits cleanly and
# gives the terminal back: primary screen, canonical mode with echo).
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
tmp=$(mktemp -d)
sock=mglrud-top-$$ # a private tmux server
pid=
. "$(dirname "$0")/lib-reap.sh"
cleanup() {
        [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
        command -v tmux >/dev/null && tmux -L "$sock" kill-server 2>/dev/null || true
        reap_strays "$tmp"
        rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- daemon log:"; cat "$tmp/log" || true; exit 1; }

"$mglrud" --interval 1s --dry-run --runtime-dir "$tmp" --config "$tree/mglrud.conf" \
        --cgroup-root "$tree/cgroup" --debugfs-root "$tree/debugfs" --proc-root "$tree/proc" \
        >"$tmp/log" 2>&1 &
pid=$!
ctl() { "$ctl" --runtime-dir "$tmp" "$@"; }

# Estimates appear after the second cycle (the first is warmup).
for _ in $(seq 100); do
        [[ -S $tmp/bus ]] && ctl metrics 2>/dev/null | grep -q '^mglrud_cold_bytes{' && break
        sleep 0.1
done
[[ -S $tmp/bus ]] || fail "no socket $tmp/bus"

# --once: one plain frame on a pipe, no escape sequences.
out=$(ctl top --once) || fail "top --once exited $?"
grep -q '^mglrud .*: Advising on 2 cgroups' <<<"$out" || fail "top --once header: $out"
grep -q '^CGROUP  *MODE  *T  *.*COLD-A.*COLD-F  *PSI  *RECL-A  *RATE-A  *RECL-F  *RATE-F$' \
        <<<"$out" || fail "top --once column header: $out"
grep -qE '^/work load\.slice/a b +active +10s \[#+\] +[0-9.]+[KMG] ' <<<"$out" ||
        fail "top --once lacks the a b row with cold anon bytes: $out"
grep -qE '^/work load\.slice/b +advise +10s ' <<<"$out" || fail "top --once lacks b: $out"
[[ $(grep -c '^/work load.slice/' <<<"$out") == 2 ]] || fail "top --once rows: $out"
grep -q $'\033' <<<"$out" && fail "top --once printed escape sequences"
# --idle: the idle-age view, host first, "?" past the oldest generation.
out=$(ctl top --once --idle) || fail "top --once --idle exited $?"
grep -qE '^IDLE ≥ +OLDEST +AGED +10s +30s +1min +2min +5min +10min +30min +1h$' <<<"$out" ||
        fail "idle view column header: $out"
grep -qE '^host +41s +1\.8s +≥148M +≥26M +\? ' <<<"$out" || fail "idle view host row: $out"
grep -qE '^/work load\.slice/a b +18s +14s +122M +\? ' <<<"$out" || fail "idle view a b row: $out"
grep -qE '^/work load\.slice/b +1\.8s +1\.8s +\? ' <<<"$out" || fail "idle view b row: $out"
rc=0; ctl --interval 0 top --once 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "--interval 0: exit $rc, expected 2"
rc=0; "$ctl" --runtime-dir "$tmp/none" top --once 2>/dev/null || rc=$?
[[ $rc == 3 ]] || fail "top without a daemon: exit $rc, expected 3"

if ! command -v tmux >/dev/null; then
        echo "tmux not found: skipping the interactive checks"
        exit 77
fi
tm() { tmux -L "$sock" "$@"; }
screen() { tm capture-pane -p -t top; }
# wait_screen PATTERN: waits up to 5 s for the pane to match the extended regex.
wait_screen() {
        for _ in $(seq 50); do
                screen | grep -qE -- "$1" && return 0
                sleep 0.1
        done
        return 1
}
# The pane runs top, then records its exit code and the terminal modes, then waits.
tm new-session -d -x 120 -y 30 -s top \
        "'$ctl' --runtime-dir '$tmp' top --interval 500ms; echo \"EXIT=\$?\"; stty -a | tr -s ' ;\\n' '\\n' >'$tmp/stty'; echo DONE; sleep 60"
wait_screen '^/work load\.slice/b ' || fail "no top screen: $(screen)"
s=$(screen)
echo "--- top screen:"; echo "$s"
grep -q '^mglrud .*: Advising on 2 cgroups' <<<"$s" || fail "no header: $s"
grep -q 'sort: cold (keys c r p n i, q quits)' <<<"$s" || fail "no sort line: $s"
grep -qE '^/work load\.slice/a b +active +10s \[#+ *\] +[0-9.]+[KMG] ' <<<"$s" ||
        fail "no a b row: $s"
# Sorted by cold bytes: "a b" (cold anon) above "b" (nothing cold).
[[ $(grep '^/work load.slice/' <<<"$s" | head -1) == "/work load.slice/a b "* ]] ||
        fail "cold sort order: $s"
# The rates appear from the second refresh on.
wait_screen '^/work load\.slice/b .* 0B?/s +0B? +0B?/s *$' || fail "no rates: $(screen)"

tm send-keys -t top n
wait_screen 'sort: name' || fail "'n' did not sort by name: $(screen)"
tm send-keys -t top r
wait_screen 'sort: reclaimed' || fail "'r' did not sort by reclaimed: $(screen)"
tm send-keys -t top c
wait_screen 'sort: cold' || fail "'c' did not sort by cold: $(screen)"
# 'i' switches to the idle-age view and back.
tm send-keys -t top i
wait_screen '^/work load\.slice/a b +18s +14s +122M ' || fail "'i' did not show the idle view: $(screen)"
screen | grep -q 'view: idle age' || fail "idle view header: $(screen)"
tm send-keys -t top i
wait_screen 'sort: cold' || fail "'i' did not switch back: $(screen)"
tm resize-window -t top -x 90 -y 20 2>/dev/null || true
tm send-keys -t top q
wait_screen '^DONE$' || fail "top did not exit on q: $(screen)"
s=$(screen)
grep -qx 'EXIT=0' <<<"$s" || fail "top exit status: $s"
# Back on the primary screen: nothing of top's frame is left.
grep -q 'Advising on' <<<"$s" && fail "alternate screen not left: $s"
grep -qx icanon "$tmp/stty" && grep -qx echo "$tmp/stty" ||
        fail "terminal not restored: $(tr '\n' ' ' <"$tmp/stty")"
[[ $(tm display-message -p -t top '#{cursor_flag}') == 1 ]] || fail "cursor left hidden"

kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "mglrud exited $rc on SIGTERM"
echo "mglructl top: ok"
