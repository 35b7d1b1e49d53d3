#!/bin/bash
# Prints the Debian archive URL this machine's apt already uses, so the VM kernel and root image
# come from the site's own mirror or proxy and the tree names no archive host:
#   1. $MGLRUD_DEBIAN_MIRROR when set (the override);
#   2. else the first URIs: of a "Types: deb" stanza in $APT_ETC/sources.list.d/*.sources
#      (deb822, file order) whose suites are not a -security suite;
#   3. else the first "deb" line of $APT_ETC/sources.list, then $APT_ETC/sources.list.d/*.list,
#      that is not a -security suite.
# Stanzas marked "Enabled: no", cdrom: URIs and the entries mglrud's own scripts add
# (mglrud-*.list) are skipped. APT_ETC defaults to /etc/apt (MGLRUD_APT_ETC moves it, for tests).
# Exits 1 with a message naming the files it read when none fits.
#
#   tests/vm/debian-mirror.sh          # e.g. http://mirror.example.org/debian
set -euo pipefail

if [ -n "${MGLRUD_DEBIAN_MIRROR:-}" ]; then
	echo "${MGLRUD_DEBIAN_MIRROR%/}"
	exit 0
fi
APT_ETC="${MGLRUD_APT_ETC:-/etc/apt}"

# deb822 stanzas: blank lines separate them; keys are case-insensitive; continuation lines of
# multi-line fields start with a space and are ignored (URIs may list several: take the first).
from_deb822() {
	awk '
	function flush() {
		if (uri != "" && types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^(no|false)$/ &&
		    suites !~ /-security/ && uri !~ /^cdrom:/) { print uri; found = 1; exit }
		uri = ""; types = ""; suites = ""; enabled = ""
	}
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	/^[^ \t]/ {
		key = tolower($1); sub(/:$/, "", key)
		val = $0; sub(/^[^:]*:[ \t]*/, "", val)
		if (key == "types") types = val
		else if (key == "uris") { split(val, u, /[ \t]+/); uri = u[1] }
		else if (key == "suites") suites = val
		else if (key == "enabled") enabled = tolower(val)
	}
	END { if (!found) flush() }' "$@"
}

# One-line format: deb [options] URI SUITE COMPONENT...
from_list() {
	awk '
	/^[ \t]*deb[ \t]/ {
		sub(/^[ \t]*deb[ \t]+/, "")
		if ($0 ~ /^\[/) sub(/^\[[^]]*\][ \t]*/, "")
		split($0, f, /[ \t]+/)
		if (f[2] ~ /-security/ || f[1] ~ /^cdrom:/) next
		print f[1]; exit
	}' "$@"
}

first=""
shopt -s nullglob
sources=()
for f in "$APT_ETC"/sources.list.d/*.sources; do
	case "$(basename "$f")" in mglrud-*) continue ;; esac
	sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] && first=$(from_deb822 "${sources[@]}" | head -n 1)
if [ -z "$first" ]; then
	lists=()
	[ -f "$APT_ETC/sources.list" ] && lists+=("$APT_ETC/sources.list")
	for f in "$APT_ETC"/sources.list.d/*.list; do
		case "$(basename "$f")" in mglrud-*) continue ;; esac
		lists+=("$f")
	done
	[ ${#lists[@]} -gt 0 ] && first=$(from_list "${lists[@]}" | head -n 1)
fi
if [ -z "$first" ]; then
	echo "debian-mirror: no Debian archive in $APT_ETC/sources.list or $APT_ETC/sources.list.d/*.{sources,list};" \
		"set MGLRUD_DEBIAN_MIRROR=URL" >&2
	exit 1
fi
echo "${first%/}"
