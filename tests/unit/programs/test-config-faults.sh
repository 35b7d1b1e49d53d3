#!/bin/bash
# Configuration faults (issue list "smaller ones"), on a copy of the 7.3 fixture tree:
#  - a missing --config file is an error, for --check-config and for a reload (which keeps the
#    cgroups managed);
#  - mglructl reload prints the parse error once ("Reload failed: FILE:LINE: ...");
#  - --interval is capped like Interval=;
#  - a file linked in from elsewhere does not have its text echoed in errors;
#  - as root, a config file others may write is refused;
#  - with StreamProtection=no everywhere ([Defaults] only) and RefaultCheck=no no BPF program is
#    loaded;
#  - loading sections is linear: 40,000 take about 4 times as long as 10,000, not 16.
set -euo pipefail
mglrud=$1 ctl=$2 src=$3
. "$(dirname "$0")/lib-mglrud.sh"
copy_tree "$src"
conf=$tree/mglrud.conf

rc=0; "$mglrud" --check-config --config "$tree/typo.conf" >"$tmp/out" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "--check-config on a missing file: exit $rc"
grep -q "$tree/typo.conf: No such file or directory" "$tmp/out" || fail "missing file: $(cat "$tmp/out")"

rc=0; "$mglrud" --check-config --config "$conf" --interval 100000h >"$tmp/out" 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--interval 100000h: exit $rc"
grep -q "from 100ms to 1h" "$tmp/out" || fail "--interval: $(cat "$tmp/out")"

# Reload errors reach mglructl, once.
mkdir -p "$conf.d"
start_daemon
wait_estimates
printf '[/work load.slice/b]\nMaxStep=banana\n' > "$conf.d/50-bad.conf"
rc=0; ctl reload 2>"$tmp/err" || rc=$?
[[ $rc == 1 ]] || fail "reload with a broken drop-in: exit $rc"
[[ $(cat "$tmp/err") == "Reload failed: $conf.d/50-bad.conf:2: [/work load.slice/b] MaxStep=banana: invalid size" ]] ||
        fail "reload error: $(cat "$tmp/err")"
rm "$conf.d/50-bad.conf"
# A file linked in by mistake: its text is not echoed.
printf 'root:$y$j9T$SECRETHASH:19000:0:99999:7:::\n' > "$tmp/shadow"
chmod 0640 "$tmp/shadow"
ln -s "$tmp/shadow" "$conf.d/60-link.conf"
rc=0; ctl reload 2>"$tmp/err" || rc=$?
[[ $rc == 1 ]] || fail "reload with a linked non-config file: exit $rc"
grep -q "60-link.conf:1: expected Key=Value or \[Section\]" "$tmp/err" || fail "link: $(cat "$tmp/err")"
grep -q SECRETHASH "$tmp/err" "$tmp/log" && fail "the linked file's text was echoed"
rm "$conf.d/60-link.conf"
# The main file removed: the reload fails and every cgroup stays managed.
mv "$conf" "$conf.away"
rc=0; ctl reload 2>"$tmp/err" || rc=$?
[[ $rc == 1 ]] || fail "reload without the main file: exit $rc"
grep -q "Reload failed: $conf: No such file or directory" "$tmp/err" || fail "$(cat "$tmp/err")"
ctl status | grep -q "Advising on 2 cgroups" || fail "cgroups dropped after a failed reload"
mv "$conf.away" "$conf"
kill "$pid"; wait "$pid" || fail "exit status $?"
pid=

if [[ $(id -u) == 0 ]]; then
        chmod 0666 "$conf"
        rc=0; "$mglrud" --check-config --config "$conf" >"$tmp/out" 2>&1 || rc=$?
        [[ $rc == 1 ]] || fail "a world-writable config was accepted"
        grep -q "writable by everyone (mode 0666): refusing it" "$tmp/out" || fail "$(cat "$tmp/out")"
        chmod 0644 "$conf"
fi

# StreamProtection=no in [Defaults] only and RefaultCheck=no (its own count comes from the same
# program; RefaultGuard= reads it too, but only with an event loop, which --once has not):
# nothing to load. (On a host that can load the program, the same daemon without the
# lines loads it: the control.)
once() { "$mglrud" --once --dry-run --config "$1" --cgroup-root "$tree/cgroup" \
                --debugfs-root "$tree/debugfs" --proc-root "$tree/proc" 2>&1 >/dev/null; }
sed 's/^\[Defaults\]$/[Defaults]\nStreamProtection=no/; s/^\[Daemon\]$/[Daemon]\nRefaultCheck=no/' \
        "$conf" > "$tree/nostream.conf"
out=$(once "$tree/nostream.conf")
grep -q "tracking page-cache insertions" <<<"$out" && fail "BPF loaded with StreamProtection=no everywhere"
grep -q "RefaultCheck" <<<"$out" && fail "RefaultCheck=no still spoke: $out"
with=$(once "$conf" | grep -c "Stream protection" || true)
[[ $with -ge 1 ]] || fail "the control run did not mention stream protection"

# Linear loading: 10,000 and 40,000 sections.
gen() { for i in $(seq "$1"); do printf '[/s%d/*]\nMaxStep=%dM\n' "$i" $((i % 64 + 1)); done > "$2"; }
gen 10000 "$tree/s10k.conf"
gen 40000 "$tree/s40k.conf"
t() { local s; s=$(date +%s%N); "$mglrud" --check-config --config "$1" >/dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); }
a=$(t "$tree/s10k.conf"); b=$(t "$tree/s40k.conf")
[[ $b -lt $((a * 8 + 200)) ]] || fail "40,000 sections took ${b} ms, 10,000 took ${a} ms: not linear"
echo "config faults: ok; sections 10k ${a} ms, 40k ${b} ms"
