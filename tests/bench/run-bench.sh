#!/bin/bash
# Benchmarks of mglrud on Debian's 7.3 kernel in QEMU (TCG). Not part of `meson test`.
#
#   tests/bench/run-bench.sh [--build-dir DIR] [--short] [--out DIR] [--runs N] [s1] [s4] [s3] [s2] [s5]
#                            [app-memcached]
#
# s1: anon tiers with zram (cold 240 MiB, warm 64 MiB touched every 30 s, hot 32 MiB, 180 s;
#     --short: 90 s, offload read at 60 s, warm refaults counted after 60 s) under three
#     variants, one guest boot each, run sequentially (throughput is timing-sensitive; the
#     workload is pinned to guest CPU 0 and everything else to CPU 1, see split_cpus):
#     none (kernel alone), active (mglrud Mode=active, lru_gen), pressure (Mode=pressure, TMO);
#     each round also runs every variant unpinned (pin=0, files s1u-*): the hot loop's
#     throughput against none's where the daemon shares the workload's CPUs, and the daemon's
#     cost (switches/s, CPU time) in a table of its own (--pinned-only skips those runs).
#     --s1-arg KEY=VALUE passes more arguments to tests/vm/scenarios/bench-s1.sh (e.g.
#     cg=StreamProtection:no, interval=10s).
# s4: Mode=advise for a while, its "cold anon X" estimate, then SIGHUP to Mode=active and what
#     active reclaims (pgsteal_proactive, swap) on the same workload.
# s3: swappiness sweep (--sweep LIST, default 1,36,71,106,141,176,200,auto) on the mixed workload:
#     anon share of what mglrud
#     (Mode=active, Swappiness=N) reclaimed vs one kernel memory.reclaim "64M swappiness=N" and
#     vs mglrud Mode=pressure (ReclaimRatio=2%, Swappiness=N).
# s2: hot 56 MiB file read at random (bursts of 2048 preads every 2 s, warmed by them for 20 s)
#     + 480 MiB streamed once at 16 MiB/s, memcg memory.max 100M, one guest boot, a fresh
#     cgroup per row: the hot reader alone, then per stream shape (big files; many small
#     files; a real grep -r over a tree of 4096 files of 8-256 KiB) no daemon, mglrud
#     Mode=active StreamProtection=no / yes, Mode=pressure (--short: 240 MiB, big shape only);
#     --s2-arg KEY=VALUE passes more arguments to tests/vm/scenarios/bench-s2.sh (e.g.
#     interval=10s, variants=none,prot,protcycle: protcycle is StreamProtection=yes with
#     StreamFastPath=no, drops at each cycle only).
# s5: do no harm when everything is hot: Zipf (0.9) random 4 KiB reads over 384 MiB in a 144 MiB
#     memcg (fio's zipf:0.9 over 512 MiB in 192 MiB, scaled to the data disk), no daemon and
#     mglrud Mode=active alternating, --runs N of each (default 3), one guest boot; prints the
#     read rates and the medians' ratio.
# app-memcached: memcached from Debian (the apps root image, mkrootfs.sh --apps) filled with
#     ~317 MiB by tests/bench/mc-zipf, then Zipf(0.99) gets (16 at once) for 240 s (--short: 120 s), zram,
#     variants none (kernel alone, with idle-limit on memcached), active (mglrud Mode=active,
#     MinColdAge=20s, MaxColdAge=2min) and damon (DAMON_RECLAIM, min_age 30 s, watermarks
#     opened), one boot each, --runs N rounds of the three interleaved (--variants LIST selects
#     some); a run whose output already holds a PASS is kept, not run again, so rounds can be
#     added to an --out directory one call at a time. Medians per variant. --app-arg KEY=VALUE
#     passes more arguments to tests/vm/scenarios/bench-app-memcached.sh (e.g. depth=1).
# Prints markdown tables; per-run results and logs are kept under --out (default
# build/bench-<date>). --runs N repeats each s1 variant and prints medians (runs missing from
# --out are left out of a median); --variants LIST (default none,active,pressure) runs only
# those s1 variants, the table still lists all three. --report-only prints the tables again
# from an existing --out directory without booting anything.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$ROOT/build" SHORT=0 OUT="" RUNS=1 SWEEP=1,36,71,106,141,176,200,auto
WHAT="" REPORT_ONLY=0 S2EXTRA=() S1EXTRA=() APPEXTRA=() VARIANTS="none active pressure" UNPINNED=1
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) BUILD="$2"; shift 2 ;;
	--short) SHORT=1; shift ;;
	--out) OUT="$2"; shift 2 ;;
	--runs) RUNS="$2"; shift 2 ;;
	--variants) VARIANTS="$(echo "$2" | tr ',' ' ')"; shift 2 ;;
	--report-only) REPORT_ONLY=1; shift ;;
	s1|s4|s3|s2|s5|app-memcached) WHAT="$WHAT $1"; shift ;;
	--sweep) SWEEP="$2"; shift 2 ;;
	--s2-arg) S2EXTRA+=(--arg "$2"); shift 2 ;;
	--s1-arg) S1EXTRA+=(--arg "$2"); shift 2 ;;
	--pinned-only) UNPINNED=0; shift ;;
	--app-arg) APPEXTRA+=(--arg "$2"); shift 2 ;;
	-h|--help) sed -n '2,47p' "$0"; exit 0 ;;
	*) echo "run-bench: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$WHAT" ] || WHAT="s1 s4"
OUT="${OUT:-$BUILD/bench-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
RS="$ROOT/tests/vm/run-scenario"
if [ "$SHORT" = 1 ]; then S1ARGS=(--arg duration=90 --arg mid=60 --arg settle=60); TMO=400
else S1ARGS=(--arg duration=180 --arg mid=90 --arg settle=120); TMO=600; fi

get() { [ -f "$1" ] || return 0; sed -n "s/^$2=//p" "$1" | tail -n 1; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }

if [[ " $WHAT " == *" s1 "* ]]; then
	# Interleaved: each round runs every variant pinned (s1-*), then unpinned (s1u-*, pin=0).
	for r in $(seq 1 "$RUNS"); do
		pins=1
		if [ "$UNPINNED" = 1 ]; then pins="1 0"; fi
		for pin in $pins; do
			if [ "$pin" = 0 ]; then pfx=s1u; else pfx=s1; fi
			for v in $VARIANTS; do
				d="$OUT/$pfx-$v-$r"
				echo "run-bench: $pfx $v run $r" >&2
				[ "$REPORT_ONLY" = 1 ] || "$RS" --build-dir "$BUILD" --timeout "$TMO" --mem 1G --zram 768M --files-dir "$d" \
					--log "$d.log" "${S1ARGS[@]}" "${S1EXTRA[@]}" --arg pin="$pin" --arg variant="$v" bench-s1 > "$d.out" 2>&1 ||
					echo "run-bench: s1 $v run $r failed (see $d.out)" >&2
			done
		done
	done
	# med VARIANT KEY [PREFIX]: the median over the runs of KEY (PREFIX s1, or s1u: unpinned).
	med() { for r in $(seq 1 "$RUNS"); do get "$OUT/${3:-s1}-$1-$r.out" "$2"; done | { grep -v "^$" || true; } | median; }
	# memory.current after = the next-to-last 5 s sample (the last may catch the exit).
	memafter() { for r in $(seq 1 "$RUNS"); do [ -f "$OUT/s1-$1-$r/series" ] && tail -n 2 "$OUT/s1-$1-$r/series" | head -n 1 | cut -d' ' -f2; done | median; }
	base=$(med none bench_hot_touches_total) base_rate=$(med none bench_hot_rate_median)
	echo
	echo "S1 anon tiers + zram ($([ "$SHORT" = 1 ] && echo "short: 90 s, mid 60 s, refaults after 60 s" || echo "180 s, mid 90 s, refaults after 120 s"); median of $RUNS)"
	pinned=$(for v in none active pressure; do med "$v" bench_cpus_split; done | sort -u | tr -d '\n')
	[ "$pinned" = 1 ] && echo "anon-tiers pinned to guest CPU 0; the daemon and the samplers on CPU 1 (split_cpus)."
	echo
	echo "| variant | cold offloaded @mid | cold offloaded @end | warm refaults after settle (% of warm) | hot loop vs none (total; median 5 s rate) | hot resident @end | memory.current before → after (MiB) | pgsteal_proactive (pages) | warm pass max (ms) |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for v in none active pressure; do
		ht=$(med "$v" bench_hot_touches_total)
		rel=$(awk -v a="$ht" -v b="$base" 'BEGIN { if (b > 0 && a != "") printf "%.2f", a / b; else print "n/a" }')
		rel="$rel; $(awk -v a="$(med "$v" bench_hot_rate_median)" -v b="$base_rate" 'BEGIN { if (b > 0 && a != "") printf "%.2f", a / b; else print "n/a" }')"
		printf '| %s | %s%% | %s%% | %s%% | %s | %s%% | %s → %s | %s | %s |\n' "$v" \
			"$(med "$v" bench_cold_off_mid)" "$(med "$v" bench_cold_off_end)" \
			"$(med "$v" bench_warm_refault_pct)" "$rel" "$(med "$v" bench_hot_present_pct)" \
			"$(mib "$(med "$v" bench_mem_before)")" "$(mib "$(memafter "$v")")" \
			"$(med "$v" bench_pgsteal_proactive)" "$(med "$v" bench_warm_pass_max_ms)"
	done
	# The daemon's cost, and the workload's throughput where it shares its CPUs with the
	# daemon (unpinned: how a server runs it); target (issue 24): >= 0.95 of none's.
	echo
	echo "S1 cost: the hot loop vs none's, pinned and unpinned (pin=0: workload, daemon and samplers on any CPU), and what the daemon cost (unpinned runs; context switches of all its threads per second, its CPU time over the run, the system's context switches per second)"
	echo
	echo "| variant | hot loop vs none, pinned (total; median 5 s rate) | hot loop vs none, unpinned (total; median 5 s rate) | daemon switches/s | daemon CPU (ms) | of it in the first 10 s | system switches/s | agings / decisions per min |"
	echo "|---|---|---|---|---|---|---|---|"
	ubase=$(med none bench_hot_touches_total s1u) ubase_rate=$(med none bench_hot_rate_median s1u)
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.2f", a / b; else print "n/a" }'; }
	for v in none active pressure; do
		[ -n "$(med "$v" bench_hot_touches_total)$(med "$v" bench_hot_touches_total s1u)" ] || continue
		printf '| %s | %s; %s | %s; %s | %s | %s | %s | %s | %s / %s |\n' "$v" \
			"$(ratio "$(med "$v" bench_hot_touches_total)" "$base")" "$(ratio "$(med "$v" bench_hot_rate_median)" "$base_rate")" \
			"$(ratio "$(med "$v" bench_hot_touches_total s1u)" "$ubase")" "$(ratio "$(med "$v" bench_hot_rate_median s1u)" "$ubase_rate")" \
			"$(med "$v" bench_daemon_csw_per_s s1u)" "$(med "$v" bench_daemon_cpu_ms s1u)" "$(med "$v" bench_daemon_cpu_ms_10s s1u)" \
			"$(med "$v" bench_sys_csw_per_s s1u)" "$(med "$v" bench_daemon_aged_per_min s1u)" "$(med "$v" bench_daemon_decisions_per_min s1u)"
	done
fi

if [[ " $WHAT " == *" s4 "* ]]; then
	d="$OUT/s4"
	echo "run-bench: s4" >&2
	if [ "$SHORT" = 1 ]; then S4ARGS=(--arg advise=45 --arg active=60); else S4ARGS=(--arg advise=60 --arg active=120); fi
	[ "$REPORT_ONLY" = 1 ] || "$RS" --build-dir "$BUILD" --timeout 500 --mem 1G --zram 768M --files-dir "$d" --log "$d.log" \
		"${S4ARGS[@]}" bench-s4 > "$d.out" 2>&1 || echo "run-bench: s4 failed (see $d.out)" >&2
	echo
	echo "S4 advise estimate vs active reclaim (same workload, one guest, SIGHUP advise → active)"
	echo
	echo "| advise cycles | advise cold anon estimate (last) | T at estimate | active run (s) | active reclaimed (pgsteal_proactive) | swap.current after | cold set swapped @end |"
	echo "|---|---|---|---|---|---|---|"
	printf '| %s | %s | %s | %s | %s MiB | %s MiB | %s%% |\n' "$(get "$d.out" s4_advise_lines)" \
		"$(get "$d.out" s4_advise_cold_anon)" "$(get "$d.out" s4_advise_T)" "$(get "$d.out" s4_active_s)" \
		"$(mib $(( $(get "$d.out" s4_steal_pages) * 4096 )))" "$(mib "$(get "$d.out" s4_swap_after)")" \
		"$(get "$d.out" s4_cold_swapped_pct)"
fi
if [[ " $WHAT " == *" s3 "* ]]; then
	d="$OUT/s3"
	echo "run-bench: s3" >&2
	[ "$REPORT_ONLY" = 1 ] || "$RS" --build-dir "$BUILD" --timeout 1500 --mem 1G --zram 768M --files-dir "$d" --log "$d.log" \
		--arg "sweep=$SWEEP" --arg pressure=1 bench-s3 > "$d.out" 2>&1 || echo "run-bench: s3 failed (see $d.out)" >&2
	echo
	echo "S3 swappiness sweep, mixed workload (anon 100 MiB + 128 MiB page cache, both touched once): anon share of what was reclaimed"
	echo
	echo "| swappiness | anon share asked | kernel memory.reclaim 64M swappiness=N | mglrud Mode=active Swappiness=N (until 64 MiB stolen or 90 s) | mglrud Mode=pressure ReclaimRatio=2% Swappiness=N (same stop) |"
	echo "|---|---|---|---|---|"
	for n in $(echo "$SWEEP" | tr ',' ' '); do
		if [ "$n" = auto ]; then asked="cost-balanced (no refaults, zram: 66.7%)" kern="(no auto in the kernel)"
		else asked=$(awk -v n="$n" 'BEGIN { printf "%.1f%%", n / 2 }') kern=$(get "$d.out" "s3_kernel_$n" | tr ',' ' '); fi
		printf '| %s | %s | %s | %s | %s |\n' "$n" "$asked" "$kern" "$(get "$d.out" "s3_mglrud_$n" | tr ',' ' ')" \
			"$(get "$d.out" "s3_pressure_$n" | tr ',' ' ')"
	done
fi
if [[ " $WHAT " == *" s2 "* ]]; then
	d="$OUT/s2"
	echo "run-bench: s2" >&2
	if [ "$SHORT" = 1 ]; then S2ARGS=(--arg stream=240 --arg shapes=big); S2T=700; else S2ARGS=(); S2T=1500; fi
	S2ARGS+=("${S2EXTRA[@]}")
	[ "$REPORT_ONLY" = 1 ] || "$RS" --build-dir "$BUILD" --timeout "$S2T" --mem 1G --files-dir "$d" --log "$d.log" \
		"${S2ARGS[@]}" bench-s2 > "$d.out" 2>&1 || echo "run-bench: s2 failed (see $d.out)" >&2
	s2() { get "$d.out" "s2_$1_$2_$3"; }
	bp50=$(s2 base none p50_us)
	echo
	echo "S2 hot file + one-shot stream, memory.max 100M ($(get "$d.out" s2_params)); targets (issue 15): min residency >= 99%, p50 <= 1.05x base, avg memory.current <= none"
	echo
	echo "| stream | variant | hot resident at stream start / min / final | p50 (x base) / p99 hot read (us) | file refaults (vs none) | avg memory.current (MiB) | stream MiB/s | drops | fast-path drops: n / p50 / max ms | daemon CPU (ms) |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for sh in base big small grep; do
		for v in none noprot prot protcycle pressure; do
			[ -n "$(s2 "$sh" "$v" p50_us)" ] || continue
			rn=$(s2 "$sh" none refaults)
			printf '| %s | %s | %s%% / %s%% / %s%% | %s (%s) / %s | %s (%s) | %s | %s | %s | %s / %s / %s | %s |\n' "$sh" "$v" \
				"$(s2 "$sh" "$v" start_resident_pct)" "$(s2 "$sh" "$v" min_resident_pct)" "$(s2 "$sh" "$v" final_resident_pct)" \
				"$(s2 "$sh" "$v" p50_us)" "$(awk -v a="$(s2 "$sh" "$v" p50_us)" -v b="$bp50" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }')" \
				"$(s2 "$sh" "$v" p99_us)" "$(s2 "$sh" "$v" refaults)" \
				"$(awk -v a="$(s2 "$sh" "$v" refaults)" -v b="$rn" 'BEGIN { if (b > 0) printf "%.0f%%", 100 * a / b; else print "n/a" }')" \
				"$(s2 "$sh" "$v" avg_current_mib)" "$(s2 "$sh" "$v" stream_mibs)" "$(s2 "$sh" "$v" drops)" \
				"$(s2 "$sh" "$v" latency_ms_n)" "$(s2 "$sh" "$v" latency_ms_p50)" "$(s2 "$sh" "$v" latency_ms_max)" \
				"$(s2 "$sh" "$v" daemon_cpu_ms)"
		done
	done
fi
if [[ " $WHAT " == *" s5 "* ]]; then
	d="$OUT/s5"
	echo "run-bench: s5" >&2
	S5RUNS=$(( RUNS > 1 ? RUNS : 3 ))
	[ "$REPORT_ONLY" = 1 ] || "$RS" --build-dir "$BUILD" --timeout 1800 --files-dir "$d" --log "$d.log" \
		--arg "runs=$S5RUNS" bench-s5 > "$d.out" 2>&1 || echo "run-bench: s5 failed (see $d.out)" >&2
	echo
	echo "S5 all hot: Zipf 0.9 random 4 KiB reads over 384 MiB in a 144 MiB memcg, reads/s over the last 60 s of 80 s, variants alternating; target: active's median within 5% of none's"
	echo
	echo "| run | none | active | active proactive steals (pages) |"
	echo "|---|---|---|---|"
	for n in $(seq 1 "$S5RUNS"); do
		printf '| %s | %s | %s | %s |\n' "$n" "$(get "$d.out" "s5_none_${n}_rate")" \
			"$(get "$d.out" "s5_active_${n}_rate")" "$(get "$d.out" "s5_active_${n}_pgsteal_proactive")"
	done
	printf '| median | %s | %s | ratio %s |\n' "$(get "$d.out" s5_median_none)" \
		"$(get "$d.out" s5_median_active)" "$(get "$d.out" s5_ratio)"
fi
if [[ " $WHAT " == *" app-memcached "* ]]; then
	if [ "$SHORT" = 1 ]; then APPDUR=120; else APPDUR=240; fi
	# --variants names the app's variants too; its default (S1's three) means all of the app's.
	if [ "$VARIANTS" = "none active pressure" ]; then APPV="none active damon"; else APPV="$VARIANTS"; fi
	for r in $(seq 1 "$RUNS"); do
		for v in $APPV; do
			d="$OUT/app-memcached-$v-$r"
			[ "$REPORT_ONLY" = 0 ] || continue
			grep -q 'MGLRUD-VERDICT: PASS' "$d.out" 2>/dev/null && continue
			echo "run-bench: app-memcached $v run $r" >&2
			"$RS" --build-dir "$BUILD" --timeout $((APPDUR + 330)) --mem 1G --zram 768M --files-dir "$d" \
				--log "$d.log" --arg duration="$APPDUR" --arg variant="$v" "${APPEXTRA[@]}" bench-app-memcached > "$d.out" 2>&1 ||
				echo "run-bench: app-memcached $v run $r failed (see $d.out)" >&2
		done
	done
	# A variant not run (or not passed) gives "": no line must fail the pipeline under pipefail.
	amed() { for f in "$OUT"/app-memcached-"$1"-*.out; do if grep -q 'MGLRUD-VERDICT: PASS' "$f" 2>/dev/null; then get "$f" "$2"; fi; done | { grep -v '^$' || true; } | median; }
	aruns() { grep -l 'MGLRUD-VERDICT: PASS' "$OUT"/app-memcached-"$1"-*.out 2>/dev/null | wc -l; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.2f", a / b; else print "n/a" }'; }
	bmem=$(amed none app_mem_avg_2nd) bops=$(amed none app_ops_per_s) bp99=$(amed none app_p99_us)
	echo
	echo "memcached (Debian 12, 1 thread, CPU 0) + mc-zipf (Zipf 0.99 gets over 280,000 x 1000 B, one at a time, CPU 1), zram; medians of the passed runs"
	echo
	echo "| variant | runs | memory.current avg 2nd half (MiB; saved vs none) | ops/s (vs none) | p50 / p99 us (p99 vs none) | worst 5 s p99 (us) | anon refaults | pswpout / pswpin (pages) |"
	echo "|---|---|---|---|---|---|---|---|"
	for v in none active damon; do
		[ "$(aruns "$v")" -gt 0 ] || continue
		m=$(amed "$v" app_mem_avg_2nd)
		printf '| %s | %s | %s (%s%%) | %s (%s) | %s / %s (%s) | %s | %s | %s / %s |\n' "$v" "$(aruns "$v")" \
			"$(mib "$m")" "$(awk -v a="$m" -v b="$bmem" 'BEGIN { if (b > 0) printf "%.1f", 100 * (b - a) / b; else print "n/a" }')" \
			"$(amed "$v" app_ops_per_s)" "$(ratio "$(amed "$v" app_ops_per_s)" "$bops")" \
			"$(amed "$v" app_p50_us)" "$(amed "$v" app_p99_us)" "$(ratio "$(amed "$v" app_p99_us)" "$bp99")" \
			"$(amed "$v" app_p99_worst_us)" "$(amed "$v" app_refault_anon)" \
			"$(amed "$v" app_pswpout)" "$(amed "$v" app_pswpin)"
	done
	if [ -n "$(amed none app_limit_idle_20_kib)" ]; then
		echo
		echo "idle-limit on memcached in the none runs (from the start of the timed phase; % of its RSS then)"
		echo
		echo "| idle for | 20 s | 60 s | 120 s |"
		echo "|---|---|---|---|"
		printf '| MiB (%% of RSS) |'
		for t in 20 60 120; do
			i=$(amed none "app_limit_idle_${t}_kib") rss=$(amed none "app_limit_rss_${t}_kib")
			printf ' %s (%s%%) |' "$(awk -v k="$i" 'BEGIN { printf "%.0f", k / 1024 }')" \
				"$(awk -v a="$i" -v b="$rss" 'BEGIN { if (b > 0) printf "%.0f", 100 * a / b; else print "n/a" }')"
		done
		echo
	fi
fi
echo
echo "run-bench: results and logs in $OUT" >&2
