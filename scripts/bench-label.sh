#!/usr/bin/env bash
# Time of `workbench label` on a 10-minute 720p video at one frame a second, against `workbench features` on the
# same 600 frames as JPEG files: video decoding must cost little next to the network.
#
# The video is a slideshow of the photos in Debian's wallpaper packages (see bench-images.sh), 720p at 25 fps
# with film grain so that every frame is a real decode, H.264. Medians of RUNS runs.
#
# PRESET picks x264's preset (default veryfast, one reference frame: ffmpeg may then skip decoding B-frames, which
# Workbench reads from x264's settings in the stream; with medium, P-frames refer to B-frames and only frames
# nothing refers to are skipped).
#
# Usage: [PRESET=medium] scripts/bench-label.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=.build/bench
scripts/setup.sh
images=$(scripts/bench-images.sh)

preset=${PRESET:-veryfast}
video="$work/ten-minutes-720p-$preset.mp4"
if [ ! -f "$video" ]; then
    list="$work/slideshow.txt"
    : > "$list"
    # Cycle through the photos until the slideshow is 10 minutes long (172 slides of 3.5 s).
    mapfile -t photos < <(find "$images" -name 'wallpaper-*.jpg' | sort)
    for slide in $(seq 0 171); do
        printf "file '%s'\nduration 3.5\n" "$PWD/${photos[$((slide % ${#photos[@]}))]}" >> "$list"
    done
    ffmpeg -nostdin -loglevel error -y -f concat -safe 0 -i "$list" \
        -vf "scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,noise=alls=6:allf=t,format=yuv420p" \
        -r 25 -t 600 -c:v libx264 -preset "$preset" -crf 23 "$video.partial.mp4"
    mv "$video.partial.mp4" "$video"
fi
frames="$work/video-frames"
if [ ! -f "$frames/.complete" ]; then
    rm -rf "$frames" && mkdir -p "$frames"
    ffmpeg -nostdin -loglevel error -i "$video" -vf fps=1 -q:v 2 "$frames/%d.jpg"
    touch "$frames/.complete"
fi
model="$work/drawings.wbmodel"
[ -f "$model" ] || { python3 datasets/build_clipart.py >/dev/null; .build/release/workbench train datasets/drawings -o "$model" >/dev/null 2>&1; }

median() { sort -n | awk '{ values[NR] = $1 } END { print (NR % 2) ? values[(NR + 1) / 2] : (values[NR / 2] + values[NR / 2 + 1]) / 2 }'; }
timed() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'; }

label_times=(); feature_times=()
for run in $(seq "$runs"); do
    label_times+=("$(timed .build/release/workbench label "$model" "$video" --no-cache)")
    feature_times+=("$(timed .build/release/workbench features "$frames")")
done
label=$(printf '%s\n' "${label_times[@]}" | median)
features=$(printf '%s\n' "${feature_times[@]}" | median)
echo "10-minute 720p video (x264 $preset), one frame a second: label $label s; features of the same 600 frames as JPEG: $features s"
awk -v a="$label" -v b="$features" 'BEGIN { printf "ratio label / features: %.2f (goal: at most 1.5)\n", a / b }'
