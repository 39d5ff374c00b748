#!/usr/bin/env bash
# `workbench label` on a video against `workbench label` on the same video's frames extracted as PNG files
# (`ffmpeg -vf fps=1`, lossless): the label of every second must agree (the goal is at least 97 %; since video frames
# are decoded exactly as image files are, every second agrees and the confidences are equal too).
#
# The video: 24 drawings of the sample dataset (datasets/drawings), one a second on a 640 × 480 white canvas,
# 25 fps, x264 (yuv420p), each shown from a quarter second before its sample to three quarters after: `label` takes the
# picture on screen at each second n (fps start_time=0, round=up) while plain `-vf fps=1` (round=near) takes the last
# frame before n + 0.5, so the two sample different frames of the same shot; a cut between them would differ by
# frame choice, not by preprocessing. A second extraction with the labeler's
# own sampling (`fps=fps=1:start_time=0:round=up`) must then give identical confidences on every second: the same
# decoded pixels give the same network input.
# The model is trained on the same sample dataset.
#
# Usage: scripts/check/check-video-vs-frames.sh   (prints the agreement; exits 1 below 97 %)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=.build/video-vs-frames
rm -rf "$work/frames" "$work/frames-up" && mkdir -p "$work/frames" "$work/frames-up"
export WORKBENCH_CACHE="$work/cache"
.venv/bin/python3 datasets/build_clipart.py >/dev/null
model="$work/drawings.wbmodel"
.build/release/workbench train datasets/drawings -o "$model" >/dev/null 2>&1
list="$work/slides.txt"
: > "$list"
mapfile -t drawings < <(find "datasets/drawings/Testing Data" -name '*.png' | sort | awk 'NR % 3 == 1' | head -24)
first=0.75
for drawing in "${drawings[@]}" "${drawings[-1]}"; do printf "file '%s'\nduration %s\n" "$PWD/$drawing" "$first" >> "$list"; first=1; done
video="$work/drawings.mp4"
ffmpeg -nostdin -loglevel error -y -f concat -safe 0 -i "$list" \
    -vf "scale=640:480:force_original_aspect_ratio=decrease,pad=640:480:(ow-iw)/2:(oh-ih)/2:white,format=yuv420p" \
    -r 25 -t "${#drawings[@]}" -c:v libx264 -preset veryfast -crf 23 "$video"
ffmpeg -nostdin -loglevel error -i "$video" -vf fps=1 "$work/frames/%d.png"
ffmpeg -nostdin -loglevel error -i "$video" -vf fps=fps=1:start_time=0:round=up "$work/frames-up/%d.png"
.build/release/workbench label "$model" "$video" --json --no-cache > "$work/video.json"
.build/release/workbench label "$model" "$work/frames" --json --no-cache > "$work/frames.json"
.build/release/workbench label "$model" "$work/frames-up" --json --no-cache > "$work/frames-up.json"
.venv/bin/python3 - "$work/video.json" "$work/frames.json" "$work/frames-up.json" <<'PYTHON'
import json, sys
video, frames, frames_up = (json.load(open(path))["frames"] for path in sys.argv[1:4])
ok = True
for name, other in [("-vf fps=1", frames), ("-vf fps=fps=1:start_time=0:round=up", frames_up)]:
    count = min(len(video), len(other))
    same = sum(a["label"] == b["label"] for a, b in zip(video, other))
    equal = sum(a["confidence"] == b["confidence"] for a, b in zip(video, other))
    print(f"frames extracted with {name}: video seconds {len(video)}, PNG frames {len(other)}; same label in {same} of "
          f"{count} seconds ({100 * same / max(count, 1):.1f} %), identical confidence in {equal}")
    ok = ok and len(video) == len(other) and same >= 0.97 * count
ok = ok and all(a["confidence"] == b["confidence"] for a, b in zip(video, frames_up))
sys.exit(0 if ok else 1)
PYTHON
