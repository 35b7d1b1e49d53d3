#!/bin/bash
# Builds (once) the Debian 12 root disk that systemd scenarios boot (run-scenario --root-disk):
# debootstrap minbase with systemd as init, D-Bus, udev and the runtime libraries of the mglrud
# package, as an ext4 image. Prints its path. Cached in ${MGLRUD_VM_CACHE:-/var/cache/mglrud-vm}
# as rootfs-bookworm-vVERSION.img: bump VERSION when the recipe below changes. Guests boot it
# with QEMU's -snapshot semantics (snapshot=on), so the cached image is never written and each
# run installs the package it is given on a throwaway overlay.
#
# --engines (run-scenario --root-disk=engines, the engines-systemd scenario) builds a separate,
# larger image, rootfs-bookworm-engines-vENGINES_VERSION.img (3G, about 950M used; ~5 min from an
# empty cache), that also carries the real programs around the package: Docker 20.10, Podman 4.3,
# Prometheus 2.42, node-exporter 1.5, curl and busybox-static for a local container image. Their
# services are disabled in the image: a scenario starts what it needs. The default image is not
# touched by it.
#
# --apps (run-scenario --root-disk=apps, the bench-app-* scenarios) builds
# rootfs-bookworm-apps-vAPPS_VERSION.img: the default image's packages plus real servers to
# benchmark under skewed clients (issue 24): memcached for now (PostgreSQL 15 is to follow: its
# postinst makes and starts a cluster inside debootstrap's chroot). Its service is disabled in the
# image: a scenario starts what it needs.
#
#   tests/vm/mkrootfs.sh                     # prints the default image's path
#   tests/vm/mkrootfs.sh --engines           # the engines image's path
#   tests/vm/mkrootfs.sh --apps              # the apps image's path
#   MGLRUD_DEBIAN_MIRROR=http://... tests/vm/mkrootfs.sh
set -euo pipefail

VERSION=1
ENGINES_VERSION=1
APPS_VERSION=1
SUITE=bookworm
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { echo "mkrootfs: $*" >&2; exit 1; }
log() { echo "mkrootfs: $*" >&2; }
VARIANT=default
case "${1:-}" in
"") ;;
--engines) VARIANT=engines ;;
--apps) VARIANT=apps ;;
-h|--help) sed -n '2,23p' "$0"; exit 0 ;;
*) die "unknown argument '$1' (only --engines or --apps)" ;;
esac
# systemd + dbus + udev: PID 1, the system bus, device units. procps: /bin/kill of the unit's
# ExecReload=. The libraries are the package's Depends (there is no network in the guest: dpkg -i
# must find them installed).
INCLUDE=systemd,systemd-sysv,dbus,udev,procps,libcgroup2,libinih1,libbpf1,libsystemd0
CACHE="${MGLRUD_VM_CACHE:-/var/cache/mglrud-vm}"
TAG="v$VERSION" SIZE=2G
if [ "$VARIANT" = engines ]; then
	# The engines and the monitoring stack of engines-systemd (the guest has no network: the
	# container image is made in the guest from busybox-static). Podman's network stack
	# (netavark) and crun are named because debootstrap does not resolve virtual packages and
	# alternatives.
	ENGINES=docker.io,containerd,runc,tini,iptables,podman,conmon,crun,netavark,golang-github-containers-common
	MONITORING=prometheus,prometheus-node-exporter,curl,busybox-static
	INCLUDE=$INCLUDE,$ENGINES,$MONITORING
	TAG="engines-v$ENGINES_VERSION" SIZE=3G
elif [ "$VARIANT" = apps ]; then
	INCLUDE=$INCLUDE,memcached
	TAG="apps-v$APPS_VERSION"
fi
IMG="$CACHE/rootfs-$SUITE-$TAG.img"

if [ -s "$IMG" ]; then
	echo "$IMG"
	exit 0
fi
command -v debootstrap >/dev/null || die "debootstrap missing: apt-get install debootstrap"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing: apt-get install e2fsprogs"
[ "$(id -u)" = 0 ] || die "must run as root once (debootstrap), or pre-populate $IMG"
mkdir -p "$CACHE"
# Callers read stdout as the image path; two first runs at once build it once.
exec 9>"$CACHE/.rootfs-$TAG.lock"
flock 9
if [ -s "$IMG" ]; then
	echo "$IMG"
	exit 0
fi

STAGE="$(mktemp -d "${TMPDIR:-/var/tmp}/mglrud-rootfs.XXXXXX")"
cleanup() {
	# debootstrap mounts proc/sys inside the target while it runs: never rm -rf through them.
	for m in proc sys dev/pts dev; do
		mountpoint -q "$STAGE/root/$m" 2>/dev/null && umount -l "$STAGE/root/$m"
	done
	rm -rf --one-file-system "$STAGE" "$IMG.tmp"
}
trap cleanup EXIT
# The site's own mirror, as its apt sources name it (MGLRUD_DEBIAN_MIRROR overrides).
MIRROR=$("$HERE/debian-mirror.sh") || die "no Debian mirror to debootstrap from"
start=$(date +%s)
log "debootstrap $SUITE (minbase + $INCLUDE) from $MIRROR (one-time)"
if ! debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$STAGE/root" "$MIRROR" \
	> "$STAGE/debootstrap.log" 2>&1; then
	tail -n 30 "$STAGE/debootstrap.log" >&2
	die "debootstrap failed"
fi
R="$STAGE/root"

# A fixed machine id: no first-boot logic (systemd-firstboot would wait for input on the console).
echo 6d676c7275642d766d2d726f6f742d31 > "$R/etc/machine-id"
echo mglrud-vm > "$R/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tmglrud-vm\n' > "$R/etc/hosts"
# The initramfs mounts the root read-write; nothing else is mounted from a disk.
: > "$R/etc/fstab"
# Journal in /run only; no console logins (the console carries the result block); no timers
# or generators that start work nobody asked for in a one-shot test boot.
mkdir -p "$R/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$R/etc/systemd/journald.conf.d/50-mglrud-vm.conf"
for u in getty.target systemd-firstboot.service apt-daily.timer apt-daily-upgrade.timer \
	 e2scrub_all.timer e2scrub_reap.service fstrim.timer dpkg-db-backup.timer \
	 systemd-networkd-wait-online.service; do
	ln -sf /dev/null "$R/etc/systemd/system/$u"
done
# The engines' packages enable their units (docker, containerd, podman, prometheus*): a scenario
# starts what it needs, other boots start none of them.
if [ "$VARIANT" = engines ]; then
	find "$R/etc/systemd/system" -type l \( -name 'docker*' -o -name 'containerd*' \
		-o -name 'podman*' -o -name 'prometheus*' \) -delete
fi
if [ "$VARIANT" = apps ]; then
	find "$R/etc/systemd/system" -type l \( -name 'memcached*' \) -delete
fi
# Neither a DNS nor a network: apt never runs in the guest (dpkg -i only).
chroot "$R" apt-get clean
rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/*.bin "$R"/var/log/*.log
echo "mglrud test root $SUITE $TAG" > "$R/etc/mglrud-vm-release"

for m in proc sys dev/pts dev; do
	mountpoint -q "$R/$m" 2>/dev/null && umount -l "$R/$m"
done
if ! mkfs.ext4 -q -F -L mglrud-root -E lazy_itable_init=0,lazy_journal_init=0 \
	-d "$R" "$IMG.tmp" "$SIZE" > "$STAGE/mkfs.log" 2>&1; then
	tail -n 20 "$STAGE/mkfs.log" >&2
	die "mkfs.ext4 -d failed"
fi
mv "$IMG.tmp" "$IMG"
log "$IMG built in $(( $(date +%s) - start )) s ($(du -sh "$IMG" | cut -f1) used)"
echo "$IMG"
