#!/bin/bash
# mglrud --once --dry-run on a cgroup tree made of real 7.3 kernel captures must print the
# expected advice, mention every managed cgroup, and open no file for writing.
set -euo pipefail
# A third argument "no-lrugen" points --debugfs-root at nothing: the memory.reclaim fallback
# must advise instead (expected-advice-no-lrugen.txt).
mglrud=$1 tree=$2 variant=${3:-}
debugfs=$tree/debugfs expected=$tree/expected-advice.txt
if [ "$variant" = no-lrugen ]; then
        debugfs=$tree/no-debugfs expected=$tree/expected-advice-no-lrugen.txt
fi
out=$(mktemp) err=$(mktemp) trace=$(mktemp)
trap 'rm -f "$out" "$err" "$trace"' EXIT

# MGLRUD_TEST_WRAPPER (e.g. valgrind ...) runs the daemon under a checker.
read -r -a wrapper <<<"${MGLRUD_TEST_WRAPPER:-}"
run=("${wrapper[@]}" "$mglrud" --once --dry-run --config "$tree/mglrud.conf" --cgroup-root "$tree/cgroup"
     --debugfs-root "$debugfs" --proc-root "$tree/proc")
if [ ${#wrapper[@]} -eq 0 ] && command -v strace >/dev/null; then
        # LeakSanitizer cannot run under ptrace; leaks are covered by the other tests.
        ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=openat,open -o "$trace" "${run[@]}" >"$out" 2>"$err"
        if grep -E 'O_WRONLY|O_RDWR' "$trace" | grep -v -E '/dev/|/proc/self|\.asan|sanitizer'; then
                echo "FAIL: dry-run opened a file for writing"; exit 1
        fi
else
        "${run[@]}" >"$out" 2>"$err"
fi
if ! diff -u "$expected" "$out"; then
        echo "FAIL: advice differs from $expected"; cat "$err"; exit 1
fi
grep -q "dry-run (advise only)" "$err" || { echo "FAIL: no dry-run banner"; cat "$err"; exit 1; }
n=$(grep -c -- '^/.* \[/' "$out" || true)
echo "dry-run advice matches ($n cgroups, and the idle-age profiles)"
