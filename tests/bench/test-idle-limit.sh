#!/bin/bash
# idle-limit end to end on this host's kernel (clear_refs and smaps_rollup):
#   1. anon-tiers maps 48 MiB it never touches again and 16 MiB it writes continuously; 3 s
#      after the clear idle-limit must see ~48 MiB of anon idle and ~16 MiB referenced;
#   2. a tree whose child exits and another appears during the wait: both counted, no crash.
#   test-idle-limit.sh IDLE_LIMIT ANON_TIERS
set -u
IDLE="$1" ANON="$2"
[ -r /proc/self/smaps_rollup ] && [ -w /proc/self/clear_refs ] || { echo "SKIP: no smaps_rollup/clear_refs"; exit 77; }
TMP="$(mktemp -d)"
WL=""
cleanup() { [ -n "$WL" ] && kill "$WL" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# key KEY FILE: the value of KEY= on the first event=idle line.
key() { awk -v k="$2" '$1 == "event=idle" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) { print kv[2]; exit } } }' "$1"; }
in_mib() { # in_mib NAME KIB LO HI
	local v=$(( $2 / 1024 ))
	echo "$1 = $v MiB (want $3..$4)"
	[ "$v" -ge "$3" ] && [ "$v" -le "$4" ] || fail "$1 = $v MiB, not within $3..$4 MiB"
}

# 1. 48 MiB idle, 16 MiB hot (no TLB-flush scratch writes; reports far apart).
"$ANON" --cold 48 --warm 0 --hot 16 --duration 60 --report 100 > "$TMP/wl.log" 2>&1 &
WL=$!
for _ in $(seq 100); do grep -q '^event=ready' "$TMP/wl.log" && break; sleep 0.1; done
grep -q '^event=ready' "$TMP/wl.log" || fail "anon-tiers did not start: $(cat "$TMP/wl.log")"
"$IDLE" --pid "$WL" --at 3 > "$TMP/out" 2> "$TMP/err" || fail "idle-limit exited $?: $(cat "$TMP/err")"
cat "$TMP/out" "$TMP/err"
[ "$(key "$TMP/out" pids)" = 1 ] || fail "pids= is not 1"
in_mib "anon idle" "$(key "$TMP/out" anon_idle_kib)" 46 52
in_mib "anon referenced" "$(key "$TMP/out" anon_referenced_kib)" 15 19
# smaps_rollup's totals hold the program's file pages too: a little more either way.
in_mib "idle (rollup)" "$(key "$TMP/out" idle_kib)" 46 56
in_mib "referenced (rollup)" "$(key "$TMP/out" referenced_kib)" 15 22
kill "$WL"; wait "$WL" 2>/dev/null; WL=""

# 2. The first child exits after 1 s, the second appears then: at 2 s one exited, one appeared.
sh -c 'sleep 1; sleep 3; true' &
WL=$!
sleep 0.3
"$IDLE" --pid "$WL" --at 2 > "$TMP/out2" 2> "$TMP/err2" || fail "idle-limit exited $? on a changing tree: $(cat "$TMP/err2")"
cat "$TMP/out2" "$TMP/err2"
[ "$(key "$TMP/out2" exited)" = 1 ] || fail "exited= is not 1"
[ "$(key "$TMP/out2" appeared)" = 1 ] || fail "appeared= is not 1"
grep -q "exited (or left the set) before 2 s" "$TMP/err2" || fail "no note of the exit on stderr"
wait "$WL"; WL=""

# 3. The whole set gone before the first offset: exit 1 and say so.
sh -c 'sleep 0.5' &
WL=$!
"$IDLE" --pid "$WL" --at 1.5 > "$TMP/out3" 2> "$TMP/err3" && fail "idle-limit exited 0 with no process left"
grep -q "no process of the set is left" "$TMP/err3" || fail "no note that the set is gone: $(cat "$TMP/err3")"
wait "$WL"; WL=""
echo "ok"
