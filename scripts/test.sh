#!/usr/bin/env bash
# Set up everything (packages, backbone, release build), then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift test 2>&1 | tee .build/test.log
