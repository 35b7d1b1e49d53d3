#!/bin/bash
# Cgroup names the kernel accepts but a terminal or D-Bus does not: a name that is not UTF-8
# and one with an ESC sequence. Every read command must still work, show them escaped ("\xff",
# "\x1b") and never print a raw control character; pause takes the escaped name.
set -euo pipefail
mglrud=$1 ctl=$2 src=$3
. "$(dirname "$0")/lib-mglrud.sh"
copy_tree "$src"
bad=$'\xff\xfe not utf-8' esc=$'esc\x1b[31mred'
for n in "$bad" "$esc"; do
        mkdir "$tree/cgroup/work load.slice/$n"
        cp "$tree/cgroup/work load.slice/b/"* "$tree/cgroup/work load.slice/$n/"
done
cat > "$tree/mglrud.conf" <<'EOC'
[Defaults]
MinColdAge=10s
MaxColdAge=10s

[/work load.slice/*]
Mode=advise
EOC
start_daemon
wait_estimates

check() { # NAME OUTPUT: the output must hold both names escaped and no raw control byte
        grep -qF 'not utf-8' <<<"$2" || fail "$1 lacks the non-UTF-8 cgroup: $2"
        # One backslash in text, two in JSON strings and Prometheus label values.
        grep -qE '\\{1,2}xff\\{1,2}xfe not utf-8' <<<"$2" || fail "$1 does not escape the bytes: $2"
        grep -qE 'esc\\{1,2}x1b\[31mred' <<<"$2" || fail "$1 does not escape ESC: $2"
        if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$2"; then fail "$1 printed a control byte"; fi
        iconv -f UTF-8 -t UTF-8 <<<"$2" >/dev/null || fail "$1 printed invalid UTF-8"
}
for cmd in status dump metrics advise "--json status" "--json dump" "--json advise" \
           "top --once" "top --once --idle"; do
        # shellcheck disable=SC2086
        out=$(ctl $cmd) || fail "mglructl $cmd exited $?"
        [[ $cmd == "--json status" ]] || check "mglructl $cmd" "$out"
        [[ $cmd == --json* ]] && { python3 -m json.tool <<<"$out" >/dev/null || fail "$cmd: invalid JSON"; }
done
ctl report --html "$tmp/report.html" || fail "mglructl report exited $?"
check "mglructl report --html" "$(cat "$tmp/report.html")"
ctl pause '/work load.slice/\xff\xfe not utf-8' || fail "pause by the escaped name"
ctl dump | grep -A5 -xF -- '-> /work load.slice/\xff\xfe not utf-8' | grep -qxF "        Paused: yes" ||
        fail "the escaped name was not paused"
check "the daemon's log" "$(cat "$tmp/log")"
echo "odd names: every read command works, names escaped"
