# service-systemd: the Debian package under systemd as PID 1 (Debian 12 root disk, 7.3 kernel).
# run-scenario: --root-disk
# dpkg -i enables and starts the service (the packaged 10-first-look.conf advises on every top-level
# slice; a workload in firstlook.slice gets its savings shown by mglructl advise at the end, and
# one ageing of it is timed); then, with cold anon memory in vmtest.slice managed by
# a drop-in: start through Type=notify with STATUS=, an eviction under the unit's sandboxing
# (pgsteal_proactive grows, memory.current falls), BPF stream protection, reload of a changed and
# of a broken drop-in, the watchdog restarting a stopped daemon (WatchdogSec=10s by a drop-in,
# the unit has 60s), the MGLRUD_* journal fields, mglructl over /run/mglrud/bus and busctl over
# the system bus (reads open, pause refused to nobody), the systemd-analyze security exposure,
# and purge. Every check prints check.NAME=ok|FAIL ...; the verdict fails if one failed.
# Args: MGLRUD_ARG_evict_s (longest wait for the eviction, default 180).
DEB=/mglrud/mglrud.deb
CG=vmtest.slice
WL_UNIT=coldwl
WL_CG=$CG/$WL_UNIT.scope
COLD_MIB=160
EVICT_S="${MGLRUD_ARG_evict_s:-180}"
DROPIN=/etc/mglrud/mglrud.conf.d/50-vmtest.conf
[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd (run-scenario --root-disk)"
assert_file "$DEB" "the package"
command -v anon-tiers >/dev/null || fail "anon-tiers not in the guest (build the workloads)"

FAILED=""
# check NAME CONDITION-RC DETAIL: records check.NAME=ok|FAIL DETAIL.
check() {
	if [ "$2" = 0 ]; then
		result "check.$1" "ok: $3"
	else
		result "check.$1" "FAIL: $3"
		FAILED="$FAILED $1"
		log "check $1 failed: $3"
	fi
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
show() { systemctl show -p "$1" --value mglrud; }
ctl() { timeout 30 mglructl "$@"; }
nobody() { timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# journal_mark FILE saves how many lines the unit's journal has; journal_since FILE prints
# the lines logged after that.
journal_mark() { journalctl -u mglrud -q --no-pager 2>/dev/null | wc -l > "$1"; }
journal_since() { journalctl -u mglrud -q --no-pager 2>/dev/null | tail -n +$(( $(cat "$1") + 1 )); }

result system_state "$(timeout 60 systemctl is-system-running --wait 2>&1)"
result systemd "$(systemctl --version | head -n 1)"

# --- install: dpkg -i enables and starts the service; the shipped configuration advises on the
# top-level slices (10-first-look.conf): system.slice at least, in Mode=advise.
dpkg -i "$DEB" > /tmp/dpkg-i.log 2>&1; rc=$?
result_file dpkg-i.log /tmp/dpkg-i.log
en=$(systemctl is-enabled mglrud 2>&1); act=$(systemctl is-active mglrud 2>&1)
for _ in $(seq 20); do # its first cycle may not have run yet
	ctl status > /tmp/status-installed.txt 2>&1
	grep -qE "^/system.slice +advise " /tmp/status-installed.txt && break
	sleep 1
done
result_file status-installed.txt /tmp/status-installed.txt
[ $rc = 0 ] && [ "$en" = enabled ] && [ "$act" = active ] &&
	grep -qE "^/system.slice +advise " /tmp/status-installed.txt
check install $? "dpkg -i rc=$rc, $en, $act, $(head -n 1 /tmp/status-installed.txt)"
[ -f /usr/share/dbus-1/system.d/org.mglrud.Manager1.conf ] && [ -x /usr/sbin/mglrud ] && [ -x /usr/bin/mglructl ] &&
	grep -q '^/etc/mglrud/mglrud.conf$' /var/lib/dpkg/info/mglrud.conffiles &&
	grep -q '^/etc/mglrud/mglrud.conf.d/10-first-look.conf$' /var/lib/dpkg/info/mglrud.conffiles
check files $? "mglrud, mglructl, D-Bus policy, conffiles mglrud.conf and mglrud.conf.d/10-first-look.conf"

# --- the first ten minutes: a workload in a slice no one configured. The packaged drop-in
# advises on it; at the end (after the checks below, minutes later) `mglructl advise` must
# say what it would free and which drop-in acts on it.
FL_CG=firstlook.slice
systemd-run --scope --quiet --slice="$FL_CG" --unit=firstlookwl \
	anon-tiers --cold 192 --warm 8 --hot 8 --warm-interval 5 --duration 0 --report 5 \
	> /tmp/fl.log 2>&1 &
FL=$!
wait_event /tmp/fl.log ready 120 || fail "anon-tiers did not start in $FL_CG"
fl_t0=$(date +%s)

# --- the workload: cold anon in a scope of vmtest.slice, which the drop-in below manages.
systemd-run --scope --quiet --slice="$CG" --unit="$WL_UNIT" -p MemoryMax=600M \
	anon-tiers --cold $COLD_MIB --warm 16 --hot 16 --warm-interval 5 --duration 0 --report 5 \
	> /tmp/wl.log 2>&1 &
WL=$!
wait_event /tmp/wl.log ready 120 || fail "anon-tiers did not start in $WL_CG"
[ -d "$CG_ROOT/$WL_CG" ] || fail "no cgroup $WL_CG"

write_dropin() { # MODE [EXTRA-LINE]
	cat > "$DROPIN" <<EOC
# service-systemd test: short cold ages so that mglrud acts within a minute.
[Daemon]
Interval=2s

[/$CG]
Mode=$1
MinColdAge=10s
MaxColdAge=40s
MaxStep=12M
$2
EOC
}
write_dropin active
# The unit says WatchdogSec=60s; 10s keeps the watchdog check short.
mkdir -p /etc/systemd/system/mglrud.service.d
printf '[Service]\nWatchdogSec=10s\n' > /etc/systemd/system/mglrud.service.d/50-vmtest.conf
systemctl daemon-reload
systemctl stop mglrud
mglrud --check-config > /tmp/check-config.txt 2>&1
check check_config $? "mglrud --check-config with the drop-in"
result_file check-config.txt /tmp/check-config.txt

# --- start: Type=notify, active (running), STATUS=.
ino=$(cg_inode "$CG")
steal0=$(cg_stat "$CG" pgsteal_proactive)
cur0=$(cg_read "$CG" memory.current)
journal_mark /tmp/cursor.start
t0=$(cut -d' ' -f1 /proc/uptime)
timeout 60 systemctl start mglrud; rc=$?
start_s=$(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime)
sleep 3
systemctl status mglrud --no-pager > /tmp/systemctl-status.txt 2>&1
result_file systemctl-status.txt /tmp/systemctl-status.txt
st_active=$(sed -n 's/^ *Active: \([a-z]* ([a-z]*)\).*/\1/p' /tmp/systemctl-status.txt)
st_status=$(sed -n 's/^ *Status: //p' /tmp/systemctl-status.txt)
result status_line "Active: $st_active; Status: $st_status; Type=$(show Type); NotifyAccess=$(show NotifyAccess)"
[ $rc = 0 ] && [ "$st_active" = "active (running)" ] && [ -n "$st_status" ] && [ "$(show Type)" = notify ]
check start $? "systemctl start rc=$rc in ${start_s}s, $st_active, Status: $st_status"

# --- an eviction under the sandbox: pgsteal_proactive grows and memory.current falls.
target=$((cur0 - COLD_MIB * 1048576 / 2))
t=0 reached="" tstart=$(date +%s)
while [ $t -lt "$EVICT_S" ]; do
	sleep 5
	t=$(( $(date +%s) - tstart ))
	cur=$(cg_read "$CG" memory.current)
	log "t=${t}s $CG memory.current $(mib "$cur") MiB swap $(mib "$(cg_read "$CG" memory.swap.current)") MiB"
	if [ "$cur" -le "$target" ]; then reached=$t; break; fi
done
steal1=$(cg_stat "$CG" pgsteal_proactive)
cur1=$(cg_read "$CG" memory.current)
result evict "memory.current $(mib "$cur0") -> $(mib "$cur1") MiB, pgsteal_proactive $steal0 -> $steal1, half the cold set gone after ${reached:-never} s"
[ -n "$reached" ] && [ "$steal1" -gt "$steal0" ]
check evict $? "memory.current $(mib "$cur0") -> $(mib "$cur1") MiB (target <= $(mib "$target")), pgsteal_proactive $steal0 -> $steal1"
hot_kib=$(event_get /tmp/wl.log report hot_kib)
hot_present=$(event_get /tmp/wl.log report hot_present_kib)
result hot_present_kib "$hot_present/$hot_kib"

journal_since /tmp/cursor.start > /tmp/journal-start.txt
grep -q "lru_gen full+write" /tmp/journal-start.txt
check lru_gen $? "$(grep -m1 -o 'cgroup root.*' /tmp/journal-start.txt)"
sp=$(grep -m1 "Stream protection" /tmp/journal-start.txt | sed 's/^.*mglrud\[[0-9]*\]: //')
result stream_protection "$sp"
echo "$sp" | grep -q "tracking page-cache insertions with BPF"
check bpf $? "$sp"

# --- the MGLRUD_* fields of an eviction in the journal.
journalctl -u mglrud -o json --no-pager > /tmp/journal.json 2>/dev/null
jfield() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }
grep '"MGLRUD_ACTION"' /tmp/journal.json | grep '"MGLRUD_BYTES_GOT"' | grep '"MGLRUD_REASON"' |
	grep '"MGLRUD_CGROUP"' | grep '"MGLRUD_BYTES"' > /tmp/journal-actions.json
n_actions=$(wc -l < /tmp/journal-actions.json)
ev=$(grep -v '"MGLRUD_BYTES_GOT":"0"' /tmp/journal-actions.json | tail -n 1)
[ -n "$ev" ] || ev=$(tail -n 1 /tmp/journal-actions.json)
jline="MGLRUD_CGROUP=$(echo "$ev" | jfield MGLRUD_CGROUP) MGLRUD_ACTION=$(echo "$ev" | jfield MGLRUD_ACTION)"
jline="$jline MGLRUD_BYTES=$(echo "$ev" | jfield MGLRUD_BYTES) MGLRUD_BYTES_GOT=$(echo "$ev" | jfield MGLRUD_BYTES_GOT)"
jline="$jline MGLRUD_REASON=$(echo "$ev" | jfield MGLRUD_REASON)"
result journal_fields "$n_actions records; e.g. $jline"
echo "$ev" > /tmp/journal-eviction.json
result_file journal-eviction.json /tmp/journal-eviction.json
[ "$n_actions" -gt 0 ] && echo "$jline" | grep -q "MGLRUD_CGROUP=/$CG"
check journal_fields $? "$n_actions records with all five fields"

# --- mglructl over /run/mglrud/bus, busctl over the system bus, unprivileged callers.
ctl status > /tmp/status.txt 2>&1; rc_status=$?
result_file status.txt /tmp/status.txt
[ -S /run/mglrud/bus ] && [ $rc_status = 0 ] && grep -q "/$CG" /tmp/status.txt
check mglructl_status $? "mglructl status rc=$rc_status (root, /run/mglrud/bus)"
owner=$(busctl --system status org.mglrud.Manager1 2>/dev/null | sed -n 's/^PID=//p')
timeout 30 busctl --system call org.mglrud.Manager1 /org/mglrud/Manager1 org.mglrud.Manager1 GetStatus \
	> /tmp/busctl-status.txt 2>&1; rc_bus=$?
result_file busctl-status.txt /tmp/busctl-status.txt
result busctl_GetStatus "rc=$rc_bus, name owned by pid ${owner:-none} (MainPID $(show MainPID)): $(head -c 160 /tmp/busctl-status.txt)"
[ $rc_bus = 0 ] && [ "$owner" = "$(show MainPID)" ] && grep -q '^a{sv}' /tmp/busctl-status.txt
check busctl $? "busctl --system call ... GetStatus rc=$rc_bus"
nobody mglructl status > /dev/null 2>&1; rc_ns=$?
nobody mglructl pause > /tmp/nobody-pause.txt 2>&1; rc_np=$?
nobody busctl --system call org.mglrud.Manager1 /org/mglrud/Manager1 org.mglrud.Manager1 GetStatus > /dev/null 2>&1; rc_nbs=$?
nobody busctl --system call org.mglrud.Manager1 /org/mglrud/Manager1 org.mglrud.Manager1 Pause s "" > /tmp/nobody-buspause.txt 2>&1; rc_nbp=$?
result nobody "mglructl status rc=$rc_ns, mglructl pause rc=$rc_np ($(head -n 1 /tmp/nobody-pause.txt)); busctl GetStatus rc=$rc_nbs, busctl Pause rc=$rc_nbp ($(head -n 1 /tmp/nobody-buspause.txt))"
[ $rc_ns = 0 ] && [ $rc_np = 4 ] && [ $rc_nbs = 0 ] && [ $rc_nbp != 0 ] && ! ctl dump | grep -q "Paused: yes"
check unprivileged $? "uid 65534: status rc=$rc_ns, pause rc=$rc_np (want 4), bus GetStatus rc=$rc_nbs, bus Pause rc=$rc_nbp (want refused)"

# --- reload: a changed drop-in applies; a broken one is reported and the old one kept.
mode_of() { ctl dump 2>/dev/null | awk -v p="-> /$CG" '$0 == p { f = 1; next } /^-> / { f = 0 } f && $1 == "Mode:" { print $2; exit }'; }
pid_before=$(show MainPID)
write_dropin advise
journal_mark /tmp/cursor.reload
timeout 60 systemctl reload mglrud; rc_reload=$?
i=0; while [ "$(mode_of)" != advise ] && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
mode1=$(mode_of)
[ $rc_reload = 0 ] && [ "$mode1" = advise ] && [ "$(show MainPID)" = "$pid_before" ]
check reload $? "Mode=advise: systemctl reload rc=$rc_reload, dump shows Mode: $mode1, same MainPID"
write_dropin active "MaxStep=banana"
journal_mark /tmp/cursor.broken
timeout 60 systemctl reload mglrud; rc_broken=$?
sleep 3
journal_since /tmp/cursor.broken > /tmp/journal-broken.txt
result_file journal-broken.txt /tmp/journal-broken.txt
err=$(grep -m1 banana /tmp/journal-broken.txt | sed 's/^.*mglrud\[[0-9]*\]: //')
kept=$(grep -m1 -i "keep" /tmp/journal-broken.txt | sed 's/^.*mglrud\[[0-9]*\]: //')
mode2=$(mode_of)
result broken_reload "rc=$rc_broken; journal: $err | $kept; Mode now $mode2; $(systemctl is-active mglrud)"
[ -n "$err" ] && [ "$mode2" = advise ] && [ "$(systemctl is-active mglrud)" = active ] && [ "$(show MainPID)" = "$pid_before" ]
check reload_broken $? "MaxStep=banana reported, old configuration (Mode: $mode2) kept, service $(systemctl is-active mglrud)"
write_dropin active
timeout 60 systemctl reload mglrud

# --- the watchdog: a stopped daemon is killed and restarted by systemd.
pid0=$(show MainPID); nr0=$(show NRestarts); wd=$(show WatchdogUSec)
journal_mark /tmp/cursor.wd
kill -STOP "$pid0"
tw=$(date +%s); pid1=$pid0
while [ $(( $(date +%s) - tw )) -lt 60 ]; do
	sleep 1
	pid1=$(show MainPID)
	[ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ] && [ "$(systemctl is-active mglrud)" = active ] && break
done
wd_s=$(( $(date +%s) - tw ))
nr1=$(show NRestarts)
journal_since /tmp/cursor.wd > /tmp/journal-watchdog.txt
result_file journal-watchdog.txt /tmp/journal-watchdog.txt
wdline=$(grep -m1 -i "watchdog" /tmp/journal-watchdog.txt | sed 's/^.*systemd\[1\]: //')
result watchdog "WatchdogUSec=$wd; MainPID $pid0 -> $pid1, NRestarts $nr0 -> $nr1 after ${wd_s}s; $wdline"
[ "$pid1" != "$pid0" ] && [ "$nr1" -gt "$nr0" ] && [ "$(systemctl is-active mglrud)" = active ]
check watchdog $? "SIGSTOPped MainPID $pid0 replaced by $pid1 after ${wd_s}s, NRestarts $nr0 -> $nr1"

# --- systemd-analyze security.
systemd-analyze security mglrud.service --no-pager > /tmp/security.txt 2>&1
result_file security.txt /tmp/security.txt
exposure=$(grep -m1 "Overall exposure level" /tmp/security.txt | sed 's/^.*mglrud.service: //')
result exposure "$exposure"
[ -n "$exposure" ]
check security $? "systemd-analyze security: $exposure"

# --- the first ten minutes, continued: firstlook.slice was only advised on (its memory is all
# resident); mglructl advise says what it would free and prints the drop-in for it.
fl_advise() { ctl advise > /tmp/advise-first-look.txt 2>&1; }
fl_known() { grep -qE "^  /$FL_CG +[0-9.]+[KMGT]? \(" /tmp/advise-first-look.txt; }
while fl_advise; ! fl_known && [ $(( $(date +%s) - fl_t0 )) -lt 300 ]; do sleep 10; done
fl_s=$(( $(date +%s) - fl_t0 ))
result_file advise-first-look.txt /tmp/advise-first-look.txt
fl_line=$(grep -E "^  /$FL_CG " /tmp/advise-first-look.txt | tr -s ' ')
fl_swap=$(cg_read "$FL_CG" memory.swap.current)
fl_steal=$(cg_stat "$FL_CG" pgsteal_proactive)
result first_look "after ${fl_s}s:$fl_line; swap ${fl_swap}, pgsteal_proactive ${fl_steal}"
fl_known && grep -qF "/etc/mglrud/mglrud.conf.d/50-$FL_CG.conf" /tmp/advise-first-look.txt &&
	grep -qx "  \[/$FL_CG\]" /tmp/advise-first-look.txt && [ "$fl_swap" = 0 ] && [ "$fl_steal" = 0 ]
check first_look $? "after ${fl_s}s:$fl_line; nothing evicted (swap $fl_swap, pgsteal_proactive $fl_steal)"
# The cost of the advice is the ageing: one "+" on lru_gen walks the cgroup's page tables. Timed
# here by hand, three times, in the shell that writes it (the kernel CPU of the write).
fl_id=$(cg_inode "$FL_CG")
fl_cur=$(cg_read "$FL_CG" memory.current)
fl_ms=""
for _ in 1 2 3; do
	seq=$(lru_gen_max_seq "$fl_id")
	ms=$(bash -c "echo '+ $fl_id 0 $seq' > $LRU_GEN && times" 2>/dev/null |
		awk 'NR == 1 { split($2, t, "m"); sub("s", "", t[2]); printf "%d", (t[1] * 60 + t[2]) * 1000 }')
	fl_ms="$fl_ms ${ms:-?}"
done
result ageing_cost "one ageing of $FL_CG ($(mib "$fl_cur") MiB): kernel CPU ms$fl_ms"
kill "$FL" 2>/dev/null

# --- purge: the package's files go, the administrator's drop-in stays.
kill "$WL" 2>/dev/null
dpkg --purge mglrud > /tmp/dpkg-purge.log 2>&1; rc=$?
result_file dpkg-purge.log /tmp/dpkg-purge.log
left=$(find /etc/mglrud /run/mglrud /lib/systemd/system/mglrud.service /usr/sbin/mglrud 2>/dev/null | tr '\n' ' ')
result purge "rc=$rc, active=$(systemctl is-active mglrud), left: ${left:-nothing}"
[ $rc = 0 ] && [ "$(systemctl is-active mglrud)" != active ] && [ ! -e /run/mglrud ] &&
	[ "$left" = "/etc/mglrud /etc/mglrud/mglrud.conf.d $DROPIN " ]
check purge $? "dpkg --purge rc=$rc; left: ${left:-nothing} (the test's own drop-in only)"

journalctl -u mglrud --no-pager > /tmp/journal.txt 2>&1
result_file journal.txt /tmp/journal.txt
[ -z "$FAILED" ] || fail "checks failed:$FAILED"
pass "package installed, started (notify), evicted $(mib $((cur0 - cur1))) MiB under the sandbox, reloads, watchdog restart in ${wd_s}s, exposure $exposure"
