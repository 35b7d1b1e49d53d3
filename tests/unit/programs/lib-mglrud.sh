# Sourced by the mglructl tests: a temporary runtime directory (reachable by an unprivileged
# caller), cleanup on exit, fail() with the daemon's log, and mglrud --dry-run on a fixture tree.
# Expects mglrud, ctl and tree to be set; sets tmp and pid.
tmp=$(mktemp -d)
chmod 755 "$tmp" # the unprivileged caller must reach the socket
pid=
. "$(dirname "${BASH_SOURCE[0]}")/lib-reap.sh"
cleanup() {
        [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
        reap_strays "$tmp"
        rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- daemon log:"; cat "$tmp/log" || true; exit 1; }
ctl() { "$ctl" --runtime-dir "$tmp" "$@"; }
# Copies the fixture tree $1 to $tmp/tree (removed with $tmp) and points tree at it, for tests
# that change it.
copy_tree() { tree=$tmp/tree; cp -a "$1" "$tree"; }

# Starts mglrud --dry-run --interval 1s on $tree with the socket in $tmp; extra options follow.
start_daemon() {
        "$mglrud" --interval 1s --dry-run --runtime-dir "$tmp" \
                --config "$tree/mglrud.conf" --cgroup-root "$tree/cgroup" \
                --debugfs-root "$tree/debugfs" --proc-root "$tree/proc" "$@" >"$tmp/log" 2>&1 &
        pid=$!
}

# Waits for the socket and the first lru_gen estimates (after the second cycle: the first is
# warmup).
wait_estimates() {
        for _ in $(seq 100); do
                [[ -S $tmp/bus ]] && ctl metrics 2>/dev/null | grep -q '^mglrud_cold_bytes{' && break
                sleep 0.1
        done
        [[ -S $tmp/bus ]] || fail "no socket $tmp/bus"
}
