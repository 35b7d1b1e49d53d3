#!/bin/bash
# Scale benchmark (issue 14): mglrud's cost per cycle and its memory on fixture trees of 100,
# 1,000 and 10,000 managed cgroups made from the real 7.3 captures, next to two readers of the
# same files: one that keeps them open and preads them once per cycle (the floor: what any
# daemon must read) and one that opens, reads and closes them every cycle (how the peers read).
# Not part of `meson test`; never gates on absolute times.
#
#   tests/bench/run-scale.sh [--build-dir DIR] [--baseline DIR] [--out DIR]
#                            [--sizes 100,1000,10000] [--runs 3] [--cycles 20] [--no-valgrind]
#                            [--vm] [--no-host] [--report-only]
#
# Per size: the tree (tests/bench/mkscale-tree, kept in --out), then --runs rounds, interleaved,
# of mglrud --dry-run (Interval=1s, defaults, every leaf managed) under cycle-meter for --cycles
# cycles (medians of the cycles after the third), the --baseline build's mglrud the same way
# (another build dir, e.g. of the commit before a change: same trees, same rounds), and
# scale-reader --mode keep and --mode reopen for 10 passes a second apart; then once each under
# valgrind: callgrind (instructions per cycle: --toggle-collect on manager_cycle / read_pass, one
# dump per call, the median of the steady ones) and massif (the heap while cycling, divided by the
# cgroups). Builds must be without sanitizers:
#   meson setup build-rel -Db_sanitize=none -Dbuildtype=release && ninja -C build-rel
# Every managed cgroup keeps its memory files open: a size needs RLIMIT_NOFILE of 8 per cgroup
# (its directory and 7 memory files) and 512 more. A size the hard limit does not allow runs under the
# hard limit and is marked so: the daemon then keeps the directories open, and the three files
# read every cycle of as many cgroups as the rest of the limit holds (it says so); the others'
# files are opened for each read, which costs CPU, not memory; the keep-open reader cannot run
# there.
# --vm also boots Debian's 7.3 kernel in QEMU (tests/vm/scenarios/bench-scale.sh, under the
# machine-wide lock) for 1,000 real cgroups each holding a small process and a 10,000-cgroup
# fixture tree in tmpfs, the daemon and both readers in the same guest; --no-host skips the host.
# Prints markdown tables; per-run outputs stay in --out (default <build-dir>/scale-<date>).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$ROOT/build-rel" BASE="" OUT="" SIZES=100,1000,10000 RUNS=3 CYCLES=20 VALGRIND=1 REPORT_ONLY=0
VM=0 HOST=1
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) BUILD="$(cd "$2" && pwd)"; shift 2 ;;
	--baseline) BASE="$(cd "$2" && pwd)"; shift 2 ;;
	--out) OUT="$2"; shift 2 ;;
	--sizes) SIZES="$2"; shift 2 ;;
	--runs) RUNS="$2"; shift 2 ;;
	--cycles) CYCLES="$2"; shift 2 ;;
	--no-valgrind) VALGRIND=0; shift ;;
	--vm) VM=1; shift ;;
	--no-host) HOST=0; shift ;;
	--report-only) REPORT_ONLY=1; shift ;;
	-h|--help) sed -n '2,27p' "$0"; exit 0 ;;
	*) echo "run-scale: unknown argument $1" >&2; exit 2 ;;
	esac
done
OUT="${OUT:-$BUILD/scale-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
METER="$BUILD/tests/bench/cycle-meter" READER="$BUILD/tests/bench/scale-reader"
MKTREE="$BUILD/tests/bench/mkscale-tree"
DAEMONS=(daemon)
[ -z "$BASE" ] || DAEMONS+=(baseline)
mglrud_of() { if [ "$1" = baseline ]; then echo "$BASE/daemon/programs/mglrud"; else echo "$BUILD/daemon/programs/mglrud"; fi; }
if [ "$REPORT_ONLY" = 0 ]; then
	for b in "$METER" "$READER" "$MKTREE" "$(mglrud_of daemon)" ${BASE:+"$(mglrud_of baseline)"}; do
		[ -x "$b" ] || { echo "run-scale: $b missing: build first" >&2; exit 1; }
		if grep -q __asan_init "$b" 2>/dev/null; then
			echo "run-scale: $b is built with ASan: use a build with -Db_sanitize=none" >&2
			exit 1
		fi
	done
fi
MATCH='/scale.slice/*/*'

nofile() { echo $(( $1 * 8 + 512 )); }
lim() { if fits "$1"; then echo prlimit --nofile="$(nofile "$1")" --; else echo prlimit --nofile="$(ulimit -Hn)" --; fi; }
# Whether this shell may give a size its descriptors (raising the hard limit needs
# CAP_SYS_RESOURCE).
fits() { [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge "$(nofile "$1")" ] ||
	prlimit --nofile="$(nofile "$1")" -- true 2>/dev/null; }
daemon_args() { # WHO SIZE: mglrud's arguments on that size's tree
	local t="$OUT/tree-$2"
	echo "$(mglrud_of "$1")" --dry-run --config "$t/mglrud.conf" --cgroup-root "$t/cgroup" \
		--debugfs-root "$t/debugfs" --proc-root "$t/proc" --runtime-dir "$OUT/run-$2"
}
reader_args() { # SIZE MODE PASSES INTERVAL_MS
	local t="$OUT/tree-$1"
	echo "$READER" --mode "$2" --cgroup-root "$t/cgroup" --debugfs-root "$t/debugfs" \
		--proc-root "$t/proc" --match "$MATCH" --cycles "$3" --interval-ms "$4" --skip 1
}

get() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" "$1" 2>/dev/null | tail -n 1; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# The median of the steady callgrind dumps (the first two are discovery and warm-up).
cg_median() { for f in "$1".*; do [ -f "$f" ] || continue; n=${f##*.}; [ "$n" -gt 2 ] || continue
	sed -n 's/^summary: //p' "$f"; done | median; }
# The heap (useful + malloc's own overhead) while the daemon cycles: the median over the massif
# snapshots of the second half of the run (the first half holds the start, the last snapshots
# the cleanup at exit).
massif_steady() { [ -f "$1" ] || return 0; awk -F= '/^snapshot=/ { s = $2 } /^time=/ { t[s] = $2 } /^mem_heap_B/ { h[s] = $2 }
	/^mem_heap_extra_B/ { h[s] += $2 } END { for (i = 0; i <= s; i++) if (t[i] >= t[s] / 2) print h[i] }' "$1" 2>/dev/null | median; }

if [ "$REPORT_ONLY" = 0 ] && [ "$VM" = 1 ]; then
	echo "run-scale: bench-scale in the VM (waits for /tmp/mglrud-qemu.lock)" >&2
	flock /tmp/mglrud-qemu.lock "$ROOT/tests/vm/run-scenario" --build-dir "$BUILD" --mem 3G --timeout 3000 \
		--files-dir "$OUT/vm" --log "$OUT/vm.log" --arg "rounds=$RUNS" bench-scale > "$OUT/vm.out" 2>&1 ||
		echo "run-scale: bench-scale failed (see $OUT/vm.out)" >&2
fi
if [ "$REPORT_ONLY" = 0 ] && [ "$HOST" = 1 ]; then
	for n in $(echo "$SIZES" | tr ',' ' '); do
		d="$OUT/scale-$n"
		mkdir -p "$d" "$OUT/run-$n"
		rm -f "$d/skipped" "$d/limited"
		if ! fits "$n"; then
			echo "run-scale: $n cgroups need $(nofile "$n") descriptors, the hard limit is $(ulimit -Hn): the files that do not fit are reopened each cycle" >&2
			echo "RLIMIT_NOFILE $(ulimit -Hn) < $(nofile "$n"): files partly reopened" > "$d/limited"
		fi
		[ -d "$OUT/tree-$n" ] || { echo "run-scale: building the tree of $n cgroups" >&2
			"$MKTREE" --capture "$ROOT/tests/fixtures/kernel-7.3" --cgroups "$n" --out "$OUT/tree-$n"; }
		for r in $(seq 1 "$RUNS"); do
			echo "run-scale: $n cgroups, round $r" >&2
			for who in "${DAEMONS[@]}"; do
				# shellcheck disable=SC2046
				"$METER" --cycles "$CYCLES" --skip 3 --timeout 900 -- $(lim "$n") $(daemon_args "$who" "$n") \
					> "$d/$who-$r.txt" 2> "$d/$who-$r.log" || echo "run-scale: $who run failed ($d/$who-$r.log)" >&2
			done
			for mode in keep reopen; do
				# shellcheck disable=SC2046
				$(lim "$n") $(reader_args "$n" "$mode" 10 1000) > "$d/$mode-$r.txt" 2>&1 ||
					echo "run-scale: $mode reader failed ($d/$mode-$r.txt)" >&2
			done
		done
		[ "$VALGRIND" = 1 ] || continue
		echo "run-scale: $n cgroups under callgrind and massif" >&2
		rm -f "$d"/callgrind-*.out* "$d"/massif-*.out
		for who in "${DAEMONS[@]}"; do
			# shellcheck disable=SC2046
			"$METER" --cycles 5 --skip 0 --timeout 3600 -- $(lim "$n") valgrind --tool=callgrind \
				--callgrind-out-file="$d/callgrind-$who.out" --toggle-collect=manager_cycle \
				--dump-after=manager_cycle $(daemon_args "$who" "$n") \
				> "$d/callgrind-$who.txt" 2>&1 || echo "run-scale: callgrind $who failed" >&2
			# shellcheck disable=SC2046
			"$METER" --cycles 4 --skip 0 --timeout 3600 -- $(lim "$n") valgrind --tool=massif \
				--massif-out-file="$d/massif-$who.out" --depth=12 --detailed-freq=1 --threshold=0.5 \
				$(daemon_args "$who" "$n") > "$d/massif-$who.txt" 2>&1 || echo "run-scale: massif $who failed" >&2
		done
		for mode in keep reopen; do
			# shellcheck disable=SC2046
			$(lim "$n") valgrind --tool=callgrind --callgrind-out-file="$d/callgrind-$mode.out" \
				--toggle-collect=read_pass --dump-after=read_pass $(reader_args "$n" "$mode" 5 0) \
				> "$d/callgrind-$mode.txt" 2>&1 || echo "run-scale: callgrind $mode failed" >&2
			# shellcheck disable=SC2046
			$(lim "$n") valgrind --tool=massif --massif-out-file="$d/massif-$mode.out" \
				$(reader_args "$n" "$mode" 3 0) > "$d/massif-$mode.txt" 2>&1 || echo "run-scale: massif $mode failed" >&2
		done
	done
fi

[ "$HOST" = 1 ] || SIZES=""
[ -z "$SIZES" ] || {
echo
echo "mglrud --dry-run on fixture trees (tests/bench/run-scale.sh; medians of $RUNS rounds of $CYCLES cycles, the first 3 left out; readers: 10 passes; CPU is user + system, schedstat)"
echo
echo "| cgroups | reader | cycle wall (ms) | cycle CPU (ms) | CPU per cgroup (µs) | instructions per cycle (callgrind) | RSS (anon) (MiB) | peak RSS (MiB) | heap per cgroup (B) |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $(echo "$SIZES" | tr ',' ' '); do
	d="$OUT/scale-$n"
	if [ -f "$d/skipped" ]; then
		echo "| $n | (not run: $(cat "$d/skipped")) | | | | | | | |"
		continue
	fi
	size="$n"
	[ ! -f "$d/limited" ] || size="$n ($(cat "$d/limited"))"
	for who in "${DAEMONS[@]}" keep reopen; do
		case $who in
		daemon) label=mglrud ;;
		baseline) label="mglrud, baseline build" ;;
		keep) label="keep open + pread (floor)" ;;
		reopen) label="open/read/close (peers)" ;;
		esac
		med() { for r in $(seq 1 "$RUNS"); do get "$d/$who-$r.txt" "$1"; done | { grep -v '^$' || true; } | median; }
		cpu=$(med median_cpu_us) wall=$(med median_wall_us) rss=$(med rss_kib) hwm=$(med hwm_kib) anon=$(med anon_kib)
		ir=$(cg_median "$d/callgrind-$who.out") heap=$(massif_steady "$d/massif-$who.out")
		awk -v n="$n" -v size="$size" -v l="$label" -v w="$wall" -v c="$cpu" -v ir="$ir" -v rss="$rss" -v hwm="$hwm" -v heap="$heap" -v anon="$anon" 'BEGIN {
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", size, l,
				w == "" ? "n/a" : sprintf("%.1f", w / 1000), c == "" ? "n/a" : sprintf("%.1f", c / 1000),
				c == "" ? "n/a" : sprintf("%.1f", c / n), ir == "" ? "n/a" : sprintf("%.1fM", ir / 1e6),
				rss == "" ? "n/a" : sprintf("%.1f (%s)", rss / 1024, anon == "" ? "n/a" : sprintf("%.1f", anon / 1024)),
				hwm == "" ? "n/a" : sprintf("%.1f", hwm / 1024),
				heap == "" || heap == 0 ? "n/a" : sprintf("%.0f", heap / n) }'
	done
done
}
if [ -d "$OUT/vm" ]; then
	v="$OUT/vm"
	echo
	echo "On Debian's 7.3 kernel in QEMU (TCG, 2 vCPUs), one guest (tests/vm/scenarios/bench-scale.sh): $(get "$OUT/vm.out" swarm_cgroups) real cgroups with a 256 KiB process each (lru_gen_full $(awk -v b="$(get "$OUT/vm.out" lru_gen_full_bytes)" 'BEGIN { printf "%.1f", b / 1048576 }') MiB, $(get "$OUT/vm.out" lru_gen_memcgs) memcgs), then a fixture tree in tmpfs; medians of the rounds"
	echo
	echo "| cgroups | reader | cycle wall (ms) | cycle CPU (ms) | CPU per cgroup (µs) | CPU vs keep-open reader | RSS (anon) (MiB) | peak RSS (MiB) |"
	echo "|---|---|---|---|---|---|---|---|"
	for tag in real fixture; do
		ls "$v/$tag-daemon-"*.txt >/dev/null 2>&1 || continue
		n=$(get "$v/$tag-keep-1.txt" cgroups)
		vmed() { for f in "$v/$tag-$1-"*.txt; do get "$f" "$2"; done | { grep -v '^$' || true; } | median; }
		keep=$(vmed keep median_cpu_us)
		for who in daemon keep reopen; do
			case $who in daemon) label=mglrud ;; keep) label="keep open + pread (floor)" ;; reopen) label="open/read/close (peers)" ;; esac
			awk -v n="$n" -v t="$tag" -v l="$label" -v w="$(vmed "$who" median_wall_us)" -v c="$(vmed "$who" median_cpu_us)" \
				-v k="$keep" -v rss="$(vmed "$who" rss_kib)" -v hwm="$(vmed "$who" hwm_kib)" \
				-v anon="$(vmed "$who" anon_kib)" 'BEGIN {
				printf "| %d %s | %s | %.1f | %.1f | %.1f | %.2f | %.1f (%s) | %.1f |\n", n, t, l,
					w / 1000, c / 1000, c / n, (k > 0 ? c / k : 0), rss / 1024,
					anon == "" ? "n/a" : sprintf("%.1f", anon / 1024), hwm / 1024 }'
		done
	done
	for chunk in 65536 16777216; do
		[ -f "$v/lrugen-$chunk.txt" ] || continue
		echo
		echo "lru_gen_full read with $chunk-byte preads: $(sed -n 's/^cycle=2 .*bytes=\([0-9]*\) reads=\([0-9]*\).*/\1 bytes in \2 reads/p' "$v/lrugen-$chunk.txt"), median $(get "$v/lrugen-$chunk.txt" median_cpu_us) µs of CPU a pass"
	done
fi
echo
echo "run-scale: results in $OUT" >&2
