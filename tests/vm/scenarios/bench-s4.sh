# bench-s4 (tests/bench/run-bench.sh, not a meson test): Mode=advise estimates the cold anon of
# an anon-tiers cgroup for MGLRUD_ARG_advise seconds, then the config is switched to Mode=active
# (SIGHUP reload, same daemon, same state) for MGLRUD_ARG_active seconds; reports the last
# advise estimate and what active reclaimed. Workload: cold 240, warm 64 every 30 s, hot 32 MiB.
# MGLRUD_ARG_assert=1 (the CI version, meson test advise-vs-active) fails unless the advise
# estimate is within MGLRUD_ARG_tolerance percent (default 20) of what active reclaimed, the hot
# set stays >= 95% resident and mglrud exits 0. Also: warmiv (warm set period, default 30 s),
# settle (end the active phase once pgsteal_proactive has not moved for that many seconds,
# at most MGLRUD_ARG_active seconds; default 0: always MGLRUD_ARG_active).
# At the end of the advise phase the idle-age profile is read through mglructl (advise, --json,
# metrics, report --svg/--html: sent as result files). MGLRUD_ARG_profile=1 (meson test
# advise-vs-active) also fails unless the profile's forecast at T is within the tolerance of what
# active reclaimed, and the re-access rate is high (>= 5% per minute) at the rung where the warm
# set shows (MGLRUD_ARG_warmrung, default 10 s) and near zero (<= 1%) at the rung only the cold
# set reaches (MGLRUD_ARG_coldrung, default 30 s). For that the warm set's period must lie
# between T/2 (the ageing cadence: else it is used again before every ageing and never leaves
# the two youngest generations) and T (it then looks idle for at most T, about twice the
# cadence), and the cold rung must be above T.
need_bin mglrud
need_bin mglructl
ADV="${MGLRUD_ARG_advise:-60}" ACT="${MGLRUD_ARG_active:-120}"
COLD="${MGLRUD_ARG_cold:-240}" WARM="${MGLRUD_ARG_warm:-64}" HOT="${MGLRUD_ARG_hot:-32}"
CG="bench.slice/s4"
cg_create "$CG" 800M
conf() {
	cat > /tmp/s4.conf <<EOC
[Daemon]
Interval=2s

[/bench.slice/s4]
Mode=$1
MinColdAge=${MGLRUD_ARG_mincold:-20s}
MaxColdAge=${MGLRUD_ARG_maxcold:-2min}
MaxStep=${MGLRUD_ARG_maxstep:-16M}
EOC
}
run_anon_tiers "$CG" /tmp/wl.log 120 --cold "$COLD" --warm "$WARM" --hot "$HOT" --warm-interval "${MGLRUD_ARG_warmiv:-30}" --duration 0 --report 5
WL=$WL_PID
conf advise
mglrud --cgroup-root /sys/fs/cgroup --config /tmp/s4.conf --log-level debug --runtime-dir /run/mglrud \
	> /tmp/mglrud.log 2>&1 &
D_PID=$!
sleep "$ADV"
adv_lines=$(grep -c 'cold anon' /tmp/mglrud.log)
last=$(grep 'cold anon' /tmp/mglrud.log | tail -n 1)
# The idle-age profile as the advise phase leaves it.
ctl() { timeout 60 mglructl --runtime-dir /run/mglrud "$@"; }
ctl metrics > /tmp/metrics-advise.prom 2>&1
ctl advise > /tmp/advise.txt 2>&1
ctl --json advise > /tmp/advise.json 2>&1
ctl report --svg /tmp/report.svg --html /tmp/report.html > /tmp/report.err 2>&1
# prom NAME EXTRA: the sum of NAME's samples of this cgroup whose labels contain EXTRA.
prom() { awk -v p="$1{cgroup=\"/$CG\"" -v x="$2" 'index($0, p) == 1 && (x == "" || index($0, x)) { s += $NF; f = 1 } END { if (f) printf "%.10g\n", s }' /tmp/metrics-advise.prom; }
fc_T=$(prom mglrud_forecast_free_bytes 'threshold="T"')
adv_T=$(prom mglrud_cold_age_threshold_seconds '')
WARMRUNG="${MGLRUD_ARG_warmrung:-10}" COLDRUNG="${MGLRUD_ARG_coldrung:-30}"
re_warm=$(prom mglrud_idle_reaccess_ratio_per_minute "ge=\"$WARMRUNG\"")
re_cold=$(prom mglrud_idle_reaccess_ratio_per_minute "ge=\"$COLDRUNG\"")
steal0=$(cg_stat "$CG" pgsteal_proactive)
conf active
kill -HUP "$D_PID"
t0=$(date +%s)
if [ "${MGLRUD_ARG_settle:-0}" -gt 0 ]; then
	# Until reclaim has settled (pgsteal_proactive unchanged for settle seconds after it
	# started) or ACT seconds: eviction speed under TCG varies 10x with the host's load.
	last_steal=$steal0 still=0
	while [ $(( $(date +%s) - t0 )) -lt "$ACT" ]; do
		sleep 2
		s=$(cg_stat "$CG" pgsteal_proactive)
		if [ "$s" = "$last_steal" ] && [ "$s" -gt "$steal0" ]; then still=$((still + 2)); else still=0; fi
		last_steal=$s
		[ "$still" -ge "${MGLRUD_ARG_settle}" ] && break
	done
else
	sleep "$ACT"
fi
kill -TERM "$D_PID"; wait "$D_PID"; drc=$?
steal1=$(cg_stat "$CG" pgsteal_proactive)
t1=$(date +%s)
nrep=$(grep -c '^event=report ' /tmp/wl.log); i=0
while [ "$(grep -c '^event=report ' /tmp/wl.log)" -le "$nrep" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
result_file mglrud.log /tmp/mglrud.log
result_file anon-tiers.log /tmp/wl.log
for f in advise.txt advise.json metrics-advise.prom report.svg report.html report.err; do
	result_file "$f" "/tmp/$f"
done
result s4_profile_forecast_T_bytes "$fc_T"
result s4_profile_T_s "$adv_T"
result s4_reaccess_warm_rung "${WARMRUNG}s:$re_warm"
result s4_reaccess_cold_rung "${COLDRUNG}s:$re_cold"
result s4_advise_lines "$adv_lines"
result s4_advise_last "$(echo "$last" | tr ' ' '_')"
result s4_advise_cold_anon "$(echo "$last" | sed -n 's/.*cold anon \([^ ]*\) .*/\1/p')"
result s4_advise_T "$(echo "$last" | sed -n 's/.*T=\([^:;]*\).*/\1/p')"
result s4_active_s "$((t1 - t0))"
result s4_steal_pages "$((steal1 - steal0))"
result s4_swap_after "$(cg_read "$CG" memory.swap.current)"
result s4_cold_swapped_pct "$(event_get /tmp/wl.log report cold_swapped_kib | awk -v k="$(event_get /tmp/wl.log report cold_kib)" '{ printf "%.1f", 100 * $1 / k }')"
result s4_hot_present_kib "$(event_get /tmp/wl.log report hot_present_kib)"
result s4_mglrud_rc "$drc"
kill "$WL" 2>/dev/null
if [ "${MGLRUD_ARG_assert:-0}" = 1 ]; then
	est=$(echo "$last" | sed -n 's/.*cold anon \([^ ]*\) .*/\1/p')
	est_b=$(awk -v v="$est" 'BEGIN { m = 1; u = substr(v, length(v)); if (u == "K") m = 1024; else if (u == "M") m = 1048576; else if (u == "G") m = 1073741824
		if (m > 1) v = substr(v, 1, length(v) - 1); printf "%.0f", v * m }')
	got_b=$(( (steal1 - steal0) * 4096 ))
	hot_pct=$(event_get /tmp/wl.log report hot_present_kib | awk -v k="$(event_get /tmp/wl.log report hot_kib)" '{ printf "%.1f", 100 * $1 / k }')
	msg="advise estimated $est, active reclaimed $((got_b / 1048576)) MiB in $((t1 - t0)) s, hot set $hot_pct% resident"
	[ "$drc" = 0 ] || fail "mglrud exited $drc; $msg"
	[ "$got_b" -gt 0 ] || fail "active reclaimed nothing; $msg"
	awk -v e="$est_b" -v g="$got_b" -v tol="${MGLRUD_ARG_tolerance:-20}" 'BEGIN { d = (e - g) / g * 100; exit !(d <= tol && d >= -tol) }' ||
		fail "estimate off by more than ${MGLRUD_ARG_tolerance:-20}%: $msg"
	awk -v h="$hot_pct" 'BEGIN { exit !(h >= 95) }' || fail "hot set evicted: $msg"
	[ "${MGLRUD_ARG_profile:-0}" = 1 ] || pass "$msg"
fi
if [ "${MGLRUD_ARG_profile:-0}" = 1 ]; then
	got_b=$(( (steal1 - steal0) * 4096 ))
	msg="profile at T=${adv_T}s: would free $((${fc_T:-0} / 1048576)) MiB, active reclaimed $((got_b / 1048576)) MiB; re-access per minute at ${WARMRUNG}s ${re_warm:-none}, at ${COLDRUNG}s ${re_cold:-none}"
	[ "$drc" = 0 ] || fail "mglrud exited $drc; $msg"
	[ -n "$fc_T" ] && [ "$got_b" -gt 0 ] || fail "no forecast or nothing reclaimed; $msg"
	awk -v e="$fc_T" -v g="$got_b" -v tol="${MGLRUD_ARG_tolerance:-20}" 'BEGIN { d = (e - g) / g * 100; exit !(d <= tol && d >= -tol) }' ||
		fail "forecast off by more than ${MGLRUD_ARG_tolerance:-20}%: $msg"
	[ -n "$re_warm" ] && [ -n "$re_cold" ] || fail "re-access not measured at both rungs; $msg"
	awk -v w="$re_warm" -v c="$re_cold" 'BEGIN { exit !(w >= 0.05 && c <= 0.01) }' ||
		fail "re-access not high for the warm set and near zero for the cold set: $msg"
	grep -q '<svg ' /tmp/report.svg || fail "no picture: $(cat /tmp/report.err)"
	pass "$msg"
fi
pass "s4 done"
