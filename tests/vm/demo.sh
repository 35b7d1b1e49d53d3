#!/bin/bash
# The mglrud demo on a real MGLRU kernel, for hosts without cgroup2 + MGLRU: boots Debian's 7.3
# kernel in QEMU, runs a batch slice (active policy) and a web slice (advise only) under mglrud
# for about SECONDS seconds, and prints a before/after table per cgroup.
#
#   tests/vm/demo.sh [--build-dir DIR] [--seconds 75]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD_DIR="$(cd "$HERE/../.." && pwd)/build"
SECS=75
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) BUILD_DIR="$2"; shift 2 ;;
	--seconds) SECS="$2"; shift 2 ;;
	-h|--help) sed -n '2,7p' "$0"; exit 0 ;;
	*) echo "demo: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -x "$BUILD_DIR/tests/workloads/anon-tiers" ] || { echo "demo: build first: meson setup $BUILD_DIR && ninja -C $BUILD_DIR" >&2; exit 1; }
[ -x "$BUILD_DIR/daemon/programs/mglrud" ] || echo "demo: $BUILD_DIR/daemon/programs/mglrud missing: the table will show the workloads without the daemon" >&2
LOG="$BUILD_DIR/vm-logs/demo.log"
mkdir -p "$(dirname "$LOG")"
echo "demo: booting the 7.3 kernel in QEMU (no KVM: about $((SECS + 40)) s)..."
rc=0
"$HERE/run-scenario" --build-dir "$BUILD_DIR" --timeout $((SECS + 150)) --log "$LOG" --arg "seconds=$SECS" demo > "$LOG.out" || rc=$?
grep -a '^MGLRUD-DEMO: ' "$LOG" | sed 's/^MGLRUD-DEMO: //' || true
grep -a '^MGLRUD-VERDICT: ' "$LOG" | tail -n 1 || true
echo "demo: full console log: $LOG"
[ $rc = 0 ] || [ $rc = 77 ] || { tail -n 20 "$LOG.out"; exit $rc; }
