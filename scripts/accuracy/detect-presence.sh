#!/usr/bin/env bash
# Issue 24's presence and clip measurement, and the speed of `detect` on a video.
#
# Composes a video from OpenCV's sample footage (Debian's opencv-doc: vtest.avi, pedestrians on a campus path, and
# tree.avi, a tree through a window, nobody in it) with known stretches with and without people, runs
# `workbench detect --json --clips` on it at the default sampling, and prints:
#   - presence accuracy over the samples (a sample is right when "someone seen" equals "inside a vtest stretch";
#     goal: at least 95 %), with the wrong samples' times;
#   - the clips against the issue's rule applied to the true stretches (the rule re-stated in detect-presence.py,
#     not Workbench's code), each start and end within one sample (goal: all);
#   - `detect` on vtest.avi itself (768 x 576, 79.5 s) at the default sampling: wall time against the video's
#     length (goal: faster than real time, ratio > 1) at 1 and 2 threads;
#   - with DETECT_TILES=1, boxes >= 0.5 on six vtest frames with --tiles 1, 2 and 3 against a hand count of the
#     people in them (frames written to the work folder so anyone can count again).
#
# Usage: scripts/accuracy/detect-presence.sh            (about 3-6 minutes on 2 busy cores)
#        WORKBENCH=path/to/workbench scripts/accuracy/detect-presence.sh
#        DETECT_TILES=1 scripts/accuracy/detect-presence.sh
# The work folder (composed video, clips, frames) is .build/detect-presence.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv

data=/usr/share/doc/opencv-doc/examples/data
if [ ! -e "$data/vtest.avi" ] && [ ! -e "$data/vtest.avi.gz" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get install -y opencv-doc >/dev/null
    else
        echo "detect-presence: needs Debian's opencv-doc (OpenCV's sample videos): sudo apt-get install -y opencv-doc" >&2
        exit 1
    fi
fi

if [ -n "${WORKBENCH:-}" ]; then
    workbench=$WORKBENCH
else
    scripts/setup.sh >/dev/null
    workbench=.build/release/workbench
fi

work=.build/detect-presence
mkdir -p "$work"
for name in vtest tree; do
    if [ -e "$data/$name.avi" ]; then cp "$data/$name.avi" "$work/$name.avi"; else gunzip -c "$data/$name.avi.gz" > "$work/$name.avi"; fi
done
"$python" scripts/accuracy/detect-presence.py --workbench "$workbench" --work "$work" ${DETECT_TILES:+--tiles}
