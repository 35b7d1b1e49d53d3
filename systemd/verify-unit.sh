#!/bin/bash
# Runs systemd-analyze verify on the generated unit with ExecStart= pointing at the built binary.
set -euo pipefail
unit=$1 exe=$2 analyze=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|^ExecStart=.*|ExecStart=$exe|" "$unit" > "$dir/mglrud.service"
out=$("$analyze" verify --man=no "$dir/mglrud.service" 2>&1) || { echo "$out"; exit 1; }
# verify prints warnings without failing: any line about our unit is a defect.
if grep -F "mglrud.service" <<<"$out"; then exit 1; fi
echo "systemd-analyze verify: clean"
