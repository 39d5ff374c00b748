#!/usr/bin/env bash
# Set up everything, build the bundled sample dataset (clip art from Debian's openclipart-png) and run the main
# job on it end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
python3 datasets/build_clipart.py >/dev/null
.build/release/workbench features datasets/drawings --json -o models/drawings-features.jsonl
echo "features written to models/drawings-features.jsonl"
