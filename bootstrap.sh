#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The two Quick start commands of README.md:
#   ./bootstrap.sh demo   install what is needed, build, run mglrud (here when this kernel has
#                         cgroup v2 with MGLRU, otherwise on Debian's 7.3 kernel in QEMU with a
#                         demo workload) and print what it did; `demo --seconds N` shortens the
#                         VM demo (CI runs it with 45)
#   ./bootstrap.sh test   install what is needed, build, run every test (unit, fuzz, VM,
#                         valgrind, the Debian package with lintian, then libFuzzer for about
#                         two minutes) and end with one line "N passed, N failed"
# Idempotent; installs Debian packages only, nothing else from outside.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${MGLRUD_BUILD_DIR:-$here/build}
packages=(meson ninja-build gcc pkg-config libsystemd-dev libcgroup-dev libinih-dev libcmocka-dev
          systemd qemu-system-x86 qemu-utils busybox-static e2fsprogs xz-utils cpio kmod
          valgrind tmux strace groff-base util-linux clang libclang-rt-14-dev bpftool libbpf-dev
          libjson-c-dev python3-yaml python3-kubernetes yamllint prometheus
          dpkg-dev debhelper fakeroot lintian debootstrap
          chromium) # chromium: the mglructl-report test renders the picture in a real browser;
                    # prometheus: promtool checks and unit-tests etc/prometheus/mglrud-rules.yml

die() { echo "bootstrap: $*" >&2; exit 1; }

install_packages() {
        local missing=()
        for p in "${packages[@]}"; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
                        missing+=("$p")
        done
        [ ${#missing[@]} -eq 0 ] && return 0
        [ "$(id -u)" -eq 0 ] || die "needs root to install: ${missing[*]}"
        echo "bootstrap: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# linux-bpf-dev's vmlinux.h (unpacked next to the VM kernel, nothing installed) lets meson build
# the BPF stream protection (-Dbpf=auto finds it there). Without root or network the daemon is
# built without BPF and says so at runtime.
fetch_bpf_headers() {
        "$here/tests/vm/fetch-kernel.sh" --with-bpf >/dev/null ||
                echo "bootstrap: linux-bpf-dev unavailable: building without BPF stream protection" >&2
}

build_tree() {
        if [ ! -f "$build/build.ninja" ]; then
                fetch_bpf_headers
                meson setup "$build" "$here" -Db_sanitize=address,undefined >/dev/null
        fi
        ninja -C "$build" >/dev/null || ninja -C "$build"
}

host_has_mglru() {
        [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] || return 1
        grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null || return 1
        [ -r /sys/kernel/debug/lru_gen ] || return 1
        local en; en=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo 0)
        (( en & 1 ))
}

run_demo() {
        if host_has_mglru; then
                echo "bootstrap: this kernel has cgroup v2 and MGLRU: advising on this host (dry-run, nothing is written)"
                "$build/daemon/programs/mglrud" --config "$here/etc/mglrud.conf" --config-dir "$here/etc/examples" --dry-run --once
        else
                echo "bootstrap: this kernel lacks cgroup v2 memory or MGLRU: running the demo on Debian's 7.3 kernel in QEMU"
                "$here/tests/vm/demo.sh" --build-dir "$build" "$@"
        fi
}

# Prints "passed failed skipped", summed over every meson test run in the log.
meson_counts() {
        awk '/^Ok:/ {ok+=$2} /^Expected Fail:/ {ok+=$3} /^Fail:/ {f+=$2} /^Unexpected Pass:/ {f+=$3}
             /^Timeout:/ {f+=$2} /^Skipped:/ {s+=$2} END {print ok+0, f+0, s+0}' "$1"
}

# Coverage-guided fuzzing (suite 'libfuzzer', tests/fuzz/meson.build): a clang build in which
# only the libFuzzer targets are compiled, each fuzzed for -Dlibfuzzer_seconds (12 s).
run_libfuzzer() {
        local fbuild=$build-libfuzzer
        [ -f "$fbuild/build.ninja" ] ||
                CC=clang meson setup "$fbuild" "$here" -Dlibfuzzer=true -Db_sanitize=address,undefined \
                        -Dvm_tests=false -Dbpf=disabled >/dev/null
        ninja -C "$fbuild" libfuzzer >/dev/null || ninja -C "$fbuild" libfuzzer
        meson test -C "$fbuild" --no-rebuild --suite libfuzzer --num-processes 2 --verbose \
                --logbase libfuzzer
}

run_tests() {
        local log=$build/meson-test-output.txt vlog=$build/meson-valgrind-output.txt rc=0
        local flog=$build/meson-libfuzzer-output.txt
        # Each meson run's testlog (--logbase below), for the failure list before the totals; no
        # verdicts of an earlier run in it.
        local testlogs=("$build/meson-logs/main.json" "$build-valgrind/meson-logs/memcheck.json"
                        "$build-valgrind/meson-logs/valgrind-daemon.json"
                        "$build-libfuzzer/meson-logs/libfuzzer.json")
        rm -f "${testlogs[@]}"

        # The Debian package, built out of tree in $build-deb (tests off) and checked by lintian:
        # one test in the totals. The service-systemd VM scenario installs this .deb.
        local pkg=(0 0) deb
        echo "bootstrap: building the Debian package (tests/pkg/build-deb.sh --lintian)"
        if deb=$("$here/tests/pkg/build-deb.sh" --out "$build-deb" --lintian); then
                pkg=(1 0)
                export MGLRUD_VM_DEB=$deb
                echo "bootstrap: package OK: $deb"
        else
                pkg=(0 1)
                rc=1
                echo "bootstrap: package FAILED (see $build-deb/build.log)"
        fi

        # engines-systemd (suite vm-engines, its own ~1 GB image, ~17 min) and the measurements of
        # suite vm-bench (idle-limit, headroom-high) are run by hand.
        meson test -C "$build" --print-errorlogs --num-processes 2 --no-suite vm-engines \
                --no-suite vm-bench --logbase main 2>&1 |
                tee "$log" || rc=$?

        # valgrind cannot run ASan binaries: the compiled tests and the daemon are checked again
        # in a build without sanitizers.
        local vbuild=$build-valgrind vgcmd
        vgcmd="valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q"
        vgcmd+=" --suppressions=$here/tests/valgrind.supp"
        [ -f "$vbuild/build.ninja" ] ||
                meson setup "$vbuild" "$here" -Db_sanitize=none -Dvm_tests=false >/dev/null
        ninja -C "$vbuild" >/dev/null || ninja -C "$vbuild"
        meson test -C "$vbuild" --print-errorlogs --num-processes 2 --suite memcheck \
                --wrap "$vgcmd" --logbase memcheck >"$vlog" 2>&1 || rc=1
        meson test -C "$vbuild" --print-errorlogs --suite valgrind-daemon --logbase valgrind-daemon \
                >>"$vlog" 2>&1 || rc=1
        cat "$vlog"

        local frc=0
        run_libfuzzer >"$flog" 2>&1 || frc=1
        # One line per target with its executions and coverage, and meson's verdicts.
        grep -E '^libfuzzer-|^ *[0-9]+/[0-9]+ .* (OK|FAIL|TIMEOUT|ERROR) ' "$flog" || tail -n 40 "$flog"

        # meson prints "Ok: N", "Fail: N", ... per run; CI reads one plain line with the totals.
        local a b f
        read -r -a a <<<"$(meson_counts "$log")"
        read -r -a b <<<"$(meson_counts "$vlog")"
        read -r -a f <<<"$(meson_counts "$flog")"
        # a libFuzzer build that failed before any test ran still counts as a failure
        if [ "$frc" -ne 0 ]; then
                rc=1
                [ "${f[1]}" -gt 0 ] || f[1]=1
        fi
        # The failures again, next to the totals, each with the end of its output: a long log is
        # often read from its end only.
        "$here/tests/tree/failed-tests.py" --tail 25 "${testlogs[@]}"
        echo "skipped: $(( a[2] + b[2] + f[2] ))"
        echo "$(( a[0] + b[0] + f[0] + pkg[0] )) passed, $(( a[1] + b[1] + f[1] + pkg[1] )) failed"
        return $rc
}

case "${1:-}" in
demo) shift; install_packages; build_tree; run_demo "$@" ;;
test) install_packages; build_tree; run_tests ;;
*) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
