#!/bin/bash
# tests/vm/debian-mirror.sh on fixture apt trees: which archive it picks from deb822 .sources,
# one-line .list files and the override, and that it fails (naming the files) when none fits.
set -euo pipefail
mirror="$1/tests/vm/debian-mirror.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pick() { env -u MGLRUD_DEBIAN_MIRROR MGLRUD_APT_ETC="$t/$1" "$mirror"; }
expect() { local got; got=$(pick "$1") || fail "$1: exit $?"; [ "$got" = "$2" ] || fail "$1: got '$got', want '$2'"; echo "ok: $1 -> $got"; }

# deb822: the security stanza comes first in file order, a disabled one next, then the mirror.
mkdir -p "$t/a/sources.list.d"
cat >"$t/a/sources.list.d/debian.sources" <<'S'
# a comment
Types: deb
URIs: http://mirror.example.test/debian-security
Suites: bookworm-security
Components: main

Types: deb-src deb
URIs: http://disabled.example.test/debian
Suites: bookworm
Enabled: no

types: deb
uris: http://mirror.example.test/debian/ http://second.example.test/debian
suites: bookworm bookworm-updates
components: main
S
expect a http://mirror.example.test/debian

# deb-src only is not an archive of binaries; sources.list lines then win, options skipped.
mkdir -p "$t/b/sources.list.d"
printf 'Types: deb-src\nURIs: http://src.example.test/debian\nSuites: bookworm\n' >"$t/b/sources.list.d/src.sources"
printf '# deb http://commented.example.test/debian bookworm main\ndeb http://sec.example.test/debian-security bookworm-security main\ndeb [arch=amd64 signed-by=/k.gpg] http://proxy.example.test:3142/debian bookworm main\n' >"$t/b/sources.list"
expect b http://proxy.example.test:3142/debian

# what mglrud's own fetch added is never taken for the site's mirror
mkdir -p "$t/c/sources.list.d"
echo 'deb http://added.example.test/debian trixie-backports main' >"$t/c/sources.list.d/mglrud-trixie-backports.list"
echo 'deb http://site.example.test/debian bookworm main' >"$t/c/sources.list.d/site.list"
expect c http://site.example.test/debian

# the override wins over everything
got=$(MGLRUD_DEBIAN_MIRROR=http://override.example.test/debian/ MGLRUD_APT_ETC="$t/a" "$mirror")
[ "$got" = http://override.example.test/debian ] || fail "override: got '$got'"
echo "ok: override -> $got"

# nothing usable: exit 1 and a message naming where it looked
mkdir -p "$t/d/sources.list.d"
echo 'deb http://sec.example.test/debian-security bookworm-security main' >"$t/d/sources.list"
if err=$(pick d 2>&1); then fail "d: expected failure, got '$err'"; fi
case "$err" in *"$t/d/sources.list"*MGLRUD_DEBIAN_MIRROR*) echo "ok: d -> refused" ;; *) fail "d: message '$err'" ;; esac
