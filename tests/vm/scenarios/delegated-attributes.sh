# delegated-attributes: user.mglrud.* xattrs set by the owner of a delegated subtree (man/mglrud.8,
# SECURITY). deleg.slice/u1000 and its cgroups are chowned to uid 1000 (as systemd's Delegate=
# does); that uid, through setpriv, runs mglrud-oci-hook (what a rootless runtime runs) on three
# of them: (a) Mode=active MaxStep=4M on "unsel", which no section selects; (b) Mode=active on
# "off", which an exact-path section sets Mode=off; (c) MaxStep=1T MinColdAge=1s MaxColdAge=10min
# Swappiness=max on "job" (section: MaxStep=8M MinColdAge=30s MaxColdAge=2min). With the default
# CgroupAttributes=root-owned mglrud must ignore them all (and say so once per attribute); after
# CgroupAttributes=delegated and a reload it must still leave (a) and (b) alone and clamp (c) to
# MaxStep=8M MinColdAge=30s while taking the more careful MaxColdAge=10min; Swappiness never
# gets recorded (the hook refuses it).
need_bin mglrud
need_bin mglructl
need_bin mglrud-oci-hook
SETPRIV=/usr/local/bin/setpriv
[ -x $SETPRIV ] || fail "setpriv is not in the initramfs (util-linux on the build host)"
U=1000
D=deleg.slice/u1000
for c in unsel off job; do cg_create "$D/$c"; done
# The delegated subtree: its directories and files belong to the user.
chown -R $U:$U "$CG_ROOT/$D"
result owner "$(stat -c %u "$CG_ROOT/$D/job")"

conf() {
	cat > /tmp/deleg.conf <<EOC
[Daemon]
Interval=2s
$1

[Defaults]
MinColdAge=30s
MaxColdAge=2min
MaxStep=8M

[/$D/job]
Mode=active

[/$D/off]
Mode=off
EOC
}
conf ""

# as_user CG ANNOTATIONS: the hook, as uid 1000, records ANNOTATIONS (JSON members) on CG.
as_user() {
	mkdir -p "/tmp/b-$1" && chmod 755 "/tmp/b-$1"
	printf '{"linux":{"cgroupsPath":"/%s/%s"}}\n' "$D" "$1" > "/tmp/b-$1/config.json"
	# The hook arms a 100 ms deadline before it parses --timeout: on a loaded host under TCG
	# (ASan) it can pass before, and the hook ends with nothing recorded. Try again then.
	for try in 1 2 3 4 5; do
		printf '{"ociVersion":"1.0.2","id":"%s","status":"creating","pid":0,"bundle":"/tmp/b-%s","annotations":{%s}}\n' \
			"$1" "$1" "$2" |
			ASAN_OPTIONS=detect_leaks=0 timeout 90 $SETPRIV --reuid=$U --regid=$U --clear-groups \
				mglrud-oci-hook --config /tmp/deleg.conf --log-target stderr --timeout 10s 2>> /tmp/hook.log
		grep -q "^$1: recorded" /tmp/hook.log && return 0
	done
	fail "the hook recorded nothing on $1 in 5 tries (its 100 ms deadline on a loaded host)"
}
as_user unsel '"io.mglrud.Mode":"active","io.mglrud.MaxStep":"4M"'
as_user off '"io.mglrud.Mode":"active"'
as_user job '"io.mglrud.MaxStep":"1T","io.mglrud.MinColdAge":"1s","io.mglrud.MaxColdAge":"10min","io.mglrud.Swappiness":"max"'
result_file hook.log /tmp/hook.log
log "hook log:"; cat /tmp/hook.log
grep -q "recorded .*MaxStep=1T" /tmp/hook.log || fail "uid $U could not record its xattrs on job"
grep -q "recorded Mode=active" /tmp/hook.log || fail "uid $U could not record Mode=active"
grep -q "refused 1 of 4 io.mglrud.\* annotations: io.mglrud.Swappiness=max (not allowed" /tmp/hook.log || fail "the hook took Swappiness"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mglrud --cgroup-root /sys/fs/cgroup --config /tmp/deleg.conf --runtime-dir /run/mglrud \
	--log-level info > /tmp/mglrud.log 2>&1 &
D_PID=$!
ctl() { timeout 30 mglructl --runtime-dir /run/mglrud "$@"; }
# (Generous waits: under TCG on a loaded host the ASan daemon may take many seconds to start.)
for i in $(seq 1 300); do [ -S /run/mglrud/bus ] && break; sleep 0.2; done
[ -S /run/mglrud/bus ] || fail "no bus socket"
for i in $(seq 1 60); do ctl status 2>/dev/null | grep -q "^/$D/job " && break; sleep 1; done
sleep 6 # a few cycles, and rescans that must not repeat a refusal
ctl status > /tmp/status-root-owned.txt; ctl dump > /tmp/dump-root-owned.txt
result_file status-root-owned.txt /tmp/status-root-owned.txt
result_file dump-root-owned.txt /tmp/dump-root-owned.txt

# Now trust the user's directories: a reload, the same daemon.
conf "CgroupAttributes=delegated"
kill -HUP $D_PID
for i in $(seq 1 120); do grep -q "Configuration reloaded" /tmp/mglrud.log && break; sleep 0.5; done
grep -q "Configuration reloaded" /tmp/mglrud.log || fail "no reload"
sleep 6
ctl status > /tmp/status-delegated.txt; ctl dump > /tmp/dump-delegated.txt
result_file status-delegated.txt /tmp/status-delegated.txt
result_file dump-delegated.txt /tmp/dump-delegated.txt
kill -TERM $D_PID; wait $D_PID; rc=$?
result_file mglrud.log /tmp/mglrud.log
result daemon_rc "$rc"
[ "$rc" = 0 ] || fail "mglrud exited $rc"

# count N TEXT: the daemon's log has TEXT on exactly N lines.
count() { n=$(grep -cF -- "$2" /tmp/mglrud.log); [ "$n" = "$1" ] || fail "$n lines, not $1: $2"; }
why="the directory is owned by uid $U (CgroupAttributes=root-owned)"
for f in root-owned delegated; do
	s=/tmp/status-$f.txt
	grep -q "^/$D/job " $s || fail "$f: job is not managed"
	grep -q "^/$D/unsel " $s && fail "$f: (a) the unselected cgroup is managed"
	grep -q "^/$D/off " $s && fail "$f: (b) the Mode=off cgroup is managed"
	result "${f}_managed" "$(grep -c "^/$D/" $s)"
done
# root-owned: nothing counts, each attribute said once (over the rescans of 6 s)
grep -A8 -xF -- "-> /$D/job" /tmp/dump-root-owned.txt | grep -q Override && fail "root-owned: an xattr counts"
count 1 "/$D/unsel: ignoring the xattr user.mglrud.Mode=active: $why"
count 1 "/$D/unsel: ignoring the xattr user.mglrud.MaxStep=4M: $why"
count 1 "/$D/off: ignoring the xattr user.mglrud.Mode=active: $why"
count 1 "/$D/job: ignoring the xattr user.mglrud.MaxStep=1T: $why"
count 1 "/$D/job: ignoring the xattr user.mglrud.MinColdAge=1s: $why"
# delegated: (c) clamped to the section, the careful MaxColdAge kept, (b) refused
job=$(grep -A8 -xF -- "-> /$D/job" /tmp/dump-delegated.txt)
for kv in MaxStep=8M MinColdAge=30s MaxColdAge=10min; do
	echo "$job" | grep -qxF "        Override: $kv (annotation)" || fail "delegated: no $kv: $job"
done
count 1 "/$D/job: the xattr user.mglrud.MaxStep=1T: above the configuration's 8M for this cgroup: clamped to it"
count 1 "/$D/job: the xattr user.mglrud.MinColdAge=1s: below the configuration's 30s for this cgroup: clamped to it"
count 1 "/$D/off: the xattr user.mglrud.Mode=active: an exact-path section sets Mode=off for this cgroup: ignored"
grep -q "Managing /$D/unsel\|Managing /$D/off" /tmp/mglrud.log && fail "(a) or (b) was managed at some point"
pass "uid $U's xattrs: ignored (root-owned), clamped to 8M/30s (delegated); unselected and Mode=off cgroups never managed"
