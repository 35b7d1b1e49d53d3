# mglructl-vm: the bus API on the real kernel. mglrud runs active on a cgroup with cold anon
# memory; mglructl status/dump/metrics answer while it works, pause stops its writes, resume
# lets them go on, and an unprivileged caller cannot pause.
need_bin mglrud
need_bin mglructl
CG="ctl.slice/job"
cg_create "$CG" 400M
run_anon_tiers "$CG" /tmp/wl.log 60 --cold 96 --warm 8 --hot 8 --warm-interval 2 --duration 0 --report 5
cat > /tmp/ctl.conf <<EOC
[Daemon]
Interval=2s

[/ctl.slice/job]
Mode=active
MinColdAge=5s
MaxColdAge=20s
MaxStep=16M
EOC
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mglrud --cgroup-root /sys/fs/cgroup --config /tmp/ctl.conf --runtime-dir /run/mglrud \
	--metrics-file /tmp/mglrud.prom > /tmp/mglrud.log 2>&1 &
D_PID=$!
for i in $(seq 1 50); do [ -S /run/mglrud/bus ] && break; sleep 0.2; done
[ -S /run/mglrud/bus ] || fail "no bus socket"

ctl() { timeout 30 mglructl --runtime-dir /run/mglrud "$@"; }
ctl pause; rc_pause=$?
ctl status > /tmp/status-paused.txt 2>&1; rc_status_paused=$?
steal0=$(cg_stat "$CG" pgsteal_proactive)
sleep 8
steal1=$(cg_stat "$CG" pgsteal_proactive)
ctl dump > /tmp/dump-paused.txt 2>&1
ctl resume; rc_resume=$?
for i in $(seq 1 30); do
	sleep 2
	[ "$(cg_stat "$CG" pgsteal_proactive)" -gt "$steal1" ] && break
done
steal2=$(cg_stat "$CG" pgsteal_proactive)
# The daemon answers while its writer thread evicts (a 16 MiB eviction takes 10-30 s under
# TCG): the reclaimed bytes appear once the first eviction finished and was measured.
for i in $(seq 1 45); do
	ctl metrics 2>/dev/null | grep -q "^mglrud_reclaimed_bytes_total{cgroup=\"/$CG\",type=\"anon\"} [1-9]" && break
	sleep 2
done
ctl status > /tmp/status.txt 2>&1; rc_status=$?
ctl dump > /tmp/dump.txt 2>&1; rc_dump=$?
ctl metrics > /tmp/metrics.txt 2>&1; rc_metrics=$?
ctl --json dump > /tmp/dump.json 2>&1; rc_json=$?
# An unprivileged caller may read but not steer.
ctl advise > /tmp/advise.txt 2>&1; rc_advise=$?
ctl set "/$CG" MaxStep=8M > /tmp/set.txt 2>&1; rc_set=$?
ctl dump > /tmp/dump-set.txt 2>&1
ctl set "/$CG" MaxStep=12Q > /tmp/set-bad.txt 2>&1; rc_set_bad=$?
ctl reload > /tmp/reload.txt 2>&1; rc_reload=$?
ctl dump > /tmp/dump-reloaded.txt 2>&1
COLUMNS=120 ctl top --once > /tmp/top.txt 2>&1; rc_top=$?
# Every changing method is refused to an unprivileged caller; reads are open.
nobody() { timeout 30 /usr/local/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
	mglructl --runtime-dir /run/mglrud "$@"; }
rc_nobody=""
for cmd in pause resume reload "set /$CG MaxStep=4M"; do
	# shellcheck disable=SC2086
	nobody $cmd >> /tmp/nobody.txt 2>&1
	rc_nobody="$rc_nobody $?"
done
nobody status > /dev/null 2>&1; rc_nobody_status=$?
kill "$D_PID"; wait "$D_PID"; rc_daemon=$?
for f in status-paused.txt status.txt dump.txt dump-paused.txt metrics.txt mglrud.log nobody.txt \
	advise.txt dump-set.txt set-bad.txt dump-reloaded.txt top.txt; do result_file "$f" "/tmp/$f"; done
result pgsteal_paused "$steal0 -> $steal1"
result pgsteal_resumed "$steal1 -> $steal2"
result rcs2 "advise=$rc_advise set=$rc_set set_bad=$rc_set_bad reload=$rc_reload top=$rc_top nobody=[$rc_nobody ] nobody_status=$rc_nobody_status"
result rcs "status_paused=$rc_status_paused pause=$rc_pause resume=$rc_resume status=$rc_status dump=$rc_dump metrics=$rc_metrics json=$rc_json nobody=$rc_nobody daemon=$rc_daemon"
log "status:"; cat /tmp/status.txt
log "dump:"; cat /tmp/dump.txt
assert_eq "$rc_pause" 0 "mglructl pause"
assert_eq "$steal1" "$steal0" "no proactive reclaim while paused"
grep -q "Paused: yes" /tmp/dump-paused.txt || fail "dump does not show the pause"
assert_eq "$rc_resume" 0 "mglructl resume"
assert_gt "$steal2" "$steal1" "reclaim resumes after resume"
assert_eq "$rc_status" 0 "mglructl status"
assert_eq "$rc_dump" 0 "mglructl dump"
grep -qF "/$CG" /tmp/dump.txt || fail "dump does not list /$CG"
assert_eq "$rc_metrics" 0 "mglructl metrics"
grep -q "^mglrud_reclaimed_bytes_total{cgroup=\"/$CG\",type=\"anon\"} [1-9]" /tmp/metrics.txt || fail "metrics do not show anon reclaimed"
assert_eq "$rc_json" 0 "mglructl --json dump"
assert_eq "$rc_advise" 0 "mglructl advise"
grep -qF "/$CG" /tmp/advise.txt || fail "advise does not list /$CG"
assert_eq "$rc_set" 0 "mglructl set MaxStep=8M"
grep -q "MaxStep=8M (runtime override)" /tmp/dump-set.txt || fail "dump does not show the override"
assert_eq "$rc_set_bad" 1 "an invalid value is refused"
grep -q "MaxStep=12Q: invalid size" /tmp/set-bad.txt || fail "no parser message for MaxStep=12Q"
assert_eq "$rc_reload" 0 "mglructl reload"
grep -q "MaxStep=8M (runtime override)" /tmp/dump-reloaded.txt || fail "override lost on reload"
assert_eq "$rc_top" 0 "mglructl top --once"
grep -qF "/$CG" /tmp/top.txt || fail "top does not list /$CG"
if [ -x /usr/local/bin/setpriv ]; then
	assert_eq "$rc_nobody" " 4 4 4 4" "unprivileged pause/resume/reload/set must be refused (exit 4)"
	assert_eq "$rc_nobody_status" 0 "unprivileged status must work"
fi
assert_eq "$rc_daemon" 0 "mglrud exit status on SIGTERM"
pass "bus API works on the real kernel; pause stops reclaim"
