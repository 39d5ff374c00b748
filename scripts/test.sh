#!/usr/bin/env bash
# Set up everything (packages, backbone, release build), then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Fixtures too large for git are generated from independent tools (Pillow, zlib) before the tests.
python3 scripts/make-codec-fixtures.py --generated-only
swift test 2>&1 | tee .build/test.log
