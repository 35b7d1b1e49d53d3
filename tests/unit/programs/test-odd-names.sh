#!/bin/bash
# Cgroup names the kernel accepts but a terminal or D-Bus does not: a name that is not UTF-8,
# one with an ESC sequence, one with a C1 control, one with Unicode noncharacters (sd-bus refuses
# a string holding one: every read method failed with "Invalid argument"), one with
# bidirectional controls and one with a zero-width space (both made a name look like another),
# and one whose bytes are the escaped form of another's. Every read command must still work,
# show each name escaped ("\xNN" a byte, "\\" a backslash), never print the raw characters, and
# keep the two look-alikes apart; pause takes the escaped name.
set -euo pipefail
mglrud=$1 ctl=$2 src=$3
. "$(dirname "$0")/lib-mglrud.sh"
copy_tree "$src"
# Raw names, and each one escaped as the daemon shows it.
raw=($'\xff\xfe not utf-8' $'esc\x1b[31mred' $'c1 \xc2\x9b csi'
     $'nc \xef\xbf\xbe \xef\xb7\x90 \xf4\x8f\xbf\xbf' $'bidi \xe2\x80\xaeevil\xe2\x81\xa6 x'
     $'zero\xe2\x80\x8bwidth' '\xff\xfe not utf-8' "long $(printf 'é%.0s' {1..60})")
shown=('\xff\xfe not utf-8' 'esc\x1b[31mred' 'c1 \xc2\x9b csi'
       'nc \xef\xbf\xbe \xef\xb7\x90 \xf4\x8f\xbf\xbf' 'bidi \xe2\x80\xaeevil\xe2\x81\xa6 x'
       'zero\xe2\x80\x8bwidth' '\\xff\\xfe not utf-8' "${raw[7]}")
# What must never reach the output raw: ESC, CSI, U+FFFE, U+FDD0, U+10FFFF, RLO, LRI, ZWSP.
forbidden=($'\x1b' $'\xc2\x9b' $'\xef\xbf\xbe' $'\xef\xb7\x90' $'\xf4\x8f\xbf\xbf' $'\xe2\x80\xae'
           $'\xe2\x81\xa6' $'\xe2\x80\x8b')
for n in "${raw[@]}"; do
        mkdir "$tree/cgroup/work load.slice/$n"
        cp "$tree/cgroup/work load.slice/b/"* "$tree/cgroup/work load.slice/$n/"
done
# Refused user.mglrud.* xattrs, logged at debug: their names and values are anyone's bytes too.
setx() { python3 -c 'import os,sys; os.setxattr(sys.argv[1], os.fsencode("user.mglrud." + sys.argv[2]), os.fsencode(sys.argv[3]))' "$tree/cgroup/work load.slice/$1" "$2" "$3"; }
setx "${raw[1]}" MinColdAge $'\x1b[2J10s'
setx "${raw[4]}" $'Min\xe2\x80\xaeColdAge' 10s
cat > "$tree/mglrud.conf" <<'EOC'
[Defaults]
MinColdAge=10s
MaxColdAge=10s

[/work load.slice/*]
Mode=advise
EOC
start_daemon --log-level debug
wait_estimates

check() { # NAME OUTPUT [QUOTED]: every name escaped, no raw character; QUOTED: backslashes
          # doubled once more (JSON strings, Prometheus label values)
        local s
        for s in "${shown[@]}"; do
                [[ ${3-} ]] && s=${s//\\/\\\\}
                grep -qF "work load.slice/$s" <<<"$2" || fail "$1 lacks the cgroup $s: $2"
        done
        for s in "${forbidden[@]}"; do
                if LC_ALL=C grep -qF "$s" <<<"$2"; then fail "$1 printed a raw $(od -An -tx1 <<<"$s")"; fi
        done
        if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$2"; then fail "$1 printed a control byte"; fi
        iconv -f UTF-8 -t UTF-8 <<<"$2" >/dev/null || fail "$1 printed invalid UTF-8"
}
for cmd in status dump metrics advise "--json status" "--json dump" "--json advise" \
           "top --once" "top --once --idle"; do
        # shellcheck disable=SC2086
        out=$(ctl $cmd) || fail "mglructl $cmd exited $?"
        quoted=
        [[ $cmd == --json* || $cmd == metrics ]] && quoted=1
        [[ $cmd == "--json status" ]] || check "mglructl $cmd" "$out" $quoted
        [[ $cmd == --json* ]] && { python3 -m json.tool <<<"$out" >/dev/null || fail "$cmd: invalid JSON"; }
done
ctl report --html "$tmp/report.html" --svg "$tmp/report.svg" || fail "mglructl report exited $?"
check "mglructl report --html" "$(cat "$tmp/report.html")"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/report.svg" ||
        fail "report.svg is not well-formed XML"
# Each escaped name is its own cgroup: the look-alike stays running when the other is paused.
ctl pause '/work load.slice/\xff\xfe not utf-8' || fail "pause by the escaped name"
ctl pause '/work load.slice/nc \xef\xbf\xbe \xef\xb7\x90 \xf4\x8f\xbf\xbf' ||
        fail "pause of the noncharacters by the escaped name"
paused() { ctl dump | grep -A5 -xF -- "-> /work load.slice/$1" | grep -qxF "        Paused: yes"; }
paused '\xff\xfe not utf-8' || fail "the escaped name was not paused"
paused 'nc \xef\xbf\xbe \xef\xb7\x90 \xf4\x8f\xbf\xbf' || fail "the noncharacters were not paused"
if paused '\\xff\\xfe not utf-8'; then fail "pausing one name paused its look-alike"; fi
grep -qF 'ignoring the xattr user.mglrud.MinColdAge=\x1b[2J10s' "$tmp/log" ||
        fail "the refused xattr value is not logged escaped"
grep -qF 'ignoring the xattr user.mglrud.Min\xe2\x80\xaeColdAge=10s' "$tmp/log" ||
        fail "the refused xattr name is not logged escaped"
check "the daemon's log" "$(cat "$tmp/log")"

# On a terminal top cuts a long name to "..." and its end: never within a character. Two widths,
# so that one of them would cut a two-byte "é" in half; both views.
if command -v tmux >/dev/null; then
        sock=mglrud-odd-$$
        trap 'tmux -L "$sock" kill-server 2>/dev/null || true; cleanup' EXIT
        screen() { tmux -L "$sock" capture-pane -p -t top; }
        wait_screen() { # PATTERN: up to 5 s for the pane to match the extended regex
                for _ in $(seq 50); do
                        screen | grep -qE -- "$1" && return 0
                        sleep 0.1
                done
                fail "no '$1' on the screen: $(screen)"
        }
        for cols in 101 102; do
                # What top writes, byte for byte (the pane itself would hide a broken character).
                tmux -L "$sock" new-session -d -x $cols -y 40 -s top \
                        "sleep 0.5; '$ctl' --runtime-dir '$tmp' top --interval 500ms; sleep 60"
                tmux -L "$sock" pipe-pane -t top "cat >'$tmp/raw-$cols'"
                wait_screen '^\.\.\.(é)+ +'
                check_cut() {
                        local s; s=$(screen)
                        grep -qE '^\.\.\.(é)+ ' <<<"$s" || fail "$1 at $cols columns: no cut name: $s"
                        iconv -f UTF-8 -t UTF-8 "$tmp/raw-$cols" >/dev/null 2>&1 ||
                                fail "$1 at $cols columns cut within a character: $s"
                }
                check_cut "top"
                tmux -L "$sock" send-keys -t top i
                wait_screen 'view: idle age'
                wait_screen '^\.\.\.(é)+ +'
                check_cut "top's idle view"
                tmux -L "$sock" kill-session -t top
        done
fi
echo "odd names: every read command works, names escaped"
