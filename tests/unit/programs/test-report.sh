#!/bin/bash
# mglructl report --svg/--html against mglrud --dry-run on the 7.3 fixture tree: the picture is
# valid SVG with one curve per profile that knows an idle time (host, "a b", "b"), each curve's
# points are the profile's known rows, and a real browser (headless Chromium) draws it: the
# screenshot's plot area is not blank and shows exactly the three curve colours where the points
# are (check-report-png.py). Without chromium the browser part is skipped (exit 77) with a
# message; bootstrap.sh installs it.
set -euo pipefail
mglrud=$1 ctl=$2 tree=$3
. "$(dirname "$0")/lib-mglrud.sh"
here=$(dirname "$0")

start_daemon
wait_estimates
ctl report --svg "$tmp/report.svg" --html "$tmp/report.html" || fail "report exited $?"
ctl --json advise >"$tmp/advise.json" || fail "advise --json exited $?"
rc=0; ctl report 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "report without --svg or --html: exit $rc, expected 2"
# A symlink planted at the output path (root writing into /tmp): replaced, never written
# through.
mkdir "$tmp/out"
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/out/r.svg"
ln -s "$tmp/victim" "$tmp/out/r.html"
ctl report --svg "$tmp/out/r.svg" --html "$tmp/out/r.html" || fail "report over symlinks exited $?"
[[ $(cat "$tmp/victim") == precious ]] || fail "report wrote through a symlink: $(head -c 80 "$tmp/victim")"
for f in r.svg r.html; do
        [[ -f $tmp/out/$f && ! -L $tmp/out/$f ]] || fail "$f is not a new regular file"
        [[ $(stat -c %a "$tmp/out/$f") == 644 ]] || fail "$f mode $(stat -c %a "$tmp/out/$f")"
done
grep -q '^<svg ' "$tmp/out/r.svg" && grep -q '^<!DOCTYPE html>' "$tmp/out/r.html" ||
        fail "the report over a symlink is not one"
[[ $(ls -A "$tmp/out") == $'r.html\nr.svg' ]] || fail "left in the directory: $(ls -A "$tmp/out")"
# A failure after the new file was written (rename over a directory) leaves no file behind.
mkdir "$tmp/out/d.svg"
rc=0; ctl report --svg "$tmp/out/d.svg" 2>"$tmp/err" || rc=$?
[[ $rc != 0 ]] && grep -qF "Cannot write $tmp/out/d.svg" "$tmp/err" ||
        fail "report over a directory: exit $rc, $(cat "$tmp/err")"
[[ $(ls -A "$tmp/out") == $'d.svg\nr.html\nr.svg' ]] || fail "left behind: $(ls -A "$tmp/out")"
kill "$pid"; wait "$pid" || fail "mglrud exit status $?"
pid=

python3 - "$tmp/report.svg" "$tmp/advise.json" <<'EOF' || fail "the SVG does not match the profiles"
import json, sys
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
a = json.load(open(sys.argv[2]))
known = {"host": sum(r["Known"] for r in a["host"]["Ladder"])}
for c in a["cgroups"]:
    known[c["Path"]] = sum(r["Known"] for r in c["Profile"]["Ladder"])
curves = {g.get("data-name"): g for g in root.findall(".//s:g[@class='curve']", ns)}
assert sorted(curves) == sorted(known), (sorted(curves), known)
for name, g in curves.items():
    pts = g.find("s:polyline", ns).get("points").split()
    assert len(pts) == len(g.findall("s:circle", ns)) == known[name], (name, pts, known[name])
    # Bytes idle at least t never grow with t: y (downwards) never decreases left to right.
    xy = [tuple(map(float, p.split(","))) for p in pts]
    assert all(x1 > x0 and y1 >= y0 for (x0, y0), (x1, y1) in zip(xy, xy[1:])), (name, xy)
print("SVG: curves", {k: known[k] for k in sorted(known)})
EOF
grep -q '^<!DOCTYPE html>' "$tmp/report.html" || fail "no HTML page"
grep -q '<svg ' "$tmp/report.html" || fail "the HTML page has no picture"
grep -qF '18s oldest' "$tmp/report.html" || fail "the HTML page has no tables"

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
        echo "chromium not found: skipping the check in a real browser (apt-get install chromium," \
             "as ./bootstrap.sh does)"
        exit 77
fi
shot() { # shot URL PNG: a screenshot of the top-left 1000x540 pixels
        rm -rf "$tmp/profile"
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
                --disable-background-networking --disable-component-update --disable-sync \
                --user-data-dir="$tmp/profile" --hide-scrollbars --force-device-scale-factor=1 \
                --window-size=1000,540 --screenshot="$2" "$1" >"$tmp/chromium.log" 2>&1 ||
                { cat "$tmp/chromium.log"; fail "chromium failed on $1"; }
        [[ -s $2 ]] || { cat "$tmp/chromium.log"; fail "no screenshot of $1"; }
}
shot "file://$tmp/report.svg" "$tmp/svg.png"
python3 "$here/check-report-png.py" "$tmp/svg.png" "$tmp/report.svg" 3 || fail "SVG screenshot"
shot "file://$tmp/report.html" "$tmp/html.png"
python3 "$here/check-report-png.py" "$tmp/html.png" "$tmp/report.svg" 3 || fail "HTML screenshot"
echo "mglructl report: ok"
