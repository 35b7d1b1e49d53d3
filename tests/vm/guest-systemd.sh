#!/bin/sh
# The scenario runner on the root disk (run-scenario --root-disk): systemd, PID 1 of the Debian
# image, starts it from mglrud-vm-scenario.service once multi-user.target is reached. It runs
# /mglrud/scenarios/$MGLRUD_SCENARIO.sh like /init does in the initramfs, prints the same result
# block on the console and powers off. /mglrud/env carries the kernel command line's
# mglrud.* keys as /init parsed them.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
umask 022
. /mglrud/env
. /mglrud/guest-lib.sh

MGLRUD_BOOT_S=$(cut -d' ' -f1 /proc/uptime)
echo "MGLRUD-GUEST: systemd started the scenario ${MGLRUD_BOOT_S}s after boot (initramfs ${MGLRUD_INITRAMFS_S}s)"
result boot_s "$MGLRUD_BOOT_S"
result kernel "$(uname -r)"
result init "$(readlink /proc/1/exe) ($(cat /etc/mglrud-vm-release 2>/dev/null))"
run_scenario
result scenario_s "$(awk -v b="$MGLRUD_BOOT_S" '{printf "%.1f", $1 - b}' /proc/uptime)"
emit_results
# The console is a UART: give it a moment to send the block before the power goes.
sleep 2
systemctl poweroff --force --force
