#!/bin/sh
# /init of the mglrud test initramfs (busybox sh). Sets up the guest the scenarios expect,
# runs /mglrud/scenarios/$SCENARIO.sh, prints the result block on the console and powers off.
#
# Kernel command line keys: mglrud.scenario=NAME (required), mglrud.zram=SIZE (default 512M,
# 0 = no swap), mglrud.debug=1 (set -x in the scenario), mglrud.root=DEV (run-scenario
# --root-disk: after loading the modules and setting up zram, mount DEV, copy the test payload
# into it and switch_root to systemd, which runs the scenario from mglrud-vm-scenario.service
# through guest-systemd.sh).
export PATH=/usr/bin:/bin:/sbin:/usr/sbin
/bin/busybox --install -s /bin
export HOME=/root TERM=dumb
umask 022

mkdir -p /proc /sys /dev /tmp /run /data /root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug
exec </dev/console >/dev/console 2>&1
# The first non-root memcg flips memcg static keys (kernel text patching with int3). Under
# multi-threaded TCG that once oopsed in kmem_cache_free while workloads ran; flip them here,
# while nothing else runs.
mkdir /sys/fs/cgroup/.mglrud-warmup && rmdir /sys/fs/cgroup/.mglrud-warmup

SCENARIO= ZRAM=512M DEBUG=0 ROOT=
for w in $(cat /proc/cmdline); do
	case "$w" in
	mglrud.scenario=*) SCENARIO=${w#mglrud.scenario=} ;;
	mglrud.zram=*) ZRAM=${w#mglrud.zram=} ;;
	mglrud.debug=*) DEBUG=${w#mglrud.debug=} ;;
	mglrud.root=*) ROOT=${w#mglrud.root=} ;;
	mglrud.arg.*=*) kv=${w#mglrud.arg.}; export "MGLRUD_ARG_${kv%%=*}=${kv#*=}" ;;
	esac
done
export MGLRUD_SCENARIO="$SCENARIO" MGLRUD_DEBUG="$DEBUG"

. /mglrud/guest-lib.sh

setup_err=
while read -r m; do
	[ -n "$m" ] || continue
	insmod "/lib/modules/$m.ko" || setup_err="$setup_err insmod:$m"
done < /lib/modules/load-order

echo +memory > /sys/fs/cgroup/cgroup.subtree_control || setup_err="$setup_err subtree_control"

if [ "$ZRAM" != 0 ]; then
	if [ -e /sys/block/zram0 ] || { [ -e /sys/class/zram-control/hot_add ] && cat /sys/class/zram-control/hot_add >/dev/null; }; then
		echo lz4 > /sys/block/zram0/comp_algorithm 2>/dev/null || true
		echo "$ZRAM" > /sys/block/zram0/disksize &&
			mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 || setup_err="$setup_err zram"
	else
		setup_err="$setup_err zram-missing"
	fi
fi

# --root-disk: the scenario runs under systemd as PID 1 on a Debian root disk. The modules stay
# loaded and zram stays swapped on across switch_root; the payload goes along in /mglrud.
boot_root_disk() {
	local f b
	mkdir -p /newroot
	mount -t ext4 "$ROOT" /newroot || { root_err="mount $ROOT"; return 1; }
	[ -x /newroot/lib/systemd/systemd ] || { root_err="no /lib/systemd/systemd on $ROOT"; return 1; }
	cp -a /mglrud /newroot/ || { root_err="copy /mglrud"; return 1; }
	# The workloads (not the build's mglrud/mglructl: the scenario tests the package's), and
	# the libraries the image lacks (an ASan build's sanitizer runtimes).
	mkdir -p /newroot/usr/local/bin
	for b in $(cat /mglrud/binaries); do
		case "$b" in mglrud|mglructl) ;; *) cp "/usr/bin/$b" /newroot/usr/local/bin/ ;; esac
	done
	for f in /lib/x86_64-linux-gnu/*; do
		[ -e "/newroot/usr/lib/x86_64-linux-gnu/${f##*/}" ] || cp "$f" /newroot/usr/lib/x86_64-linux-gnu/
	done
	export -p | grep '^export MGLRUD_' > /newroot/mglrud/env
	echo "export MGLRUD_INITRAMFS_S=$MGLRUD_BOOT_S" >> /newroot/mglrud/env
	cp /mglrud/mglrud-vm-scenario.service /newroot/etc/systemd/system/ &&
		mkdir -p /newroot/etc/systemd/system/multi-user.target.wants &&
		ln -sf ../mglrud-vm-scenario.service /newroot/etc/systemd/system/multi-user.target.wants/ ||
		{ root_err="install mglrud-vm-scenario.service"; return 1; }
	# systemd mounts /run, cgroup2 (with its own options) and debugfs itself.
	umount /tmp /run /sys/kernel/debug /sys/fs/cgroup
	mount --move /dev /newroot/dev && mount --move /proc /newroot/proc &&
		mount --move /sys /newroot/sys || { root_err="mount --move"; return 1; }
	exec switch_root /newroot /lib/systemd/systemd
}

MGLRUD_BOOT_S=$(cut -d' ' -f1 /proc/uptime)
if [ -n "$ROOT" ]; then
	echo "MGLRUD-GUEST: booted in ${MGLRUD_BOOT_S}s kernel=$(uname -r) scenario=$SCENARIO zram=$ZRAM root=$ROOT"
	root_err=
	[ -n "$setup_err" ] || boot_root_disk
	verdict_write FAIL "guest setup failed:$setup_err${root_err:+ root-disk: $root_err}"
	emit_results
	sync
	poweroff -f
fi

if [ -b /dev/vda ]; then
	mount -t ext4 -o ro,noload /dev/vda /data || setup_err="$setup_err mount-data"
fi

echo "MGLRUD-GUEST: booted in ${MGLRUD_BOOT_S}s kernel=$(uname -r) scenario=$SCENARIO zram=$ZRAM"
result boot_s "$MGLRUD_BOOT_S"
result kernel "$(uname -r)"

if [ -n "$setup_err" ]; then
	verdict_write FAIL "guest setup failed:$setup_err"
else
	run_scenario
fi
result scenario_s "$(awk -v b="$MGLRUD_BOOT_S" '{printf "%.1f", $1 - b}' /proc/uptime)"
emit_results
sync
poweroff -f
