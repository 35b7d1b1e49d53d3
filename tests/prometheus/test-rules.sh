#!/bin/bash
# The shipped Prometheus rules (etc/prometheus/mglrud-rules.yml): promtool checks them, their
# unit tests (mglrud-rules.test.yml) fire and stay quiet where they must, and every mglrud_*
# series they use is one the daemon really writes (its --metrics-file on the fixture tree), so a
# renamed metric cannot leave an alert that never fires.
set -euo pipefail
src=$1 mglrud=$2 ctl=$3 tree=$4
command -v promtool >/dev/null || { echo "promtool missing (Debian package prometheus)"; exit 77; }
rules=$src/etc/prometheus/mglrud-rules.yml
. "$src/tests/unit/programs/lib-mglrud.sh"

promtool check rules "$rules" || fail "promtool check rules"
(cd "$src/tests/prometheus" && promtool test rules mglrud-rules.test.yml) || fail "promtool test rules"

start_daemon --metrics-file "$tmp/mglrud.prom"
wait_estimates
for _ in $(seq 50); do [[ -s $tmp/mglrud.prom ]] && break; sleep 0.1; done
used=$(grep -v '^ *#' "$rules" | grep -oP '(?<![:a-z_])mglrud_[a-z_]+(?![a-z_:])' | sort -u)
[[ -n $used ]] || fail "no mglrud_* series found in $rules"
for m in $used; do
        grep -q "^# TYPE $m " "$tmp/mglrud.prom" || fail "$rules uses $m, which the daemon does not write"
done
echo "ok: $(wc -w <<<"$used") mglrud series used by the rules, all written by the daemon"
