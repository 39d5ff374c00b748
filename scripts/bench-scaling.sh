#!/usr/bin/env bash
# Throughput per core, the numbers docs/scaling.md multiplies out to a catalog and to a million images:
#   label     CPU seconds per film-minute at one frame a second, on a 5-minute 720p H.264 video (25 fps, x264
#             veryfast, moving picture with grain), one thread;
#   features  images per second per core, on 400 × 300 PNGs (the tiny dataset's) and on 1920 × 1080 JPEGs, one
#             thread, with the feature cache off (every image through the network).
# Reports CPU time (user + system) beside wall time: on a shared machine the wall time includes waiting for a core,
# the CPU time is what a dedicated core would take. Medians of RUNS runs.
#
# Usage: scripts/bench-scaling.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=.build/bench-scaling
binary=.build/release/workbench
[ -x "$binary" ] || scripts/setup.sh
mkdir -p "$work"

video="$work/five-minutes-720p.mp4"
if [ ! -f "$video" ]; then
    ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1280x720:rate=25:duration=300" \
        -vf "noise=alls=8:allf=t,format=yuv420p" -c:v libx264 -preset veryfast -crf 23 "$video.partial.mp4"
    mv "$video.partial.mp4" "$video"
fi
small="$work/small-png"
if [ ! -d "$small" ]; then
    .venv/bin/python3 scripts/make_tiny_dataset.py Tests/ModelsTests/Fixtures "$small.partial" --per-label 100
    mv "$small.partial" "$small"
fi
large="$work/jpeg-1080p"
if [ ! -d "$large" ]; then
    mkdir -p "$large.partial"
    # 100 different frames of a moving test picture with grain, as camera JPEGs of about 0.5-1 MB.
    ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=1:duration=100" \
        -vf "noise=alls=12:allf=t" -q:v 2 "$large.partial/%03d.jpg"
    mv "$large.partial" "$large"
fi

# Median of the runs' "wall cpu" pairs, by CPU time.
median() { sort -n -k2 | awk '{ line[NR] = $0 } END { print line[int((NR + 1) / 2)] }'; }
measure() {  # measure RUNS COMMAND... → "wall cpu" of the median run
    local runs=$1; shift
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -n 1 | awk '{ print $1, $2 + $3 }'
    done | median
}

model="$work/Bench.wbmodel"
[ -f "$model" ] || WORKBENCH_CACHE="$work/cache" "$binary" train "$small" -o "$model" >/dev/null 2>&1
read -r wall cpu < <(measure "$runs" "$binary" label "$model" "$video" --threads 1 --no-cache)
printf 'label     5 film-minutes at 1 frame/s, 1 thread: %s s wall, %s s CPU = %.2f CPU s per film-minute\n' \
    "$wall" "$cpu" "$(awk -v c="$cpu" 'BEGIN { print c / 5 }')"

count=$(find "$small" -name '*.png' | wc -l)
read -r wall cpu < <(measure "$runs" "$binary" features "$small" --threads 1)
printf 'features  %d PNGs of 400 x 300, 1 thread: %s s wall, %s s CPU = %.1f images/s per core\n' \
    "$count" "$wall" "$cpu" "$(awk -v n="$count" -v c="$cpu" 'BEGIN { print n / c }')"

count=$(find "$large" -name '*.jpg' | wc -l)
read -r wall cpu < <(measure "$runs" "$binary" features "$large" --threads 1)
printf 'features  %d JPEGs of 1920 x 1080, 1 thread: %s s wall, %s s CPU = %.1f images/s per core\n' \
    "$count" "$wall" "$cpu" "$(awk -v n="$count" -v c="$cpu" 'BEGIN { print n / c }')"
