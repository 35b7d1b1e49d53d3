#!/bin/sh
# /init of the mglrud test initramfs (busybox sh). Sets up the guest the scenarios expect,
# runs /mglrud/scenarios/$SCENARIO.sh, prints the result block on the console and powers off.
#
# Kernel command line keys: mglrud.scenario=NAME (required), mglrud.zram=SIZE (default 512M,
# 0 = no swap), mglrud.debug=1 (set -x in the scenario).
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

SCENARIO= ZRAM=512M DEBUG=0
for w in $(cat /proc/cmdline); do
	case "$w" in
	mglrud.scenario=*) SCENARIO=${w#mglrud.scenario=} ;;
	mglrud.zram=*) ZRAM=${w#mglrud.zram=} ;;
	mglrud.debug=*) DEBUG=${w#mglrud.debug=} ;;
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

if [ -b /dev/vda ]; then
	mount -t ext4 -o ro,noload /dev/vda /data || setup_err="$setup_err mount-data"
fi

MGLRUD_BOOT_S=$(cut -d' ' -f1 /proc/uptime)
echo "MGLRUD-GUEST: booted in ${MGLRUD_BOOT_S}s kernel=$(uname -r) scenario=$SCENARIO zram=$ZRAM"
result boot_s "$MGLRUD_BOOT_S"
result kernel "$(uname -r)"

if [ -n "$setup_err" ]; then
	verdict_write FAIL "guest setup failed:$setup_err"
elif [ -z "$SCENARIO" ] || [ ! -f "/mglrud/scenarios/$SCENARIO.sh" ]; then
	verdict_write FAIL "no scenario '$SCENARIO' in the initramfs"
else
	(
		cd /tmp
		[ "$DEBUG" = 1 ] && set -x
		. "/mglrud/scenarios/$SCENARIO.sh"
	)
	rc=$?
	if [ ! -s "$MGLRUD_VERDICT_FILE" ]; then
		verdict_write FAIL "scenario exited (rc=$rc) without a verdict"
	fi
fi
result scenario_s "$(awk -v b="$MGLRUD_BOOT_S" '{printf "%.1f", $1 - b}' /proc/uptime)"
emit_results
sync
poweroff -f
