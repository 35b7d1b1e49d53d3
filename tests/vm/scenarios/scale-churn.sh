# scale-churn: cgroups coming and going while mglrud manages them in active mode (issue 14).
# STABLE cgroups under /stable.slice hold a small process throughout; after SETTLE seconds,
# COUNT cgroups under /swarm.slice are created and removed continuously for SECONDS (cgroup-swarm
# churn: each with a process that allocates 256 KiB and exits after 1-10 s, its cgroup removed and
# a new one made), then SETTLE seconds more. mglrud (Mode=active, Interval=2s, lru_gen ageing of
# every new lruvec at once) runs under cycle-meter, which samples its RSS every 2 s.
# Asserts:
#  - the daemon kept cycling and exits 0 on SIGTERM;
#  - no write for a cgroup after the daemon logged "No longer managing" it (its queued jobs are
#    cancelled, its running one stops after the write in flight, whose line then ends "stopped
#    while it ran)": it began before the drop); writes racing a removal are refused by the kernel (EINVAL: memcg gone; ENOENT:
#    memory.reclaim gone), counted at debug and reported, not counted as failures;
#  - no flood of warnings or errors: at most 5 lines;
#  - RSS after the churn (every churned cgroup gone, two rescans later) within 1 MiB of RSS before
#    it (the median of the samples of the last 10 s of each quiet phase). Not checked for an ASan
#    build, whose allocator keeps freed memory in quarantine (reported only).
# Also reported, not asserted: the daemon's own cgroup (/mglrud.slice) before, at the end of and
# after the churn: memory.current, which a unit's MemoryMax= limits, counts kernel memory charged
# to the daemon (its open files and their seq_file buffers) besides its RSS.
# Args: count (1000), seconds (120), settle (30), stable (20), nofile (1048576: the daemon's
# RLIMIT_NOFILE; a lower one makes it keep fewer memory files open, see "Descriptor limit").
need_bin mglrud
need_bin cgroup-swarm
need_bin cycle-meter
COUNT="${MGLRUD_ARG_count:-1000}"
SECONDS_CHURN="${MGLRUD_ARG_seconds:-120}"
SETTLE="${MGLRUD_ARG_settle:-30}"
STABLE="${MGLRUD_ARG_stable:-20}"
NOFILE="${MGLRUD_ARG_nofile:-1048576}"
ulimit -n 1048576 || fail "cannot raise RLIMIT_NOFILE"

cgroup-swarm --root "$CG_ROOT/stable.slice" --count "$STABLE" hold > /tmp/stable.log 2>&1 &
STABLE_PID=$!
wait_event /tmp/stable.log ready 120 || fail "the stable cgroups did not start"
cat > /tmp/churn.conf <<EOC
[Daemon]
Interval=2s

[Defaults]
MinColdAge=10s
MaxColdAge=20s

[/stable.slice/*]
Mode=active

[/swarm.slice/*]
Mode=active
EOC

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }'; }
tm=$(uptime_s)
mkdir -p "$CG_ROOT/mglrud.slice"
# "current_kib=… anon_kib=… file_kib=… kernel_kib=… slab_kib=… sock_kib=… percpu_kib=…"
daemon_memcg() {
	printf 'current_kib=%d' $(( $(cat "$CG_ROOT/mglrud.slice/memory.current") / 1024 ))
	awk '$1 ~ /^(anon|file|kernel|slab|sock|percpu)$/ { printf " %s_kib=%d", $1, $2 / 1024 }' \
		"$CG_ROOT/mglrud.slice/memory.stat"
}
sh -c 'echo $$ > "$1/mglrud.slice/cgroup.procs" && ulimit -n "$2" && shift 2 && exec "$@"' sh "$CG_ROOT" "$NOFILE" \
	cycle-meter --cycles 0 --rss-every 2 --timeout 3600 -- mglrud --config /tmp/churn.conf \
	--cgroup-root "$CG_ROOT" --log-level debug > /tmp/meter.txt 2> /tmp/mglrud.log &
METER=$!
sleep "$SETTLE"
churn_start=$(since "$tm")
memcgs_before=$(grep -c '^memcg' "$LRU_GEN")
memcg_before=$(daemon_memcg)
cgroup-swarm --root "$CG_ROOT/swarm.slice" --count "$COUNT" --log /tmp/removed.log churn "$SECONDS_CHURN" \
	> /tmp/swarm.log 2> /tmp/swarm.err
swarm_rc=$?
churn_end=$(since "$tm")
memcg_churn_end=$(daemon_memcg)
sleep "$SETTLE"
stop_at=$(since "$tm")
memcgs_after=$(grep -c '^memcg' "$LRU_GEN")
memcg_after=$(daemon_memcg)
alive=0
pid=$(pidof mglrud) && alive=1 && kill -TERM $pid
wait "$METER"
kill -TERM "$STABLE_PID"
wait "$STABLE_PID"
result daemon_alive_at_end "$alive"
result churn_start_s "$churn_start"
result churn_end_s "$churn_end"
# Removed cgroups stay listed in lru_gen while their memcgs die (zombies): the daemon parses them.
result lru_gen_memcgs_before "$memcgs_before"
result lru_gen_memcgs_after "$memcgs_after"
result daemon_memcg_before "$memcg_before"
result daemon_memcg_churn_end "$memcg_churn_end"
result daemon_memcg_after "$memcg_after"

result_file meter.txt /tmp/meter.txt
result_file swarm.log /tmp/swarm.log
result_file swarm.err /tmp/swarm.err
result swarm_rc "$swarm_rc"
result created "$(event_get /tmp/swarm.log done created)"
result removed "$(event_get /tmp/swarm.log done removed)"
result cycles "$(grep -c '^cycle=' /tmp/meter.txt)"
drc=$(sed -n 's/^exit status=//p' /tmp/meter.txt)
result mglrud_exit "$drc"

# The RSS curve: "rss t=S rss_kib=K" every 2 s; the start and end levels are the medians of the
# last 10 s of each quiet phase.
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
rss_at() { awk -v lo="$1" -v hi="$2" '$1 == "rss" { split($2, t, "="); split($3, r, "=");
	if (t[2] >= lo && t[2] < hi) print r[2] }' /tmp/meter.txt | med; }
rss_start=$(rss_at $((churn_start - 10)) "$churn_start")
rss_end=$(rss_at $((stop_at - 10)) "$stop_at")
rss_peak=$(awk '$1 == "rss" { split($3, r, "="); if (r[2] > m) m = r[2] } END { print m + 0 }' /tmp/meter.txt)
result rss_start_kib "$rss_start"
result rss_end_kib "$rss_end"
result rss_peak_kib "$rss_peak"
# The curve, every 10 s: "t:RSS/RssAnon" in KiB.
result rss_curve "$(awk '$1 == "rss" { split($2, t, "="); split($3, r, "="); split($5, a, "=");
	if (t[2] >= next_t) { printf "%s%d:%d/%d", sep, t[2], r[2], a[2]; sep = ","; next_t += 10 } }' /tmp/meter.txt)"

# Writes, from the debug log: "PATH: lru_gen age|lru_gen evict|memory.reclaim of … took … (RESULT)".
awk '
	/No longer managing / { p = $0; sub(/^.*No longer managing /, "", p); sub(/\.$/, "", p); gone[p] = 1; dropped++; next }
	/: (lru_gen age|lru_gen evict|memory.reclaim) of .* took / {
		p = $0; sub(/^debug: /, "", p); sub(/: (lru_gen age|lru_gen evict|memory.reclaim) of .*$/, "", p)
		writes++
		if ($0 ~ /\(ok(\)|;)/) ok++
		# A write that began before the drop (its job stopped while it ran) is not after it.
		if ((p in gone) && $0 !~ /stopped while it ran\)$/) {
			after_drop++
			print NR ": " $0 > "/tmp/after-drop.txt"
		}
	}
	/refused \(EINVAL\): stale/ { stale++ }
	/^(warning|error): / { warn++ }
	END { printf "dropped=%d writes=%d ok=%d refused_stale=%d after_drop=%d warnings=%d\n",
		dropped, writes, ok, stale, after_drop, warn }' /tmp/mglrud.log > /tmp/writes.txt
log "$(cat /tmp/writes.txt)"
for k in dropped writes ok refused_stale after_drop warnings; do
	result "$k" "$(tr ' ' '\n' < /tmp/writes.txt | sed -n "s/^$k=//p")"
done
# Each write after a drop with the lines about its cgroup before it: what to look at if one shows.
: > /tmp/after-drop-context.txt
if [ -s /tmp/after-drop.txt ]; then
	head -n 5 /tmp/after-drop.txt | while IFS= read -r l; do
		n=${l%%:*} path=$(printf '%s\n' "$l" | sed -E 's/^[0-9]+: (debug: )?//; s/: (lru_gen age|lru_gen evict|memory.reclaim) of .*$//')
		{ echo "== $l"; head -n "$n" /tmp/mglrud.log | grep -nF "$path" | tail -n 8; } >> /tmp/after-drop-context.txt
	done
fi
result_file after-drop.txt /tmp/after-drop-context.txt
grep -E '^(warning|error): ' /tmp/mglrud.log | sort | uniq -c | sort -rn | head -n 20 > /tmp/warnings.txt
result_file warnings.txt /tmp/warnings.txt
grep -v '^debug: ' /tmp/mglrud.log | tail -n 50 > /tmp/mglrud-tail.log
result_file mglrud-tail.log /tmp/mglrud-tail.log

get() { tr ' ' '\n' < /tmp/writes.txt | sed -n "s/^$1=//p"; }
assert_eq "$swarm_rc" 0 "cgroup-swarm churn (see swarm.err)"
assert_gt "$(event_get /tmp/swarm.log done removed)" "$COUNT" "cgroups removed during the churn"
assert_eq "$alive" 1 "mglrud running when the churn was over"
assert_eq "$drc" 0 "mglrud exit status on SIGTERM"
assert_gt "$(get dropped)" 0 "cgroups the daemon stopped managing"
assert_gt "$(get ok)" 0 "writes that the kernel took"
assert_eq "$(get after_drop)" 0 "writes for a cgroup after 'No longer managing' it"
assert_le "$(get warnings)" 5 "warning and error lines (see warnings.txt)"
assert_match "$rss_start" '^[0-9]+$' "RSS before the churn"
assert_match "$rss_end" '^[0-9]+$' "RSS after the churn"
if grep -q __asan_init /usr/bin/mglrud; then
	result rss_check "skipped (ASan build)"
else
	d=$((rss_end - rss_start))
	assert_le "${d#-}" 1024 "RSS after the churn within 1 MiB of before ($rss_start -> $rss_end KiB)"
fi
pass "$(get dropped) cgroups dropped, $(get writes) writes ($(get refused_stale) refused as stale), RSS $rss_start -> $rss_end KiB (peak $rss_peak)"
