#!/bin/bash
# Fetches Debian's runc (the real OCI runtime the container scenarios start containers with)
# into the VM cache and prints the path of its binary. Nothing is installed on the host: the
# package is only `apt-get download`ed and unpacked with `dpkg-deb -x`. Idempotent.
#
#   tests/vm/fetch-runc.sh      # prints e.g. /var/cache/mglrud-vm/runc/root/usr/sbin/runc
set -euo pipefail
CACHE="${MGLRUD_VM_CACHE:-/var/cache/mglrud-vm}"
DIR="$CACHE/runc"
BIN="$DIR/root/usr/sbin/runc"
die() { echo "fetch-runc: $*" >&2; exit 1; }
if [ -x "$BIN" ]; then
	echo "$BIN"
	exit 0
fi
command -v apt-get >/dev/null || die "apt-get not found (a Debian host is required)"
mkdir -p "$DIR"
exec 9>"$DIR/.fetch.lock"
flock 9
if [ ! -x "$BIN" ]; then
	TMP="$(mktemp -d "$DIR/.dl.XXXXXX")"
	trap 'rm -rf "$TMP"' EXIT
	# _apt cannot write into a root-only mktemp directory: let apt download as root quietly.
	(cd "$TMP" && apt-get download -o APT::Sandbox::User=root runc >/dev/null 2>&1) ||
		{ apt-get update -qq >&2 && (cd "$TMP" && apt-get download -o APT::Sandbox::User=root runc >/dev/null); } ||
		die "apt-get download runc failed"
	dpkg-deb -x "$TMP"/runc_*.deb "$TMP/root" || die "dpkg-deb -x failed"
	rm -rf "$DIR/root"
	mv "$TMP/root" "$DIR/root"
	basename "$TMP"/runc_*.deb > "$DIR/VERSION"
fi
[ -x "$BIN" ] || die "no usr/sbin/runc in the package"
echo "$BIN"
