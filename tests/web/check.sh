#!/bin/sh
# check.sh - run tests/web/run.mjs where it can run: exit status 77 (skip)
# without chromium or node; otherwise the test's own status.
# Usage: tests/web/check.sh [bin/texfdtd] [run.mjs options: --steps N, --shot FILE]
cd "$(dirname "$0")/../.." || exit 1
bin=bin/texfdtd
case "${1:-}" in --*|"") ;; *) bin=$1; shift ;; esac
for c in chromium chromium-browser; do command -v "$c" >/dev/null 2>&1 && have=1; done
if [ -z "${have:-}" ]; then
    echo "web: skipped (no chromium; scripts/deps.sh installs it)"
    exit 77
fi
if ! command -v node >/dev/null 2>&1; then
    echo "web: skipped (no node)"
    exit 77
fi
exec node --no-warnings tests/web/run.mjs --bin "$bin" "$@"
