#!/bin/bash
# Fetch Debian's 7.3 kernel (trixie-backports) and unpack it into a cache outside the source
# tree. Nothing is installed on the host: packages are only `apt-get download`ed and unpacked
# with `dpkg-deb -x`. Idempotent: an unpacked cache is reused.
#
#   tests/vm/fetch-kernel.sh            # prints the cache dir on stdout
#   MGLRUD_VM_CACHE=/some/dir tests/vm/fetch-kernel.sh
#   tests/vm/fetch-kernel.sh --with-bpf # also linux-bpf-dev (vmlinux.h)
set -euo pipefail

KVER="${MGLRUD_VM_KVER:-7.3.4+deb13-amd64}"
CACHE="${MGLRUD_VM_CACHE:-/var/cache/mglrud-vm}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC_FILE=/etc/apt/sources.list.d/mglrud-trixie-backports.list
PIN_FILE=/etc/apt/preferences.d/mglrud-trixie-backports
WITH_BPF=0
for a in "$@"; do
	case "$a" in
	--with-bpf) WITH_BPF=1 ;;
	-h|--help) sed -n '2,9p' "$0"; exit 0 ;;
	*) echo "fetch-kernel: unknown argument: $a" >&2; exit 2 ;;
	esac
done

die() { echo "fetch-kernel: $*" >&2; exit 1; }
log() { echo "fetch-kernel: $*" >&2; }

ROOT="$CACHE/$KVER"
# Debian 13 kernels are merged-/usr: image, config and modules all sit in usr/lib/modules/KVER.
# The packages ship no modules.dep (depmod runs at install time); mkinitramfs.sh resolves
# dependencies from each module's .modinfo instead.
MODDIR="$ROOT/root/usr/lib/modules/$KVER"
VMLINUZ="$MODDIR/vmlinuz"
have_kernel() { [ -f "$VMLINUZ" ] && [ -f "$MODDIR/modules.builtin" ] && [ -d "$MODDIR/kernel" ]; }
have_bpf() { [ -n "$(find "$ROOT/root/usr" -name vmlinux.h 2>/dev/null | head -1)" ]; }

have_all() { have_kernel && { [ "$WITH_BPF" = 0 ] || have_bpf; }; }
if have_all; then
	echo "$ROOT"
	exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found (a Debian host is required)"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
[ "$(id -u)" = 0 ] || die "must run as root once to add the apt source (or pre-populate $ROOT)"

if ! grep -rqs "trixie-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	# The site's own mirror, as its apt sources name it (debian-mirror.sh; MGLRUD_DEBIAN_MIRROR
	# overrides): the tree names no archive host.
	mirror=$("$HERE/debian-mirror.sh") || die "no Debian mirror to add trixie-backports from"
	log "adding $SRC_FILE (deb $mirror trixie-backports main)"
	echo "deb $mirror trixie-backports main" > "$SRC_FILE"
fi
# Never let the host install or upgrade from this suite: priority -1 means "never install".
if [ ! -f "$PIN_FILE" ]; then
	log "adding apt pin $PIN_FILE (priority -1 for trixie-backports)"
	printf 'Package: *\nPin: release n=trixie-backports\nPin-Priority: -1\n' > "$PIN_FILE"
fi

# Two first runs at once (the build's BPF headers and a scenario) download and unpack once.
mkdir -p "$CACHE"
exec 9>"$CACHE/.fetch.lock"
flock 9
if have_all; then
	echo "$ROOT"
	exit 0
fi

pkg_known() { apt-cache show "$1" >/dev/null 2>&1; }
if ! pkg_known "linux-modules-$KVER"; then
	log "apt-get update"
	apt-get update -qq >&2 || die "apt-get update failed"
fi

# Debian splits the kernel image over packages whose names changed between releases; take
# the first set that exists.
PKGS=()
if pkg_known "linux-binary-$KVER"; then
	PKGS+=("linux-binary-$KVER")
elif pkg_known "linux-image-$KVER-unsigned"; then
	PKGS+=("linux-image-$KVER-unsigned")
elif pkg_known "linux-image-$KVER"; then
	PKGS+=("linux-image-$KVER")
else
	die "no kernel image package for $KVER (apt-cache search linux-image-7 / linux-binary-7)"
fi
pkg_known "linux-modules-$KVER" && PKGS+=("linux-modules-$KVER")
# config, System.map, modules.builtin
pkg_known "linux-base-$KVER" && PKGS+=("linux-base-$KVER")
if [ "$WITH_BPF" = 1 ]; then
	pkg_known linux-bpf-dev || die "linux-bpf-dev not found"
	PKGS+=(linux-bpf-dev)
fi

# The pin (-1) leaves these packages without a candidate, so name the version explicitly.
SPECS=()
for p in "${PKGS[@]}"; do
	v=$(apt-cache show "$p" | sed -n 's/^Version: //p' | head -1)
	[ -n "$v" ] || die "no version for $p"
	SPECS+=("$p=$v")
done
mkdir -p "$ROOT/debs" "$ROOT/root"
log "downloading ${SPECS[*]}"
(cd "$ROOT/debs" && apt-get download "${SPECS[@]}" 2>&1 | { grep -v "unsandboxed as root" || true; } >&2) || die "apt-get download failed"
for d in "$ROOT"/debs/*.deb; do
	log "unpacking $(basename "$d")"
	dpkg-deb -x "$d" "$ROOT/root"
done

have_kernel || die "unpacked packages lack $VMLINUZ, $MODDIR/modules.builtin or $MODDIR/kernel"
echo "$ROOT"
