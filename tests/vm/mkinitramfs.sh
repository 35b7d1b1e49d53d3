#!/bin/bash
# Builds the test initramfs (an uncompressed newc cpio) for tests/vm.
#
#   tests/vm/mkinitramfs.sh [--build-dir DIR] [--deb FILE] [--with-runc] --out FILE
#
# Contents: busybox-static with its applet links, the kernel modules the guest needs
# (decompressed, dependencies resolved from each module's .modinfo since Debian's packages ship
# no modules.dep), the project's binaries found in the meson build dir DIR (daemon/programs/mglrud,
# daemon/programs/mglructl, tests/workloads/*) with the shared libraries ldd lists for them (ASan
# builds work too: libasan/libubsan are copied like any other library), /init
# (guest-init.sh), guest-lib.sh, scenarios/*.sh and the demo config; for root-disk boots
# guest-systemd.sh with its unit, the package --deb FILE as /mglrud/mglrud.deb and the tree's
# Prometheus rules (etc/prometheus/*.yml) in /mglrud/prometheus. --with-runc
# adds Debian's runc (tests/vm/fetch-runc.sh) and its libraries, for the container scenarios.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD_DIR=""
OUT=""
DEB=""
WITH_RUNC=0
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) BUILD_DIR="$2"; shift 2 ;;
	--with-runc) WITH_RUNC=1; shift ;;
	--out) OUT="$2"; shift 2 ;;
	--deb) DEB="$2"; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	*) echo "mkinitramfs: unknown argument: $1" >&2; exit 2 ;;
	esac
done
die() { echo "mkinitramfs: $*" >&2; exit 1; }
[ -n "$OUT" ] || die "--out FILE is required"

KVER="${MGLRUD_VM_KVER:-7.3.4+deb13-amd64}"
KROOT="$("$HERE/fetch-kernel.sh")" || die "fetch-kernel.sh failed"
MODDIR="$KROOT/root/usr/lib/modules/$KVER"
BUSYBOX="${MGLRUD_VM_BUSYBOX:-/bin/busybox}"
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: apt-get install busybox-static"
file -L "$BUSYBOX" 2>/dev/null | grep -q "statically linked" || ldd "$BUSYBOX" 2>&1 | grep -q "not a dynamic" ||
	die "$BUSYBOX is not static: apt-get install busybox-static"

STAGE="$(mktemp -d "${TMPDIR:-/tmp}/mglrud-initramfs.XXXXXX")"
# mktemp makes it 0700: it becomes the guest's /, which unprivileged test callers must traverse.
chmod 0755 "$STAGE"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,lib/modules,proc,sys,dev,tmp,run,data,root,etc,mglrud/scenarios}

# --- busybox
cp "$BUSYBOX" "$STAGE/bin/busybox"
# Applet links are made by /init (busybox --install -s): 400 ln forks here cost a second.
ln -s busybox "$STAGE/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$STAGE/etc/passwd"
printf 'root:x:0:\n' > "$STAGE/etc/group"

# --- kernel modules
# Decompressed modules are cached next to the kernel (or in /tmp when that is read-only).
KO_CACHE="$KROOT/ko"
mkdir -p "$KO_CACHE" 2>/dev/null && [ -w "$KO_CACHE" ] || KO_CACHE="${TMPDIR:-/tmp}/mglrud-ko-$KVER"
mkdir -p "$KO_CACHE"
declare -A MODPATH=()
while IFS=' ' read -r n p; do
	MODPATH[$n]="$p"
done < <(find "$MODDIR/kernel" -name '*.ko*' -printf '%f %p\n' | sed -E 's/^([^ .]*)\.ko[^ ]* /\1 /; :a; s/^([^ -]*)-/\1_/; ta')

ko_file() { # name -> decompressed path
	local n="$1" src="${MODPATH[$1]:-}" dst="$KO_CACHE/$1.ko"
	[ -n "$src" ] || die "module $n not found under $MODDIR/kernel (builtin? see modules.builtin)"
	if [ ! -s "$dst" ]; then
		case "$src" in
		*.xz) xz -dc "$src" > "$dst.tmp" ;;
		*.zst) zstd -dcq "$src" > "$dst.tmp" ;;
		*.gz) gzip -dc "$src" > "$dst.tmp" ;;
		*) cp "$src" "$dst.tmp" ;;
		esac
		mv "$dst.tmp" "$dst"
	fi
	echo "$dst"
}
ORDER=()
declare -A SEEN=()
add_mod() { # depth-first: dependencies before the module
	local n="${1//-/_}" f d
	[ -z "${SEEN[$n]:-}" ] || return 0
	SEEN[$n]=1
	f="$(ko_file "$n")"
	for d in $(tr '\0' '\n' < "$f" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do
		add_mod "$d"
	done
	ORDER+=("$n")
}
for m in ${MGLRUD_VM_MODULES:-crc16 mbcache jbd2 ext4 virtio_blk lz4hc_compress lz4hc zram}; do
	add_mod "$m"
done
: > "$STAGE/lib/modules/load-order"
for n in "${ORDER[@]}"; do
	cp "$KO_CACHE/$n.ko" "$STAGE/lib/modules/$n.ko"
	echo "$n" >> "$STAGE/lib/modules/load-order"
done

# --- project binaries and their libraries
copy_with_libs() { # src dst-dir
	local src="$1" lib
	cp "$src" "$STAGE$2/"
	ldd "$src" 2>/dev/null | awk '/=>/ { if ($3 ~ /^\//) print $3; next } $1 ~ /^\// { print $1 }' |
	while read -r lib; do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}
BINS=()
if [ -n "$BUILD_DIR" ]; then
	[ -d "$BUILD_DIR" ] || die "build dir $BUILD_DIR does not exist"
	for b in daemon/programs/mglrud daemon/programs/mglructl daemon/programs/mglrud-oci-hook \
		 tests/workloads/anon-tiers tests/workloads/file-hot-stream \
		 tests/workloads/mixed tests/workloads/kwrite tests/workloads/zipf-read \
		 tests/workloads/cgroup-swarm tests/workloads/psi-watch \
		 tests/bench/cycle-meter tests/bench/scale-reader tests/bench/mkscale-tree \
		 tests/bench/idle-limit tests/bench/mc-zipf; do
		if [ -x "$BUILD_DIR/$b" ] && [ -f "$BUILD_DIR/$b" ]; then
			copy_with_libs "$BUILD_DIR/$b" /usr/bin
			BINS+=("$(basename "$b")")
		fi
	done
fi
# The dynamic loader lives under /lib64 on x86-64; keep /lib/x86_64-linux-gnu reachable via
# both /lib and /usr/lib as on a merged-/usr Debian.
if [ -d "$STAGE/lib/x86_64-linux-gnu" ] && [ ! -e "$STAGE/usr/lib/x86_64-linux-gnu" ]; then
	mkdir -p "$STAGE/usr/lib"
	ln -s /lib/x86_64-linux-gnu "$STAGE/usr/lib/x86_64-linux-gnu"
fi
# util-linux setpriv (busybox's cannot change uid): scenarios run unprivileged callers with it.
if [ -x /usr/bin/setpriv ]; then
	mkdir -p "$STAGE/usr/local/bin"
	copy_with_libs /usr/bin/setpriv /usr/local/bin
fi
if [ "$WITH_RUNC" = 1 ]; then
	RUNC="$("$HERE/fetch-runc.sh")" || die "fetch-runc.sh failed"
	copy_with_libs "$RUNC" /usr/sbin
	BINS+=(runc)
fi
printf '%s\n' "${BINS[@]}" > "$STAGE/mglrud/binaries"

# --- guest scripts
install -m 0755 "$HERE/guest-init.sh" "$STAGE/init"
install -m 0644 "$HERE/guest-lib.sh" "$STAGE/mglrud/guest-lib.sh"
install -m 0755 "$HERE/guest-systemd.sh" "$STAGE/mglrud/guest-systemd.sh"
install -m 0644 "$HERE/mglrud-vm-scenario.service" "$STAGE/mglrud/mglrud-vm-scenario.service"
if [ -n "$DEB" ]; then
	[ -f "$DEB" ] || die "--deb $DEB: no such file"
	install -m 0644 "$DEB" "$STAGE/mglrud/mglrud.deb"
fi
for s in "$HERE"/scenarios/*.sh; do
	[ -e "$s" ] && install -m 0755 "$s" "$STAGE/mglrud/scenarios/"
done
for f in "$HERE"/*.conf; do
	[ -e "$f" ] && install -m 0644 "$f" "$STAGE/mglrud/"
done
# Prometheus rules of the tree (etc/prometheus/*.yml), which engines-systemd loads into a real
# Prometheus when the package does not carry them.
if compgen -G "$HERE/../../etc/prometheus/*.yml" > /dev/null; then
	mkdir -p "$STAGE/mglrud/prometheus"
	cp "$HERE"/../../etc/prometheus/*.yml "$STAGE/mglrud/prometheus/"
fi
# The real 7.3 captures: mkscale-tree builds fixture trees from them in the guest.
mkdir -p "$STAGE/mglrud/fixtures"
cp -r "$HERE/../fixtures/kernel-7.3" "$STAGE/mglrud/fixtures/"

mkdir -p "$(dirname "$OUT")"
(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "mkinitramfs: $OUT ($(du -h "$OUT" | cut -f1); modules: ${ORDER[*]}; binaries: ${BINS[*]:-none})" >&2
