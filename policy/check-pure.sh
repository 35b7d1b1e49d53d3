#!/bin/sh
# Fails when the policy library calls anything but pure C library functions: the controllers
# take samples and return decisions, they never read, write, log, sleep or look at a clock.
# Undefined symbols of the archive are checked against the list below (what the controllers
# may use); a call to a reader (memstat_read), a log function, printf, open, clock_gettime or
# any other project function outside policy/ breaks the build here. Sanitizer and coverage
# hooks (__asan_, __ubsan_, __sanitizer_, __sancov_) are what the instrumented builds add,
# __*_chk what _FORTIFY_SOURCE (the Debian package build) makes of memcpy and friends.
#   check-pure.sh LIBRARY.a STAMP
set -eu
lib=$1 stamp=$2
allowed='^(memcpy|memmove|memset|__memcpy_chk|__memmove_chk|__memset_chk|memcmp|strcmp|strlen|qsort|bsearch|abort|fabs|fmax|fmin|floor|ceil|round|lround|llround|exp|log|log2|pow|sqrt|__stack_chk_fail|__assert_fail|__asan_.*|__ubsan_.*|__sanitizer_.*|__sancov_.*|_GLOBAL_OFFSET_TABLE_)$'
# What the archive's objects call, minus what they define for each other.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -u "$lib" | awk '$1 == "U" { print $2 }' | sort -u > "$tmp/undefined"
nm --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/defined"
bad=$(comm -23 "$tmp/undefined" "$tmp/defined" | grep -Ev "$allowed" || true)
if [ -n "$bad" ]; then
	echo "policy/ must stay pure (no I/O, no daemon code): $lib calls" >&2
	echo "$bad" | sed 's/^/  /' >&2
	echo "(see policy/check-pure.sh; move the I/O to daemon/ and pass its result in)" >&2
	exit 1
fi
touch "$stamp"
