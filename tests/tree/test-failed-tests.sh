#!/bin/bash
# tests/tree/failed-tests.py on a hand-made testlog.json: it names every test meson did not pass
# (FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS) with the end of its output, and none of the others.
set -euo pipefail
tool="$1/tests/tree/failed-tests.py"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat >"$t/log.json" <<'J'
{"name": "mglrud:unit / passes", "result": "OK", "duration": 1.0, "stdout": "fine\n"}
{"name": "mglrud:unit / skips", "result": "SKIP", "duration": 0.1, "stdout": ""}
{"name": "mglrud:unit / breaks", "result": "FAIL", "duration": 12.4, "stdout": "one\ntwo\nthree\n"}
not json: a line meson never writes
{"name": "mglrud:vm / hangs", "result": "TIMEOUT", "duration": 150.0, "stdout": "booting\n"}
J
out=$("$tool" --tail 2 "$t/log.json" "$t/missing.json")
echo "$out"
want="failed: mglrud:unit / breaks (FAIL, 12 s, $t/log.json)
  | two
  | three
failed: mglrud:vm / hangs (TIMEOUT, 150 s, $t/log.json)
  | booting"
[ "$out" = "$want" ] || fail "unexpected output"
names=$("$tool" --tail 0 "$t/log.json")
[ "$(grep -c '^failed: ' <<<"$names")" = 2 ] || fail "--tail 0: $names"
grep -q '|' <<<"$names" && fail "--tail 0 printed output lines"
echo "ok"
