#!/usr/bin/env bash
# Time of `workbench label` on a 10-minute 720p video at one frame a second, against `workbench features` on the
# same 600 frames as JPEG files: video decoding must cost little next to the network.
#
# The video is made from the photos in Debian's wallpaper packages (see bench-images.sh), 720p at 25 fps, H.264,
# 172 shots of 3.5 s. CONTENT picks what the shots show:
#   grain (default)  each photo still, with film grain: every keyframe is large (about 300-450 kB), every other
#                    frame tiny; decoding is dominated by the keyframes.
#   pan              the camera pans across each photo (no grain): every frame carries motion, as in filmed scenes.
# PRESET picks x264's preset: veryfast (default) keeps one reference frame, so ffmpeg may skip decoding B-frames;
# medium (ffmpeg's own default) keeps three, P-frames refer to B-frames, and only frames nothing refers to are
# skipped. Medians of RUNS runs.
#
# Usage: [CONTENT=grain|pan] [PRESET=veryfast|medium] scripts/bench/bench-label.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
work=.build/bench
scripts/setup.sh
images=$(scripts/bench/bench-images.sh)

preset=${PRESET:-veryfast}
content=${CONTENT:-grain}
video="$work/ten-minutes-720p-$content-$preset.mp4"
mapfile -t photos < <(find "$images" -name 'wallpaper-*.jpg' | sort)
if [ ! -f "$video" ]; then
    case "$content" in
    grain)
        # Cycle through the photos until the slideshow is 10 minutes long (172 slides of 3.5 s).
        list="$work/slideshow.txt"
        : > "$list"
        for slide in $(seq 0 171); do
            printf "file '%s'\nduration 3.5\n" "$PWD/${photos[$((slide % ${#photos[@]}))]}" >> "$list"
        done
        ffmpeg -nostdin -loglevel error -y -f concat -safe 0 -i "$list" \
            -vf "scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,noise=alls=6:allf=t,format=yuv420p" \
            -r 25 -t 600 -c:v libx264 -preset "$preset" -crf 23 "$video.partial.mp4"
        ;;
    pan)
        # Each photo cropped to 1600 × 900 once; a 1280 × 720 window then sweeps across it in 3.5 s, bobbing up
        # and down. One ffmpeg per shot writes raw frames into a single encoder.
        stills="$work/pan-stills"
        mkdir -p "$stills"
        for i in "${!photos[@]}"; do
            [ -f "$stills/$i.jpg" ] || ffmpeg -nostdin -loglevel error -y -i "${photos[$i]}" \
                -vf "scale=1600:900:force_original_aspect_ratio=increase,crop=1600:900" -q:v 2 "$stills/$i.jpg"
        done
        # 36 shots of 88 frames and 136 of 87: exactly 15,000 frames, so the encoder reads its input to the end.
        for shot in $(seq 0 171); do
            ffmpeg -nostdin -loglevel error -loop 1 -framerate 25 -i "$stills/$((shot % ${#photos[@]})).jpg" \
                -vf "crop=1280:720:x='(iw-1280)*t/3.5':y='(ih-720)*(0.5+0.4*sin(t))',format=yuv420p" \
                -frames:v $((shot < 36 ? 88 : 87)) -f rawvideo -
        done | ffmpeg -nostdin -loglevel error -y -f rawvideo -pix_fmt yuv420p -s 1280x720 -r 25 -i - \
            -c:v libx264 -preset "$preset" -crf 23 "$video.partial.mp4"
        ;;
    *) echo "bench-label: CONTENT must be grain or pan, not $content" >&2; exit 2 ;;
    esac
    mv "$video.partial.mp4" "$video"
fi
frames="$work/video-frames-$content-$preset"
if [ ! -f "$frames/.complete" ]; then
    rm -rf "$frames" && mkdir -p "$frames"
    ffmpeg -nostdin -loglevel error -i "$video" -vf fps=1 -q:v 2 "$frames/%d.jpg"
    touch "$frames/.complete"
fi
model="$work/drawings.wbmodel"
[ -f "$model" ] || { .venv/bin/python3 datasets/build_clipart.py >/dev/null; .build/release/workbench train datasets/drawings -o "$model" >/dev/null 2>&1; }

median() { sort -n | awk '{ values[NR] = $1 } END { print (NR % 2) ? values[(NR + 1) / 2] : (values[NR / 2] + values[NR / 2 + 1]) / 2 }'; }
timed() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'; }

label_times=(); feature_times=()
for run in $(seq "$runs"); do
    label_times+=("$(timed .build/release/workbench label "$model" "$video" --no-cache)")
    feature_times+=("$(timed .build/release/workbench features "$frames")")
done
label=$(printf '%s\n' "${label_times[@]}" | median)
features=$(printf '%s\n' "${feature_times[@]}" | median)
echo "10-minute 720p video ($content, x264 $preset), one frame a second: label $label s; features of the same 600 frames as JPEG: $features s"
awk -v a="$label" -v b="$features" 'BEGIN { printf "ratio label / features: %.2f (goal: at most 1.5)\n", a / b }'
