#!/bin/bash
# The user.mglrud.* xattrs of cgroups someone else may write (man/mglrud.8, SECURITY), on a
# copy of tests/fixtures/tree-7.3 whose "work load.slice" subtree is handed to another user
# (chown to uid 1000 as root; otherwise made group-writable, which counts the same). That user
# tries to (a) get the unselected "work load.slice" managed, (b) turn on "b", which an
# exact-path section sets Mode=off, and (c) pass the MaxStep=/MinColdAge= bounds of "a b" (and
# set Swappiness=). With CgroupAttributes=root-owned (the default) every one is ignored and
# logged once, escaped; with delegated, (a) and (b) still fail and (c) is clamped to the
# configuration's values while a more careful MaxColdAge= counts; with no, nothing is read.
set -euo pipefail
mglrud=$1 ctl=$2 fixture=$3
tree=
. "$(dirname "$0")/lib-mglrud.sh"
copy_tree "$fixture"
cg=$tree/cgroup
setx() { python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.mglrud." + sys.argv[2], sys.argv[3].encode())' "$cg/$1" "$2" "$3"; }
if ! setx . probe 1 2>/dev/null; then
        echo "SKIP: no user xattrs on $tmp"; exit 77
fi
python3 -c 'import os,sys; os.removexattr(sys.argv[1], "user.mglrud.probe")' "$cg"

setx "work load.slice" Mode active                     # (a)
setx "work load.slice" MaxStep 4M
setx "work load.slice/b" Mode active                   # (b)
setx "work load.slice/a b" MaxStep 1T                  # (c)
setx "work load.slice/a b" MinColdAge 1s
setx "work load.slice/a b" Swappiness max
setx "work load.slice/a b" MaxColdAge 5min             # more careful: counts
setx "work load.slice/a b" Floor $'\e[2J'              # escaped in the log
if [[ $(id -u) == 0 ]]; then
        chown -R 1000:1000 "$cg/work load.slice"; why="owned by uid 1000"
else
        find "$cg/work load.slice" -type d -exec chmod g+w {} +; why="writable by its group (mode 0775"
fi

# run MODE: the daemon with CgroupAttributes=MODE until a rescan; sets out (status), dump, ab
run() {
        cat > "$tree/mglrud.conf" <<EOC
[Daemon]
Interval=1s
CgroupAttributes=$1
[Defaults]
MinColdAge=10s
MaxColdAge=1min
MaxStep=8M
[/work load.slice/a b]
Mode=active
[/work load.slice/b]
Mode=off
[/work load.slice/new*]
Mode=advise
EOC
        start_daemon --log-level info
        wait_estimates
        sleep 1
        # A new cgroup (inotify) makes a rescan, which must not say it all again.
        cp -r "$cg/work load.slice/b" "$cg/work load.slice/new$1"
        for _ in $(seq 50); do
                grep -q "Managing /work load.slice/new$1 " "$tmp/log" && break
                sleep 0.1
        done
        grep -q "Managing /work load.slice/new$1 " "$tmp/log" || fail "$1: no rescan"
        out=$(ctl status) dump=$(ctl dump)
        kill "$pid"; wait "$pid" || fail "exit status $?"
        pid=
        rm -r "$cg/work load.slice/new$1"
        grep -q '^/work load.slice/a b ' <<<"$out" || fail "$1: a b not managed: $out"
        grep -q '^/work load.slice ' <<<"$out" && fail "$1: (a) the unselected slice is managed: $out"
        grep -q '^/work load.slice/b ' <<<"$out" && fail "$1: (b) b (exact Mode=off) is managed: $out"
        ab=$(grep -A8 -xF -- "-> /work load.slice/a b" <<<"$dump")
        grep -q $'\e' "$tmp/log" && fail "$1: a raw escape character was logged"
        true
}
# count N PATTERN: the log has exactly N lines matching the fixed string PATTERN
count() { local n; n=$(grep -cF -- "$2" "$tmp/log" || true); [[ $n == "$1" ]] || fail "$n times, not $1: $2"; }

run root-owned
grep -q "Override" <<<"$ab" && fail "root-owned: an untrusted xattr counts: $ab"
for kv in "Mode=active" "MaxStep=4M"; do
        count 1 "/work load.slice: ignoring the xattr user.mglrud.$kv: the directory is $why"
done
count 1 "/work load.slice/b: ignoring the xattr user.mglrud.Mode=active: the directory is $why"
count 1 "/work load.slice/a b: ignoring the xattr user.mglrud.MaxStep=1T: the directory is $why"
count 1 '/work load.slice/a b: ignoring the xattr user.mglrud.Floor=\x1b[2J: the directory is'

run delegated
grep -qxF "        Override: MaxStep=8M (annotation)" <<<"$ab" || fail "delegated: MaxStep not clamped: $ab"
grep -qxF "        Override: MinColdAge=10s (annotation)" <<<"$ab" || fail "delegated: MinColdAge not clamped: $ab"
grep -qxF "        Override: MaxColdAge=5min (annotation)" <<<"$ab" || fail "delegated: MaxColdAge lost: $ab"
grep -q "Swappiness" <<<"$ab" && fail "delegated: Swappiness counts: $ab"
count 1 "/work load.slice/a b: the xattr user.mglrud.MaxStep=1T: above the configuration's 8M for this cgroup: clamped to it"
count 1 "/work load.slice/a b: the xattr user.mglrud.MinColdAge=1s: below the configuration's 10s for this cgroup: clamped to it"
count 1 "/work load.slice/a b: ignoring the xattr user.mglrud.Swappiness=max: not allowed in an annotation"
count 1 '/work load.slice/a b: ignoring the xattr user.mglrud.Floor=\x1b[2J: invalid size'
count 1 "/work load.slice/b: the xattr user.mglrud.Mode=active: an exact-path section sets Mode=off for this cgroup: ignored"
count 0 "/work load.slice: ignoring"  # trusted now; keys alone select nothing: no line needed

run no
grep -q "Override" <<<"$ab" && fail "no: an xattr counts: $ab"
count 0 "xattr"
echo "cgroup attributes: refused (root-owned), clamped (delegated), unread (no); (a) (b) never"
