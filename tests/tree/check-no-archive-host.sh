#!/bin/bash
# The tree names no package-archive host: the VM scripts take the mirror from the machine's apt
# sources (tests/vm/debian-mirror.sh), so a site's own mirror or proxy is used. Lists each hit.
set -euo pipefail
src="$1"
hosts='(deb|ftp[.a-z0-9-]*|security|snapshot|httpredir|http|archive)\.debian\.(org|net)|(archive|security|ports)\.ubuntu\.com|deb\.nodesource\.com'
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files() { git -C "$src" ls-files -z; }
else
	files() { (cd "$src" && find . -type f -not -path './.git/*' -not -path './build*' -print0); }
fi
hits=$(cd "$src" && files | xargs -0 grep -InE "$hosts" -- 2>/dev/null || true)
if [ -n "$hits" ]; then
	echo "package-archive hosts named in the tree (take the mirror from apt's sources instead):" >&2
	echo "$hits" >&2
	exit 1
fi
echo "no package-archive host named in $(cd "$src" && files | tr -cd '\0' | wc -c) files"
