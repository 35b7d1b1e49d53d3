#!/bin/bash
# Captures real 7.3 kernel outputs into tests/fixtures/kernel-7.3/ (boots the test VM).
#
#   tests/vm/capture-fixtures.sh [--build-dir DIR] [--out DIR]
#
# DIR defaults to ./build; it must hold the workload programs (ninja -C DIR).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$HERE/../.." && pwd)"
BUILD_DIR="$SRC/build"
OUT="$SRC/tests/fixtures/kernel-7.3"
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) BUILD_DIR="$2"; shift 2 ;;
	--out) OUT="$2"; shift 2 ;;
	-h|--help) sed -n '2,6p' "$0"; exit 0 ;;
	*) echo "capture-fixtures: unknown argument $1" >&2; exit 2 ;;
	esac
done
for w in anon-tiers mixed kwrite; do
	[ -x "$BUILD_DIR/tests/workloads/$w" ] || { echo "capture-fixtures: $BUILD_DIR/tests/workloads/$w missing: ninja -C $BUILD_DIR tests/workloads/$w" >&2; exit 1; }
done
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$HERE/run-scenario" --build-dir "$BUILD_DIR" --timeout 240 --files-dir "$TMP/files" capture-fixtures | tee "$TMP/out"
mkdir -p "$OUT"
cp -r "$TMP/files/." "$OUT/"
KREL="$(sed -n 's/^kernel=//p' "$TMP/out" | head -n 1)"
cat > "$OUT/README" <<EOT
Real outputs of Linux $KREL (Debian linux-binary-7.3.4+deb13-amd64, trixie-backports), captured
$(date -u +%Y-%m-%d) in QEMU (TCG, 2 vCPUs, 1 GiB, 512 MiB zram swap, lz4) with:

    tests/vm/capture-fixtures.sh --build-dir build

(scenario tests/vm/scenarios/capture-fixtures.sh). Main cgroup: "/work load.slice/a b" (files in
cgroup-a-b/, its path in cgroup-a-b/PATH) with cold/warm/hot anon (anon-tiers) plus anon and page
cache (mixed), aged with lru_gen and reclaimed (memory.reclaim 50M, then 30M swappiness=max) so
tier, refault and swap counters are non-zero. Second cgroup "/work load.slice/b" (cgroup-b/) with
memory.swap.max=64M and memory.high=150M; cgroup-root/ is the cgroup2 root.

lru_gen, lru_gen_full        /sys/kernel/debug/lru_gen{,_full} (all memcgs; ids = cgroup inodes)
cgroup-inodes.txt            "inode path" of every cgroup directory (path after the first space)
meminfo, proc-pressure-memory  /proc/meminfo, /proc/pressure/memory
lru_gen-enabled, lru_gen-min_ttl_ms  /sys/kernel/mm/lru_gen/{enabled,min_ttl_ms}
errors.txt                   results of valid and invalid writes to lru_gen and memory.reclaim
workload-output.txt          the workloads' event lines during the capture
EOT
echo "capture-fixtures: wrote $(find "$OUT" -type f | wc -l) files to $OUT"
