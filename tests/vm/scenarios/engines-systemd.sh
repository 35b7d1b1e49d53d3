# engines-systemd: the real engines and monitoring around the Debian package, under systemd as
# PID 1 on the engines root disk (mkrootfs.sh --engines installs them; the guest has no network).
# run-scenario: --root-disk=engines
# - Docker 20.10 (systemd cgroup driver): an image made here by `docker import` of a busybox root
#   with anon-tiers, `docker run -d --memory 256m` holding cold anon memory, managed by a
#   [Container:docker] drop-in: recognised from the scope Docker made, shown in status and dump
#   with runtime docker and the short id, its cold memory evicted, released after docker rm -f.
# - Podman 4.3 (rootful): `podman run --annotation io.mglrud.policy=batch --annotation
#   io.mglrud.MinColdAge=2min`: the package's hooks.d entry makes Podman run mglrud-oci-hook; the
#   container is listed with runtime podman, [Policy:batch] and the annotated key (above the
#   section's 1min: an annotation may only make the policy more careful, a lower one is clamped).
# - node-exporter 1.5's textfile collector reads the metrics file the package's example drop-in
#   (examples/mglrud.service.d/60-node-exporter.conf) makes mglrud write; a real Prometheus 2.42
#   scrapes it on loopback and its HTTP API answers mglrud_* queries (and a recording rule of
#   the package's rules file when it ships one).
# Every check prints check.NAME=ok|FAIL ...; the verdict fails if one failed. The engines' real
# layouts are sent as files capture/* (tests/fixtures/containers-7.3/engines holds them).
# Args: MGLRUD_ARG_evict_s (longest wait for the Docker eviction, default 150).
DEB=/mglrud/mglrud.deb
EVICT_S="${MGLRUD_ARG_evict_s:-150}"
COLD_MIB=64
DROPIN=/etc/mglrud/mglrud.conf.d/50-engines.conf
EXAMPLES=/usr/share/doc/mglrud/examples
TEXTFILE_DIR=/var/lib/prometheus/node-exporter
[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd (run-scenario --root-disk)"
assert_file "$DEB" "the package"
command -v anon-tiers >/dev/null || fail "anon-tiers not in the guest (build the workloads)"
for p in dockerd podman prometheus prometheus-node-exporter curl; do
	command -v "$p" >/dev/null || fail "$p is not in the root image (tests/vm/mkrootfs.sh --engines)"
done

FAILED=""
# check NAME CONDITION-RC DETAIL: records check.NAME=ok|FAIL DETAIL.
check() {
	if [ "$2" = 0 ]; then
		result "check.$1" "ok: $3"
		log "check $1 ok ($(up) s)"
	else
		result "check.$1" "FAIL: $3"
		FAILED="$FAILED $1"
		log "check $1 failed: $3"
	fi
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ctl() { timeout 30 mglructl "$@"; }
up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" '{ printf "%.1f", $1 - a }' /proc/uptime; }
# dump_block PATH: the lines of `mglructl dump` about the cgroup PATH.
dump_block() { ctl dump 2>/dev/null | awk -v p="-> $1" '$0 == p { f = 1; next } /^-> / { f = 0 } f'; }
# capture NAME: stdin becomes capture/NAME (a small text file for the fixtures).
capture() { result_text "capture/$1"; }
# prom_query QUERY: Prometheus's /api/v1/query answer (JSON) for QUERY.
prom_query() { curl -s --max-time 20 -G --data-urlencode "query=$1" http://127.0.0.1:9090/api/v1/query; }
# prom_value JSON: the first sample's value of a query answer ("" when the result is empty).
prom_value() { echo "$1" | sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p' | head -n 1; }

result system_state "$(timeout 60 systemctl is-system-running --wait 2>&1)"
result versions "$(dockerd --version); $(podman --version); $(prometheus --version 2>&1 | head -n 1); $(prometheus-node-exporter --version 2>&1 | head -n 1)"

# --- the package, with the node-exporter drop-in of its examples and the engines' sections.
dpkg -i "$DEB" > /tmp/dpkg-i.log 2>&1 || { cat /tmp/dpkg-i.log; fail "dpkg -i failed"; }
mkdir -p /etc/systemd/system/mglrud.service.d
cp "$EXAMPLES/mglrud.service.d/60-node-exporter.conf" /etc/systemd/system/mglrud.service.d/
check example_dropin $? "$EXAMPLES/mglrud.service.d/60-node-exporter.conf installed by the package"
cat > "$DROPIN" <<'EOC'
# engines-systemd: short cold ages so that mglrud acts within a minute.
[Daemon]
Interval=2s

# Docker 20.10 gives OCI hooks no annotations: a Docker container's policy comes from here.
[Container:docker]
Mode=active
MinColdAge=10s
MaxColdAge=40s
MaxStep=12M

[Container:podman]
Mode=advise
MinColdAge=5min

# Chosen by a container's annotation io.mglrud.policy=batch (Podman's hook).
[Policy:batch]
Mode=active
MinColdAge=1min
MaxColdAge=2min
EOC
systemctl daemon-reload
timeout 60 systemctl restart mglrud
check mglrud_start $? "mglrud restarted with the drop-ins: $(systemctl show -p ExecStart --value mglrud | grep -o 'argv\[\]=[^;]*')"

# --- node-exporter (textfile collector only: every other collector would cost TCG time each
# scrape) and Prometheus on loopback, started now: they need a while under TCG.
echo "ARGS=\"--collector.disable-defaults --collector.textfile --web.listen-address=127.0.0.1:9100\"" \
	> /etc/default/prometheus-node-exporter
timeout 90 systemctl start prometheus-node-exporter
check node_exporter_start $? "prometheus-node-exporter.service $(systemctl is-active prometheus-node-exporter)"
mkdir -p /tmp/prom
RULES=""
# The rules as the package installs them, else the tree's (mkinitramfs.sh copies etc/prometheus).
for f in "$EXAMPLES/mglrud-rules.yml" "$EXAMPLES/prometheus/mglrud-rules.yml" \
	/mglrud/prometheus/mglrud-rules.yml; do
	if [ -f "$f" ]; then cp "$f" /tmp/prom/rules.yml; RULES=$f; break; fi
	if [ -f "$f.gz" ]; then zcat "$f.gz" > /tmp/prom/rules.yml; RULES=$f.gz; break; fi
done
{
	echo "global: { scrape_interval: 3s, evaluation_interval: 3s }"
	[ -z "$RULES" ] || echo "rule_files: [ /tmp/prom/rules.yml ]"
	echo "scrape_configs:"
	echo "  - job_name: node"
	echo "    static_configs: [ { targets: [ '127.0.0.1:9100' ] } ]"
} > /tmp/prom/prometheus.yml
result_file prometheus.yml /tmp/prom/prometheus.yml
result rules_file "${RULES:-none in the package}"
chown -R prometheus /tmp/prom
systemd-run --quiet --unit=prom-test -p User=prometheus -p ReadWritePaths=/tmp/prom \
	/usr/bin/prometheus --config.file=/tmp/prom/prometheus.yml --storage.tsdb.path=/tmp/prom/data \
	--web.listen-address=127.0.0.1:9090

# --- Docker: the daemon without networking (no bridge, no iptables: the guest has neither) and
# vfs storage (the overlay module is not in the test initramfs).
mkdir -p /etc/docker
cat > /etc/docker/daemon.json <<'EOC'
{ "storage-driver": "vfs", "bridge": "none", "iptables": false, "ip-masq": false,
  "ip6tables": false, "ip-forward": false }
EOC
t0=$(up)
timeout 240 systemctl start docker
check docker_start $? "docker.service $(systemctl is-active docker) after $(since "$t0") s, cgroup driver $(docker info -f '{{.CgroupDriver}} (cgroup v{{.CgroupVersion}})' 2>&1)"

# The image: busybox and anon-tiers with its libraries (an ASan build's runtimes included).
IMG=/tmp/img
mkdir -p $IMG/bin $IMG/tmp $IMG/proc $IMG/dev $IMG/sys
cp /bin/busybox $IMG/bin/ && for a in sh sleep cat ls; do ln -s busybox $IMG/bin/$a; done
cp --parents /usr/local/bin/anon-tiers $IMG/
for l in $(ldd /usr/local/bin/anon-tiers | awk '/=>/ { if ($3 ~ /^\//) print $3; next } $1 ~ /^\// { print $1 }'); do
	cp -L --parents "$l" $IMG/
done
tar -C $IMG -cf /tmp/img.tar .
result image_tar "$(du -k /tmp/img.tar | cut -f1) KiB"
t0=$(up)
docker import /tmp/img.tar mglrud-test:1 > /dev/null
check docker_import $? "docker import in $(since "$t0") s: $(docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' mglrud-test 2>&1)"

journalctl -u mglrud -q --no-pager | wc -l > /tmp/cursor.docker
t0=$(up)
# The guest kernel has AppArmor on, the image no apparmor_parser: Docker could not load its
# docker-default profile, so the container runs unconfined.
docker run -d --name cold --memory 256m --security-opt apparmor=unconfined \
	-e ASAN_OPTIONS=detect_leaks=0 mglrud-test:1 \
	/usr/local/bin/anon-tiers --cold $COLD_MIB --warm 8 --hot 8 --warm-interval 2 --duration 0 \
	--report 5 > /tmp/docker-run.txt 2>&1
rc=$?
DID=$(docker inspect -f '{{.Id}}' cold 2>/dev/null)
DSHORT=$(echo "$DID" | cut -c1-12)
DCG=system.slice/docker-$DID.scope
i=0; while ! docker logs cold 2>&1 | grep -q '^event=ready '; do
	i=$((i + 1)); [ $i -lt 120 ] || break; sleep 1
done
docker logs cold > /tmp/docker-wl.log 2>&1
result docker_run "rc=$rc, id $DID, workload ready after $(since "$t0") s"
result docker_cgroup "/$DCG"
# Before Podman's commands: mglrud ages and evicts while they run.
cur0=$(cg_read "$DCG" memory.current)
steal0=$(cg_stat "$DCG" pgsteal_proactive)
swap0=$(cg_read "$DCG" memory.swap.current)
tready=$(date +%s)
docker inspect -f '{{json .State}}' cold > /tmp/docker-state.json 2>&1
for f in docker-run.txt docker-wl.log docker-state.json; do result_file "$f" "/tmp/$f"; done
[ $rc = 0 ] && [ -d "$CG_ROOT/$DCG" ] && grep -q '^event=ready ' /tmp/docker-wl.log
check docker_run $? "docker run -d --memory 256m: cgroup /$DCG $([ -d "$CG_ROOT/$DCG" ] && echo exists || echo missing)"
if [ ! -d "$CG_ROOT/$DCG" ]; then
	log "docker run: $(head -c 600 /tmp/docker-run.txt)"
	log "docker logs: $(tail -n 5 /tmp/docker-wl.log)"
	log "docker state: $(head -c 400 /tmp/docker-state.json)"
	journalctl -u docker -u containerd -q --no-pager | tail -n 15 | sed 's/^/MGLRUD-LOG: docker.service: /'
fi
DPID=$(docker inspect -f '{{.State.Pid}}' cold 2>/dev/null)
{
	echo "# docker 20.10 (systemd driver), cgroup v2: cgroups naming the container, /proc/PID/cgroup of"
	echo "# its process, of containerd-shim and of dockerd; memory.max of its scope (--memory 256m)."
	find "$CG_ROOT" -name "*$DID*" -type d | sed "s|^$CG_ROOT||" | sort
	echo "container pid: $(cat /proc/"$DPID"/cgroup)"
	for p in $(pgrep -f containerd-shim | head -n 1) $(pgrep -x dockerd); do
		echo "$(cat /proc/"$p"/comm) pid: $(cat /proc/"$p"/cgroup)"
	done
	b=/run/containerd/io.containerd.runtime.v2.task/moby/$DID/config.json
	echo "cgroupsPath: $(tr -d '\n\t ' < "$b" | sed -n 's/.*"cgroupsPath":"\([^"]*\)".*/\1/p')"
	echo "memory.max: $(cg_read "$DCG" memory.max)"
	echo "memory.swap.max: $(cg_read "$DCG" memory.swap.max)"
	echo "cgroup.subtree_control: $(cg_read "$DCG" cgroup.subtree_control)"
	echo "sub-cgroups: $(find "$CG_ROOT/$DCG" -mindepth 1 -type d | wc -l)"
} | capture docker-20.10.txt

# --- Podman (rootful), started while mglrud ages the Docker container's memory: the package's
# hooks.d entry puts mglrud-oci-hook into the container's createRuntime hooks.
PODMAN="podman --storage-driver vfs"
t0=$(up)
$PODMAN import /tmp/img.tar localhost/mglrud-test:1 > /dev/null 2>/tmp/podman-import.err
check podman_import $? "podman import in $(since "$t0") s $(head -c 200 /tmp/podman-import.err)"
# podman_run NAME: runs a sleeping container NAME with the two annotations; sets PID_ (its id),
# PSHORT, PCG, rc and HOOK (the hook's journal line, "" if it logged none).
podman_run() {
	journalctl -q --no-pager | wc -l > /tmp/cursor.podman
	t0=$(up)
	$PODMAN run -d --name "$1" --network none --annotation io.mglrud.policy=batch \
		--annotation io.mglrud.MinColdAge=2min localhost/mglrud-test:1 /bin/sleep 100000 \
		> /tmp/podman-run.txt 2>&1
	rc=$?
	PID_=$($PODMAN inspect -f '{{.Id}}' "$1" 2>/dev/null)
	PSHORT=$(echo "$PID_" | cut -c1-12)
	PCG=machine.slice/libpod-$PID_.scope
	result "podman_run.$1" "rc=$rc in $(since "$t0") s, id $PID_, runtime $($PODMAN inspect -f '{{.OCIRuntime}}' "$1" 2>&1)"
	b=$(find /var/lib/containers /run/containers -path "*$PID_*" -name config.json 2>/dev/null | head -n 1)
	result "oci_hooks.$1" "$(tr -d '\n\t ' < "$b" | grep -o '"createRuntime":\[[^]]*\]')"
	sleep 2
	journalctl -q --no-pager -o short-monotonic | tail -n +$(( $(cat /tmp/cursor.podman) + 1 )) > /tmp/journal-podman.txt
	HOOK=$(grep -a "mglrud-oci-hook" /tmp/journal-podman.txt | head -n 1 | sed 's/^.*mglrud-oci-hook\[[0-9]*\]: //')
	result "hook.$1" "${HOOK:-no record in the journal}"
}
podman_run annotated
cp /tmp/journal-podman.txt /tmp/journal-podman-package.txt
result_file journal-podman-package.txt /tmp/journal-podman-package.txt
if ! echo "$HOOK" | grep -q "recorded policy=batch MinColdAge=2min"; then
	# The hook ends itself after 100 ms (it must never slow a container start); an emulated
	# guest needs longer for the exec alone. The same entry with a longer deadline, in the
	# directory that overrides the package's (oci-hooks(5)), and a second container.
	log "the package's hook entry recorded nothing within its 100 ms deadline (${HOOK:-no journal line}); again with --timeout 5s"
	mkdir -p /etc/containers/oci/hooks.d
	sed 's|"args": \["mglrud-oci-hook"\]|"args": ["mglrud-oci-hook", "--timeout", "5s"]|' \
		/usr/share/containers/oci/hooks.d/50-mglrud.json > /etc/containers/oci/hooks.d/50-mglrud.json
	result_file hooks.d-override.json /etc/containers/oci/hooks.d/50-mglrud.json
	podman_run annotated2
fi
result podman_cgroup "/$PCG"
[ $rc = 0 ] && [ -d "$CG_ROOT/$PCG" ]
check podman_run $? "podman run -d --annotation ...: cgroup /$PCG $([ -d "$CG_ROOT/$PCG" ] && echo exists || echo missing) $(head -c 300 /tmp/podman-run.txt)"
echo "$HOOK" | grep -q "recorded policy=batch MinColdAge=2min"
check podman_hook $? "mglrud-oci-hook ran from Podman's hooks.d: $HOOK"
PPID_=$($PODMAN inspect -f '{{.State.Pid}}' "$PID_" 2>/dev/null)
CONMON=$($PODMAN inspect -f '{{.State.ConmonPid}}' "$PID_" 2>/dev/null)
{
	echo "# podman 4.3 (rootful, systemd cgroup manager), cgroup v2: cgroups naming the container,"
	echo "# /proc/PID/cgroup of its process and of conmon, the bundle's linux.cgroupsPath, and the"
	echo "# journal (monotonic seconds) from the scopes' start to the hook's record and mglrud's pick-up."
	find "$CG_ROOT" -name "*$PID_*" -type d | sed "s|^$CG_ROOT||" | sort
	echo "container pid: $(cat /proc/"$PPID_"/cgroup)"
	echo "conmon pid: $(cat /proc/"$CONMON"/cgroup)"
	b=$(find /var/lib/containers /run/containers -path "*$PID_*" -name config.json 2>/dev/null | head -n 1)
	echo "cgroupsPath: $(tr -d '\n\t ' < "$b" | sed -n 's/.*"cgroupsPath":"\([^"]*\)".*/\1/p')"
	echo "hooks in config.json: $(tr -d '\n\t ' < "$b" | grep -o '"createRuntime":\[[^]]*\]')"
} | capture podman-4.3.txt
i=0; while ! dump_block "/$PCG" | grep -q "Section:" && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
dump_block "/$PCG" > /tmp/dump-podman.txt
result_file dump-podman.txt /tmp/dump-podman.txt
journalctl -q --no-pager -o short-monotonic | grep -a -e "$PID_" -e "mglrud-oci-hook" |
	sed "s/ mglrud-vm / /; s/$PID_/<id>/g" | tail -n 12 | capture podman-4.3-timeline.txt
grep -q "Container: podman $PSHORT" /tmp/dump-podman.txt && grep -q "Section: \[Policy:batch\]" /tmp/dump-podman.txt &&
	grep -q "Mode: active" /tmp/dump-podman.txt && grep -q "Override: MinColdAge=2min (annotation)" /tmp/dump-podman.txt
check podman_policy $? "dump: $(tr -s ' ' < /tmp/dump-podman.txt | grep -E 'Container|Section|Mode|Override' | tr '\n' ';')"

# --- the Docker container's cold memory: evicted by mglrud.
target=$((cur0 - COLD_MIB * 1048576 / 2))
reached=""
while [ -d "$CG_ROOT/$DCG" ]; do
	t=$(( $(date +%s) - tready ))
	cur=$(cg_read "$DCG" memory.current)
	log "t=${t}s $DCG memory.current $(mib "$cur") MiB swap $(mib "$(cg_read "$DCG" memory.swap.current)") MiB"
	if [ "$cur" -le "$target" ]; then reached="<= $t"; break; fi
	[ $t -lt "$EVICT_S" ] || break
	sleep 5
done
cur1=$(cg_read "$DCG" memory.current)
steal1=$(cg_stat "$DCG" pgsteal_proactive)
swap1=$(cg_read "$DCG" memory.swap.current)
result docker_evict "memory.current $(mib "$cur0") -> $(mib "$cur1") MiB, memory.swap.current $(mib "$swap0") -> $(mib "$swap1") MiB, pgsteal_proactive $steal0 -> $steal1, half the cold set gone ${reached:-never} s after the workload was ready"
[ -n "$reached" ] && [ "$steal1" -gt "$steal0" ]
check docker_evict $? "memory.current $(mib "$cur0") -> $(mib "$cur1") MiB (target <= $(mib "$target")), pgsteal_proactive $steal0 -> $steal1"
ctl status > /tmp/status.txt 2>&1; rc_status=$?
result_file status.txt /tmp/status.txt
result docker_status_line "$(grep -F "/$DCG" /tmp/status.txt)"
result podman_status_line "$(grep -F "/$PCG" /tmp/status.txt)"
[ $rc_status = 0 ] && grep -F "/$DCG" /tmp/status.txt | grep -q "docker $DSHORT" &&
	grep -F "/$PCG" /tmp/status.txt | grep -q "podman $PSHORT"
check status $? "mglructl status rc=$rc_status lists docker $DSHORT and podman $PSHORT"
dump_block "/$DCG" > /tmp/dump-docker.txt
result_file dump-docker.txt /tmp/dump-docker.txt
grep -q "Container: docker $DSHORT" /tmp/dump-docker.txt && grep -q "Section: \[Container:docker\]" /tmp/dump-docker.txt
check docker_dump $? "dump: $(tr -s ' ' < /tmp/dump-docker.txt | grep -E 'Container|Section|Mode|Reclaimed' | tr '\n' ';')"
journalctl -u mglrud -q --no-pager | tail -n +$(( $(cat /tmp/cursor.docker) + 1 )) > /tmp/journal-docker.txt
result docker_managed "$(grep -m1 "Managing /$DCG" /tmp/journal-docker.txt | sed 's/^.*mglrud\[[0-9]*\]: //')"

# --- Prometheus: node-exporter serves the metrics file, Prometheus has scraped it.
ls -la "$TEXTFILE_DIR" > /tmp/textfile-dir.txt 2>&1
result_file textfile-dir.txt /tmp/textfile-dir.txt
curl -s --max-time 20 http://127.0.0.1:9100/metrics > /tmp/node-metrics.txt
grep -E '^(mglrud_cycles_total|mglrud_cgroups_managed|node_textfile_scrape_error)' /tmp/node-metrics.txt > /tmp/node-mglrud.txt
result node_exporter "$(tr '\n' ';' < /tmp/node-mglrud.txt)"
grep -q '^mglrud_cycles_total ' /tmp/node-metrics.txt && grep -q '^node_textfile_scrape_error 0' /tmp/node-metrics.txt
check node_exporter $? "node-exporter's /metrics: $(grep -c '^mglrud_' /tmp/node-metrics.txt) mglrud_ samples, $(grep '^node_textfile_scrape_error' /tmp/node-metrics.txt)"
i=0; while [ -z "$(prom_value "$(prom_query 'mglrud_cycles_total')")" ] && [ $i -lt 60 ]; do sleep 2; i=$((i + 1)); done
: > /tmp/prom-answers.txt
for q in 'mglrud_cycles_total' 'mglrud_cgroups_managed' \
	'count(count by (cgroup) (mglrud_cold_bytes{runtime="docker"}))' \
	'count(count by (cgroup) (mglrud_cold_bytes{runtime="podman"}))' 'sum by (type) (mglrud_cold_bytes)'; do
	a=$(prom_query "$q")
	echo "$q => $a" >> /tmp/prom-answers.txt
	result "prom[$q]" "$(prom_value "$a")"
done
result_file prom-answers.txt /tmp/prom-answers.txt
cycles=$(prom_value "$(prom_query 'mglrud_cycles_total')")
managed=$(prom_value "$(prom_query 'mglrud_cgroups_managed')")
ndocker=$(prom_value "$(prom_query 'count(count by (cgroup) (mglrud_cold_bytes{runtime="docker"}))')")
[ -n "$cycles" ] && [ "$cycles" -gt 0 ] && [ -n "$managed" ] && [ "$managed" -ge 2 ] && [ "$ndocker" = 1 ]
check prometheus $? "Prometheus API: mglrud_cycles_total=$cycles, mglrud_cgroups_managed=$managed, docker containers in mglrud_cold_bytes: $ndocker"
if [ -n "$RULES" ]; then
	rule=$(prom_value "$(prom_query 'instance:mglrud_cold_bytes:sum')")
	direct=$(prom_value "$(prom_query 'sum by (instance, job) (mglrud_cold_bytes)')")
	result "prom[instance:mglrud_cold_bytes:sum]" "$rule (the expression now: $direct)"
	[ -n "$rule" ]
	check prometheus_rule $? "recording rule instance:mglrud_cold_bytes:sum = ${rule:-no sample} (sum by (instance, job) (mglrud_cold_bytes) = $direct)"
fi
journalctl -u prom-test -q --no-pager | tail -n 20 > /tmp/prometheus.log
result_file prometheus.log /tmp/prometheus.log

# --- docker rm -f: mglrud lets the container go.
journalctl -u mglrud -q --no-pager | wc -l > /tmp/cursor.rm
t0=$(up)
docker rm -f cold > /dev/null 2>&1
rc=$?
rm_s=$(since "$t0")
i=0; while [ -d "$CG_ROOT/$DCG" ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
gone_s=$(since "$t0")
i=0; while ! journalctl -u mglrud -q --no-pager | tail -n +$(( $(cat /tmp/cursor.rm) + 1 )) |
	grep -q "No longer managing /$DCG" && [ $i -lt 90 ]; do sleep 1; i=$((i + 1)); done
released=$(journalctl -u mglrud -q --no-pager | tail -n +$(( $(cat /tmp/cursor.rm) + 1 )) |
	grep -m1 "No longer managing /$DCG" | sed 's/^.*mglrud\[[0-9]*\]: //')
result docker_release "$released ($(since "$t0") s after docker rm -f began; it returned after $rm_s s, the scope was gone after $gone_s s)"
ctl status > /tmp/status-after-rm.txt 2>&1
result_file status-after-rm.txt /tmp/status-after-rm.txt
[ $rc = 0 ] && [ -n "$released" ] && [ ! -d "$CG_ROOT/$DCG" ] && ! grep -q "docker $DSHORT" /tmp/status-after-rm.txt
check docker_release $? "docker rm -f rc=$rc; ${released:-no 'No longer managing' in the journal}"

$PODMAN rm -f annotated annotated2 > /dev/null 2>&1
journalctl -u mglrud --no-pager > /tmp/journal.txt 2>&1
result_file journal.txt /tmp/journal.txt
result_file journal-podman.txt /tmp/journal-podman.txt
[ -z "$FAILED" ] || fail "checks failed:$FAILED"
pass "docker $DSHORT evicted $(mib $((cur0 - cur1))) MiB and released, podman $PSHORT with [Policy:batch] from its annotation, Prometheus: mglrud_cycles_total=$cycles"
