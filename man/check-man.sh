#!/bin/bash
# Formats a man page and fails on any warning: groff (Debian groff-base) with every warning
# enabled, else mandoc -Tlint; exit 77 (skip) when neither is installed.
set -euo pipefail
page=$1
export LC_ALL=C.UTF-8
if command -v groff >/dev/null; then
        out=$(groff -man -ww -z -Tutf8 "$page" 2>&1 >/dev/null) || { echo "$out"; exit 1; }
elif command -v mandoc >/dev/null; then
        out=$(mandoc -Tlint -Wwarning "$page" 2>&1) || { echo "$out"; exit 1; }
else
        echo "neither groff nor mandoc found: skipping $page"
        exit 77
fi
if [[ -n $out ]]; then
        echo "$out"
        exit 1
fi
echo "$page: no warnings"
