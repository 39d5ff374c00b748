#!/usr/bin/env bash
# Does `workbench phases` cost more than `workbench label --every` at the same sampling? Both classify the same
# frames (phases reuses label's frame sources and batches); phases adds only the dynamic programming, which is
# O(frames x phases). Issue 25's "Done when": a 60-second 1080p video, phases against label at the same --every,
# printed as a ratio (goal: at most 1.05, the noise of a shared machine).
#
# The video is ffmpeg's testsrc2 pattern, 1920 x 1080 at 25 fps, H.264 (x264 veryfast), 60 s. The model is the tiny
# cat/espresso one (scripts/fixtures/make-tiny-dataset.py); the order is cat,espresso: the frames' classes do not
# matter to the cost. Sampling: phases' default for 25 fps (every frame, 0.04 s) unless EVERY is set. Medians of
# RUNS runs, alternating the two commands.
#
# Usage: [EVERY=0.04] scripts/bench/bench-phases.sh [RUNS]   (default 3; about 2 minutes a run on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
every=${EVERY:-0.04}
work=.build/bench
mkdir -p "$work"
scripts/setup.sh
workbench=.build/release/workbench

video="$work/sixty-seconds-1080p.mp4"
if [ ! -f "$video" ]; then
    ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=60" \
        -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p "$video.partial.mp4"
    mv "$video.partial.mp4" "$video"
fi
model="$work/tiny-phases.wbmodel"
if [ ! -f "$model" ]; then
    rm -rf "$work/tiny-phases"
    .venv/bin/python3 scripts/fixtures/make-tiny-dataset.py Tests/ModelsTests/Fixtures "$work/tiny-phases" >/dev/null
    "$workbench" train "$work/tiny-phases" -o "$model" --no-html --no-cache >/dev/null
fi

median() { sort -n | awk '{ values[NR] = $1 } END { print (NR % 2) ? values[(NR + 1) / 2] : (values[NR / 2] + values[NR / 2 + 1]) / 2 }'; }
timed() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'; }

phases_times=(); label_times=()
for run in $(seq "$runs"); do
    phases_times+=("$(timed "$workbench" phases "$video" --model "$model" --order cat,espresso --every "$every")")
    label_times+=("$(timed "$workbench" label "$model" "$video" --every "$every" --no-cache)")
done
phases=$(printf '%s\n' "${phases_times[@]}" | median)
label=$(printf '%s\n' "${label_times[@]}" | median)
frames=$(awk -v e="$every" 'BEGIN { printf "%d", 60 / e + 0.5 }')
echo "60-second 1080p video, one frame every $every s ($frames frames): phases $phases s, label --every $every $label s (medians of $runs)"
awk -v a="$phases" -v b="$label" 'BEGIN { printf "ratio phases / label: %.3f (goal: at most 1.05)\n", a / b }'
