#!/usr/bin/env bash
# Set up everything (packages, backbone, release build), then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The suite is XCTest; the end-to-end tests run the release binary set-up just built.
status=0
swift test --disable-swift-testing 2>&1 | tee .build/test.log || status=$?
summary=$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" .build/test.log | tail -n 1 || true)
executed=$(printf '%s' "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
failed=$(printf '%s' "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
if [ -n "$summary" ]; then
    echo "tests: $((executed - failed)) passed, $failed failed"
fi
exit "$status"
