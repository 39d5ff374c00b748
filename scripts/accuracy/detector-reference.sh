#!/usr/bin/env bash
# Issue 27's reference detector: Ultralytics YOLOv8n trained FROM SCRATCH (yolov8n.yaml, no pretrained weights) on
# the CPU, on datasets/scenes (build_scenes.py: synthetic cut-paste-learn training pictures, real hand-labelled
# testing pictures), for a budget of CPU seconds, then scored on the real testing pictures with pycocotools: mAP@0.5
# and mAP@0.5:0.95, overall and per label, the numbers Workbench's detector is compared with at equal CPU time.
#
# Installs ultralytics (and with it torch) into .venv/ on first use: only this script does, never set-up or the
# tests. Runs offline: YOLO_OFFLINE, settings sync off, its config folder under the work folder with a local font
# in place of the Arial.ttf it would download, and every network connection refused in the Python process (a
# download attempt fails loudly instead of fetching). 2 threads (torch and OpenMP), data loading in-process
# (workers 0) so the process's CPU time is all of the training's CPU time; the budget counts CPU seconds of that
# process (time.process_time, both threads), checked after every batch (a batch of 16 at 512 px is about 7 CPU s,
# so a run overshoots by up to one batch, and two runs on a busy machine may stop a batch apart: seeded, not
# bit-reproducible).
#
# Prints the table and writes the work folder .build/detector-reference/: the YOLO-format copy of the dataset,
# ultralytics' run, and predictions.json, the testing predictions in `workbench detect --json`'s shape (Create ML's
# annotations plus "confidence"; image names relative to "Testing Data"), so any scorer can re-read them.
#
# With --score FILE it trains nothing: it scores FILE, any detector's `detect --json` output on the testing pictures
# (matched by file name), with the same pycocotools settings, so Workbench's own detector is scored like YOLO.
#
# Usage: scripts/accuracy/detector-reference.sh [CPU_SECONDS] [IMAGE_SIZE]    (defaults 600 and 512)
#        e.g. scripts/accuracy/detector-reference.sh 600      (10 CPU minutes: about 5 minutes on 2 idle cores)
#        scripts/accuracy/detector-reference.sh --score predictions.json
# The dataset is built first if datasets/scenes is missing (see datasets/build_scenes.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/accuracy/common.sh
if [ "${1:-}" = --score ]; then
    [ -f "${2:-}" ] || { echo "detector-reference: --score needs a detect --json file" >&2; exit 2; }
    "$python" -c "import PIL" 2>/dev/null || scripts/setup.sh >&2
    "$python" -c "import pycocotools" 2>/dev/null ||
        "$python" -m pip install --quiet --disable-pip-version-check pycocotools==2.0.11
    build_dataset scenes detector-reference
    exec "$python" scripts/accuracy/detector-reference.py --dataset datasets/scenes --score "$2"
fi
budget=${1:-600}
image_size=${2:-512}
ultralytics_version=8.4.190

"$python" -c "import PIL" 2>/dev/null || scripts/setup.sh >&2
# find_spec, not import: importing ultralytics outside the offline environment writes its settings under ~/.config.
if ! "$python" -c "import importlib.util as u, sys; sys.exit(not (u.find_spec('ultralytics') and u.find_spec('pycocotools')))"; then
    echo "detector-reference: installing ultralytics $ultralytics_version and pycocotools into .venv/ (torch with it: a large download, once)" >&2
    "$python" -m pip install --quiet --disable-pip-version-check "ultralytics==$ultralytics_version" pycocotools==2.0.11
fi
build_dataset scenes detector-reference

work=.build/detector-reference
mkdir -p "$work"
YOLO_OFFLINE=true YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR="$PWD/$work/config" OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 \
    "$python" scripts/accuracy/detector-reference.py --dataset datasets/scenes --work "$work" \
    --cpu-seconds "$budget" --image-size "$image_size" --threads 2
