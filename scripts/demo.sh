#!/usr/bin/env bash
# Set up everything, build the bundled sample dataset (clip art from Debian's openclipart-png), train a classifier
# on it and label its test images with the trained model: the main job, end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/python3 datasets/build_clipart.py >/dev/null
.build/release/workbench train datasets/drawings -o models/Drawings.wbmodel --report models/Drawings-report.json
echo
echo "workbench classify models/Drawings.wbmodel \"datasets/drawings/Testing Data/Fruit\" --top 2"
.build/release/workbench classify models/Drawings.wbmodel "datasets/drawings/Testing Data/Fruit" --top 2
echo
echo "The training report, with the misclassified images and where the model looked: models/Drawings.html"
echo
echo "Next: scripts/install.sh puts workbench on your PATH; then, from any folder:"
echo "  workbench classify $PWD/models/Drawings.wbmodel photo.jpg --top 3"
