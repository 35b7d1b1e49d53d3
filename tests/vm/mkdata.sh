#!/bin/bash
# Builds (once) the ext4 data disk the file workloads read, so that they use a real page cache
# over a block device. Prints its path. Cached in ${MGLRUD_VM_CACHE:-/var/cache/mglrud-vm};
# guests attach it read-only, so parallel scenarios share it.
#
# Layout (all random data):  /hot.bin 64 MiB   /cold.bin 384 MiB   /small/f0000..f1023 256 KiB each
#                            /medium.bin 128 MiB
#                            /tree/dNN/dNN/fNN: 8 x 16 x 32 = 4096 files of 8 to 256 KiB (sizes
#                            2^(13 + n % 6), 336 MiB in all), what "grep -r" reads in S2
set -euo pipefail

VERSION=2
CACHE="${MGLRUD_VM_CACHE:-/var/cache/mglrud-vm}"
IMG="$CACHE/data-v$VERSION.img"
die() { echo "mkdata: $*" >&2; exit 1; }

if [ -s "$IMG" ]; then
	echo "$IMG"
	exit 0
fi
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing: apt-get install e2fsprogs"
mkdir -p "$CACHE"
# Callers read this script's stdout as the image path: only that line may go there. Concurrent
# first runs (two scenarios, a benchmark beside the tests) build the image once, under a lock.
exec 9>"$CACHE/.data-v$VERSION.lock"
flock 9
if [ -s "$IMG" ]; then
	echo "$IMG"
	exit 0
fi
SRC="$(mktemp -d "${TMPDIR:-/tmp}/mglrud-data.XXXXXX")"
trap 'rm -rf "$SRC" "$IMG.tmp"' EXIT

echo "mkdata: writing data files (one-time, ~1.2 GiB)" >&2
# openssl-free fast random: a 16 MiB urandom block, each copy xored differently via dd seek
# would still compress; simplest is /dev/urandom directly (about 0.5 GB/s).
head -c 64M /dev/urandom > "$SRC/hot.bin"
head -c 384M /dev/urandom > "$SRC/cold.bin"
head -c 128M /dev/urandom > "$SRC/medium.bin"
mkdir "$SRC/small"
for i in $(seq 0 1023); do
	head -c 256K /dev/urandom > "$SRC/small/$(printf 'f%04d' "$i")"
done
n=0
for a in $(seq -w 0 7); do
	for b in $(seq -w 0 15); do
		mkdir -p "$SRC/tree/d$a/d$b"
		for f in $(seq -w 0 31); do
			head -c $(( 8192 << (n % 6) )) /dev/urandom > "$SRC/tree/d$a/d$b/f$f"
			n=$((n + 1))
		done
	done
done
echo "mglrud test data v$VERSION" > "$SRC/VERSION"

# mkfs.ext4 -d prints "Creating regular file ..." per file even with -q (e2fsprogs 1.47): keep
# its output off stdout and show it only when it fails.
if ! mkfs.ext4 -q -F -L mglrud-data -m 0 -E lazy_itable_init=0,lazy_journal_init=0 \
	-d "$SRC" "$IMG.tmp" 1400M > "$SRC.mkfs.log" 2>&1; then
	tail -n 20 "$SRC.mkfs.log" >&2
	rm -f "$SRC.mkfs.log"
	die "mkfs.ext4 -d failed"
fi
rm -f "$SRC.mkfs.log"
mv "$IMG.tmp" "$IMG"
echo "$IMG"
