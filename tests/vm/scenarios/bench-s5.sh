# bench-s5: do no harm when everything is hot. Random 4 KiB reads with a Zipf (theta 0.9)
# popularity over /data/cold.bin (384 MiB) in a memcg of 144 MiB: the proportions of fio's
# zipf:0.9 over 512 MiB in 192 MiB. The page cache is all in use (the tail thrashes, the head
# stays); mglrud in Mode=active must not lower the read rate. Variants alternate, none then
# active, MGLRUD_ARG_runs times each (default 3), each in a fresh cgroup after dropping the
# page cache; the rate is measured over the last MGLRUD_ARG_measure seconds (default 60) after
# MGLRUD_ARG_warm seconds (default 20).
need_bin zipf-read
need_bin mglrud
RUNS="${MGLRUD_ARG_runs:-3}"
WARM="${MGLRUD_ARG_warm:-20}"
MEASURE="${MGLRUD_ARG_measure:-60}"
cat > /tmp/s5.conf <<'EOC'
[Daemon]
Interval=2s

[/s5.slice/*]
Mode=active
MinColdAge=20s
MaxColdAge=2min
EOC

run_one() { # VARIANT RUN
	local v="$1" n="$2" cg="s5.slice/$1-$2" d_pid="" rate steal0 steal1
	sync; echo 3 > /proc/sys/vm/drop_caches
	cg_create "$cg" 144M
	if [ "$v" = active ]; then
		mglrud --config /tmp/s5.conf --cgroup-root /sys/fs/cgroup > "/tmp/mglrud-$v-$n.log" 2>&1 &
		d_pid=$!
	fi
	steal0=$(cg_stat "$cg" pgsteal_proactive)
	cg_run "$cg" "/tmp/zipf-$v-$n.log" zipf-read --file /data/cold.bin --theta 0.9 \
		--duration $((WARM + MEASURE)) --report "$MEASURE" --seed $((n * 7919))
	local w=$WL_PID
	wait_event "/tmp/zipf-$v-$n.log" ready 60 || fail "zipf-read did not start"
	wait "$w"
	steal1=$(cg_stat "$cg" pgsteal_proactive)
	[ -n "$d_pid" ] && { kill "$d_pid"; wait "$d_pid"; }
	# The report at WARM + MEASURE covers the measured window only when WARM < MEASURE.
	rate=$(grep '^event=done ' "/tmp/zipf-$v-$n.log" | tr ' ' '\n' | sed -n 's/^rate=//p')
	window=$(grep '^event=report ' "/tmp/zipf-$v-$n.log" | tail -n 1 | tr ' ' '\n' | sed -n 's/^rate=//p')
	result "s5_${v}_${n}_rate" "${window:-$rate}"
	result "s5_${v}_${n}_pgsteal_proactive" "$((steal1 - steal0))"
	log "s5 $v run $n: ${window:-$rate} reads/s over the last ${MEASURE}s, proactive steals $((steal1 - steal0))"
	echo "${window:-$rate}" >> "/tmp/rates-$v"
	[ -f "/tmp/mglrud-$v-$n.log" ] && result_file "mglrud-$v-$n.log" "/tmp/mglrud-$v-$n.log"
	return 0
}

for n in $(seq 1 "$RUNS"); do
	run_one none "$n"
	run_one active "$n"
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mn=$(median /tmp/rates-none); ma=$(median /tmp/rates-active)
ratio=$(awk -v a="$ma" -v b="$mn" 'BEGIN { printf "%.3f", a / b }')
result s5_median_none "$mn"
result s5_median_active "$ma"
result s5_ratio "$ratio"
log "S5 medians over $RUNS runs: none $mn reads/s, active $ma reads/s, ratio $ratio"
pass "S5: active/none median read rate $ratio"
