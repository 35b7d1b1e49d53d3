#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian package (debian/) out of tree and prints the .deb's path on stdout.
#
#   tests/pkg/build-deb.sh --out DIR [--lintian]
#
# The source (the files git tracks or would track, so new files count and build dirs do not) is
# copied to DIR/src/mglrud-VERSION, `dpkg-buildpackage -b -us -uc` runs there (tests off, see
# debian/rules) and the .deb lands in DIR/src. The version is meson.build's project version,
# which must match debian/changelog's. --lintian then runs lintian on the result: exit 1 on a
# lintian error; warnings are printed, not fatal.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$HERE/../.." && pwd)"
OUT="" LINTIAN=0
while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT="$2"; shift 2 ;;
	--lintian) LINTIAN=1; shift ;;
	-h|--help) sed -n '3,11p' "$0"; exit 0 ;;
	*) echo "build-deb: unknown argument: $1" >&2; exit 2 ;;
	esac
done
die() { echo "build-deb: $*" >&2; exit 1; }
log() { echo "build-deb: $*" >&2; }
[ -n "$OUT" ] || die "--out DIR is required"
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage missing: apt-get install dpkg-dev debhelper"

version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -n 1)
deb_version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
[ -n "$version" ] || die "no project version in meson.build"
[ "$version" = "$deb_version" ] ||
	die "meson.build says $version, debian/changelog $deb_version: add a changelog entry (dch -v $version)"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
rm -rf "$OUT/src"
tree="$OUT/src/mglrud-$version"
mkdir -p "$tree"
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		cpio --null -pdm --quiet "$tree")
else
	tar -C "$SRC" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$tree" -xf -
fi

log "dpkg-buildpackage -b -us -uc in $tree (log: $OUT/build.log)"
if ! (cd "$tree" && dpkg-buildpackage -b -us -uc) > "$OUT/build.log" 2>&1; then
	tail -n 40 "$OUT/build.log" >&2
	die "dpkg-buildpackage failed"
fi
deb="$OUT/src/mglrud_${version}_$arch.deb"
[ -f "$deb" ] || die "no $deb after the build"
grep -E '^ *BPF stream protection' "$OUT/build.log" | sed 's/^ */build-deb: /' >&2 || true

if [ "$LINTIAN" = 1 ]; then
	command -v lintian >/dev/null || die "lintian missing: apt-get install lintian"
	changes="$OUT/src/mglrud_${version}_$arch.changes"
	log "lintian $changes"
	rc=0
	lintian --info --display-info "$changes" > "$OUT/lintian.log" 2>&1 || rc=$?
	cat "$OUT/lintian.log" >&2
	[ "$rc" = 0 ] || die "lintian reported errors (exit $rc)"
	log "lintian: no errors ($(grep -c '^W: ' "$OUT/lintian.log" || true) warnings, $(grep -c '^I: ' "$OUT/lintian.log" || true) infos)"
fi
echo "$deb"
