# Helpers for guest scenarios (sourced by /init before the scenario; busybox sh).
#
# Results: `result KEY VALUE` adds a key=value line to the result block, `result_file NAME PATH`
# snapshots a file (sent base64-encoded, unpacked by run-scenario --files-dir), and exactly one
# of `pass|fail|skip REASON` ends the scenario. run-scenario turns the verdict into 0/1/77.
#
# Cgroups: paths are relative to /sys/fs/cgroup and may contain spaces ("work load.slice/a b").

CG_ROOT=/sys/fs/cgroup
LRU_GEN=/sys/kernel/debug/lru_gen
MGLRUD_RESULT_FILE=/tmp/.mglrud-result
MGLRUD_VERDICT_FILE=/tmp/.mglrud-verdict
MGLRUD_FILES_DIR=/tmp/.mglrud-files
mkdir -p "$MGLRUD_FILES_DIR"
: > "$MGLRUD_RESULT_FILE"

log() { echo "MGLRUD-LOG: $*"; }

result() { echo "$1=$2" >> "$MGLRUD_RESULT_FILE"; }

# result_file NAME PATH: NAME may contain '/', not spaces.
result_file() {
	mkdir -p "$MGLRUD_FILES_DIR/$(dirname "$1")"
	cat "$2" > "$MGLRUD_FILES_DIR/$1" 2>"$MGLRUD_FILES_DIR/$1.err" || log "result_file: cannot read $2: $(cat "$MGLRUD_FILES_DIR/$1.err")"
	[ -s "$MGLRUD_FILES_DIR/$1.err" ] || rm -f "$MGLRUD_FILES_DIR/$1.err"
}
# result_text NAME: stdin becomes the file NAME.
result_text() {
	mkdir -p "$MGLRUD_FILES_DIR/$(dirname "$1")"
	cat > "$MGLRUD_FILES_DIR/$1"
}

verdict_write() { echo "$1 $2" > "$MGLRUD_VERDICT_FILE"; }
# The scenario runs in a subshell of /init: exit ends only the scenario.
pass() { verdict_write PASS "${*:-ok}"; exit 0; }
fail() { log "FAIL: $*"; verdict_write FAIL "$*"; exit 1; }
skip() { log "SKIP: $*"; verdict_write SKIP "$*"; exit 0; }

emit_results() {
	local f
	( cd "$MGLRUD_FILES_DIR" && find . -type f | sed 's|^\./||' | sort ) | while read -r f; do
		echo "===MGLRUD-FILE-BEGIN $f==="
		base64 "$MGLRUD_FILES_DIR/$f"
		echo "===MGLRUD-FILE-END $f==="
	done
	echo "===MGLRUD-RESULT-BEGIN==="
	cat "$MGLRUD_RESULT_FILE"
	echo "===MGLRUD-RESULT-END==="
	echo "MGLRUD-VERDICT: $(cat "$MGLRUD_VERDICT_FILE" 2>/dev/null || echo 'FAIL no verdict')"
}

# run_scenario: runs /mglrud/scenarios/$MGLRUD_SCENARIO.sh in a subshell (from /tmp, set -x with
# mglrud.debug=1) and makes sure a verdict exists afterwards. Used by /init and, on the root
# disk, by guest-systemd.sh.
run_scenario() {
	local rc
	if [ -z "$MGLRUD_SCENARIO" ] || [ ! -f "/mglrud/scenarios/$MGLRUD_SCENARIO.sh" ]; then
		verdict_write FAIL "no scenario '$MGLRUD_SCENARIO' in the guest"
		return 0
	fi
	(
		cd /tmp
		[ "$MGLRUD_DEBUG" = 1 ] && set -x
		. "/mglrud/scenarios/$MGLRUD_SCENARIO.sh"
	)
	rc=$?
	if [ ! -s "$MGLRUD_VERDICT_FILE" ]; then
		verdict_write FAIL "scenario exited (rc=$rc) without a verdict"
	fi
}

# need_bin NAME: fails the scenario when a project binary is not in the initramfs. The build
# depends on every binary a scenario needs, so a missing one is a broken harness (a moved build
# path), never a reason to skip: that would pass the test run silently.
need_bin() {
	command -v "$1" >/dev/null 2>&1 || fail "$1 is not in the initramfs (mkinitramfs.sh did not find it in the build dir)"
}

# cg_create PATH [MAX [HIGH]]: creates PATH with +memory enabled on every ancestor.
cg_create() {
	local p="$1" acc="" part rest
	rest="$p"
	while [ -n "$rest" ]; do
		part="${rest%%/*}"
		if [ "$part" = "$rest" ]; then rest=""; else rest="${rest#*/}"; fi
		[ -n "$part" ] || continue
		echo +memory > "$CG_ROOT$acc/cgroup.subtree_control" 2>/dev/null
		acc="$acc/$part"
		mkdir -p "$CG_ROOT$acc" || fail "mkdir $CG_ROOT$acc"
	done
	[ -n "$2" ] && { echo "$2" > "$CG_ROOT/$p/memory.max" || fail "memory.max=$2 on $p"; }
	[ -n "$3" ] && { echo "$3" > "$CG_ROOT/$p/memory.high" || fail "memory.high=$3 on $p"; }
	return 0
}

cg_path() { echo "$CG_ROOT/$1"; }
cg_read() { cat "$CG_ROOT/$1/$2"; }
cg_inode() { stat -c %i "$CG_ROOT/$1"; }

# cg_stat CG KEY: one memory.stat value (bytes or events).
cg_stat() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "" }' "$CG_ROOT/$1/memory.stat"; }

# cg_psi CG some|full: the total= of memory.pressure (microseconds).
cg_psi() { awk -v k="$2" '$1 == k { for (i = 2; i <= NF; i++) if ($i ~ /^total=/) print substr($i, 7) }' "$CG_ROOT/$1/memory.pressure"; }

# cg_run CG LOG CMD...: starts CMD in the background inside CG; WL_PID is its pid.
cg_run() {
	local cg="$1" out="$2"
	shift 2
	# The child moves itself before exec so that all its memory is charged to CG.
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 111; shift; exec "$@"' cg_run "$CG_ROOT/$cg" "$@" > "$out" 2>&1 &
	WL_PID=$!
}

# run_anon_tiers CG LOG TIMEOUT_S ARGS...: starts anon-tiers ARGS in CG (output in LOG, pid in
# WL_PID) and returns once it reports ready; fails the scenario after TIMEOUT_S.
run_anon_tiers() {
	local cg="$1" out="$2" tmo="$3"
	shift 3
	cg_run "$cg" "$out" anon-tiers "$@"
	wait_event "$out" ready "$tmo" || fail "anon-tiers did not start"
}

# split_cpus PID: with two or more CPUs, pins PID to CPU 0 and this shell (so the daemon and
# samplers it starts afterwards) to the other CPUs, the way a daemon and a workload share a
# many-core server. Under TCG each guest context switch flushes QEMU's software TLB, so a
# workload sharing its CPU with the samplers runs at a rate that swings 10x from one 5 s window
# to the next (measured: 2 to 70 M touches/s with no daemon); pinned, it measures the workload.
# Sets CPUS_SPLIT=1 when it pinned.
split_cpus() {
	local n
	n=$(nproc 2>/dev/null || echo 1)
	CPUS_SPLIT=0
	[ "$n" -ge 2 ] || return 0
	taskset -p 1 "$1" > /dev/null || { log "split_cpus: taskset of $1 failed"; return 0; }
	taskset -p "$(printf '%x' $(( (1 << n) - 2 )))" $$ > /dev/null || { log "split_cpus: taskset of the shell failed"; return 0; }
	CPUS_SPLIT=1
}

# task_costs PID: one line per thread of PID, "tid comm voluntary_csw nonvoluntary_csw
# cpu_ticks run_ns timeslices" (utime+stime in USER_HZ ticks; run time and slices from
# schedstat): what a process costs the CPUs it shares, wakeups above all (each one a context
# switch, under TCG a flush of QEMU's software TLB for whatever runs there next).
task_costs() {
	local t
	for t in /proc/"$1"/task/*; do
		[ -r "$t/stat" ] || continue
		echo "${t##*/} $(tr ' ' _ < "$t/comm") $(awk '$1 == "voluntary_ctxt_switches:" { v = $2 } $1 == "nonvoluntary_ctxt_switches:" { n = $2 } END { print v + 0, n + 0 }' "$t/status") $(sed 's/^.*) //' "$t/stat" | awk '{ print $12 + $13 }') $(awk '{ print $1, $3 }' "$t/schedstat" 2>/dev/null)"
	done
}

# kthread_costs: "comm run_ns timeslices" summed per name over the kernel threads that work
# for reclaim (kswapd, kcompactd, psimon, kdamond).
kthread_costs() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(cat "$p/comm" 2>/dev/null) || continue
		case "$c" in kswapd*|kcompactd*|psimon|kdamond*) echo "$c $(cat "$p/schedstat" 2>/dev/null)" ;; esac
	done | awk '{ r[$1] += $2; n[$1] += $4 } END { for (k in r) print k, r[k], n[k] }' | sort
}

# sys_ctxt: the context switches of all CPUs since boot (/proc/stat ctxt).
sys_ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

# avg_current_while CG PID: waits for PID, sampling CG's memory.current every 0.5 s, and sets
# AVG_CURRENT_MIB to the average (0 without a sample). Not for $(...): in a subshell the
# exited child stays an unreaped zombie and kill -0 keeps succeeding.
avg_current_while() {
	local sum=0 n=0
	while kill -0 "$2" 2>/dev/null; do
		sum=$((sum + $(cg_read "$1" memory.current) / 1048576)); n=$((n + 1))
		sleep 0.5
	done
	AVG_CURRENT_MIB=$((n > 0 ? sum / n : 0))
}

# wait_event LOG EVENT TIMEOUT_S: waits for a line "event=EVENT" in LOG.
wait_event() {
	local i=0 lim=$(( $3 * 10 ))
	while ! grep -q "^event=$2 " "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $lim ]; then
			log "wait_event: no event=$2 in $1 after $3 s; log:"
			tail -n 20 "$1"
			return 1
		fi
		sleep 0.1
	done
}

# event_get LOG EVENT KEY: KEY's value in the last "event=EVENT" line of LOG.
event_get() {
	grep "^event=$2 " "$1" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}

# lru_gen_id_line ID: the "memcg ID path" header line for ID in lru_gen ("" if absent).
lru_gen_id_line() { grep -E "^memcg +$1( |$)" "$LRU_GEN" | head -n 1; }

# lru_gen_max_seq ID [NODE]: the youngest generation number of memcg ID on NODE (default 0).
lru_gen_seqs() {
	awk -v id="$1" -v node="${2:-0}" '
		$1 == "memcg" { m = ($2 == id) ; n = -1; next }
		$1 == "node" { n = $2; next }
		m && n == node && $1 ~ /^[0-9]+$/ { if (min == "") min = $1; max = $1 }
		END { print min, max }' "$LRU_GEN"
}
lru_gen_min_seq() { lru_gen_seqs "$@" | cut -d' ' -f1; }
lru_gen_max_seq() { lru_gen_seqs "$@" | cut -d' ' -f2; }

# Assertions: each fails the scenario with a message naming what was compared.
assert_eq() { [ "$1" = "$2" ] || fail "${3:-assert_eq}: '$1' != '$2'"; }
assert_ne() { [ "$1" != "$2" ] || fail "${3:-assert_ne}: '$1' == '$2'"; }
assert_ge() { [ -n "$1" ] && [ "$1" -ge "$2" ] || fail "${3:-assert_ge}: '$1' < '$2'"; }
assert_le() { [ -n "$1" ] && [ "$1" -le "$2" ] || fail "${3:-assert_le}: '$1' > '$2'"; }
assert_gt() { [ -n "$1" ] && [ "$1" -gt "$2" ] || fail "${3:-assert_gt}: '$1' <= '$2'"; }
assert_match() { echo "$1" | grep -qE "$2" || fail "${3:-assert_match}: '$1' !~ /$2/"; }
assert_file() { [ -e "$1" ] || fail "${2:-assert_file}: $1 missing"; }
