#!/usr/bin/env bash
# Throughput per core, the numbers docs/evidence/scaling.md multiplies out to a catalog and to a million images:
#   label     CPU seconds per film-minute at one frame a second, on a 5-minute 720p H.264 video (25 fps, x264
#             veryfast, moving picture with grain), one thread;
#   features  images per second per core, on the tiny dataset's PNGs and JPEGs of about 350 × 250 and on
#             1920 × 1080 JPEGs, one thread (features never reads the cache: every image goes through the network);
#   planning  what every task of a sharded features run spends before its first image: walking and weighing
#             100,000 files (empty .jpg files here, so no decoding follows);
#   merge     label merge of 2,000 films' results with 600 markers each (a change every 10 s of a 100-minute
#             film) and of 200 films with 6,000 (a marker every second).
# Reports CPU time (user + system) beside wall time: on a shared machine the wall time includes waiting for a core,
# the CPU time is what a dedicated core would take. Medians of RUNS runs.
#
# Usage: scripts/bench/bench-scaling.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
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
    .venv/bin/python3 scripts/fixtures/make-tiny-dataset.py Tests/ModelsTests/Fixtures "$small.partial" --per-label 100
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

count=$(find "$small" -name '*.png' -o -name '*.jpg' | wc -l)
read -r wall cpu < <(measure "$runs" "$binary" features "$small" --threads 1)
printf 'features  %d PNGs and JPEGs of about 350 x 250, 1 thread: %s s wall, %s s CPU = %.1f images/s per core\n' \
    "$count" "$wall" "$cpu" "$(awk -v n="$count" -v c="$cpu" 'BEGIN { print n / c }')"

count=$(find "$large" -name '*.jpg' | wc -l)
read -r wall cpu < <(measure "$runs" "$binary" features "$large" --threads 1)
printf 'features  %d JPEGs of 1920 x 1080, 1 thread: %s s wall, %s s CPU = %.1f images/s per core\n' \
    "$count" "$wall" "$cpu" "$(awk -v n="$count" -v c="$cpu" 'BEGIN { print n / c }')"

# Planning: 100,000 empty files; the shard (100 files, each refused as not an image) costs next to nothing.
many="$work/hundred-thousand"
if [ ! -d "$many" ]; then
    mkdir -p "$many.partial"
    for folder in $(seq -w 0 99); do
        mkdir -p "$many.partial/$folder"
        (cd "$many.partial/$folder" && touch $(seq -f '%04g.jpg' 0 999))
    done
    mv "$many.partial" "$many"
fi
read -r wall cpu < <(measure "$runs" "$binary" features "$many" --fill-cache --shard 0/1000 --threads 1)
printf 'planning  100000 files walked, weighed and split into 1000 shards: %s s wall, %s s CPU per task\n' "$wall" "$cpu"

# Merge: result folders written the way label --results writes them.
for shape in "2000 600" "200 6000"; do
    read -r films markers <<< "$shape"
    results="$work/results-$films-$markers"
    if [ ! -d "$results" ]; then
        .venv/bin/python3 - "$results.partial" "$films" "$markers" <<'PY'
import json, pathlib, sys
folder, films, markers = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
(folder / "movies").mkdir(parents=True)
step = 6000 // markers
movies = [{"id": str(n), "path": f"/films/{n}.mp4"} for n in range(1, films + 1)]
(folder / "manifest.json").write_text(json.dumps({"settings": "bench", "movies": movies}))
for movie in movies:
    marks = {str(second): ("Calm", "Scary", "Funny")[second // step % 3] for second in range(0, 6000, step)}
    (folder / "movies" / (movie["id"] + ".json")).write_text(
        json.dumps({"id": movie["id"], "path": movie["path"], "markers": marks, "frameCount": 6000}))
PY
        mv "$results.partial" "$results"
    fi
    for _ in $(seq "$runs"); do
        rm -f "$work/MovieData.json"
        /usr/bin/time -f "%e %U %S %M" "$binary" label merge "$results" --movie-data "$work/MovieData.json" 2>&1 >/dev/null \
            | tail -n 1 | awk '{ print $1, $2 + $3, $4 }'
    done | median | {
        read -r wall cpu kilobytes
        printf 'merge     %d films x %d markers: %s s wall, %s s CPU, %d MB peak, MovieData.json %d MB\n' "$films" "$markers" \
            "$wall" "$cpu" $((kilobytes / 1024)) $(($(stat -c %s "$work/MovieData.json") / 1048576))
    }
done
