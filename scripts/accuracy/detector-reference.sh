#!/usr/bin/env bash
# Issue 27's reference detector: Ultralytics YOLOv8n trained FROM SCRATCH (yolov8n.yaml, no pretrained weights) on
# the CPU, on datasets/scenes (build_scenes.py: synthetic cut-paste-learn training pictures, real hand-labelled
# testing pictures), for a budget of CPU seconds, then scored on the real testing pictures with pycocotools: mAP@0.5
# and mAP@0.5:0.95, overall and per label, the numbers Workbench's detector is compared with at equal CPU time.
#
# Installs ultralytics (and with it torch) into .venv-torch/ on first use: only this script does, never set-up or the
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
#        DATASET=datasets/scenes-real-frames scripts/accuracy/detector-reference.sh 600
#            (another dataset of the same layout, e.g. the scenes with vtest.avi frames that
#            scripts/accuracy/detector-real-frames.py builds; its work folder, predictions.json included, is then
#            .build/detector-reference-NAME, NAME the dataset folder's name)
# The dataset is built first if datasets/scenes is missing (see datasets/build_scenes.py).
set -euo pipefail
called_from=$PWD
cd "$(dirname "$0")/../.."
source scripts/accuracy/common.sh
dataset=datasets/scenes
if [ -n "${DATASET:-}" ]; then
    case "$DATASET" in /*) given=$DATASET ;; *) given=$called_from/$DATASET ;; esac
    [ -f "$given/Training Data/annotations.json" ] && [ -f "$given/Testing Data/annotations.json" ] || {
        echo "detector-reference: $DATASET: no Training Data/ and Testing Data/ with annotations.json (build it first, e.g. scripts/accuracy/detector-real-frames.py)" >&2
        exit 2
    }
    dataset=$(realpath "$given")
    [ "$dataset" = "$(realpath -m datasets/scenes)" ] && dataset=datasets/scenes
fi
if [ "${1:-}" = --score ]; then
    [ -f "${2:-}" ] || { echo "detector-reference: --score needs a detect --json file" >&2; exit 2; }
    "$python" -c "import PIL" 2>/dev/null || scripts/setup.sh >&2
    "$python" -c "import pycocotools" 2>/dev/null ||
        "$python" -m pip install --quiet --disable-pip-version-check pycocotools==2.0.11
    build_dataset scenes detector-reference
    exec "$python" scripts/accuracy/detector-reference.py --dataset "$dataset" --score "$2"
fi
budget=${1:-600}
image_size=${2:-512}
ultralytics_version=8.4.190

"$python" -c "import PIL" 2>/dev/null || scripts/setup.sh >&2
build_dataset scenes detector-reference
# Ultralytics and its torch go into .venv-torch/, never .venv/ (see scripts/setup/torch-environment.sh). find_spec,
# not import, checks them: importing ultralytics outside the offline environment writes its settings under ~/.config.
source scripts/setup/torch-environment.sh
torch_environment "ultralytics==$ultralytics_version" pycocotools==2.0.11

work=.build/detector-reference
[ "$dataset" = datasets/scenes ] || work=".build/detector-reference-$(basename "$dataset")"
mkdir -p "$work"
YOLO_OFFLINE=true YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR="$PWD/$work/config" OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 \
    "$torch_python" scripts/accuracy/detector-reference.py --dataset "$dataset" --work "$work" \
    --cpu-seconds "$budget" --image-size "$image_size" --threads 2
