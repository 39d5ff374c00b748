#!/usr/bin/env bash
# Concurrent writers on one MovieData.json (issue 13): ROUNDS rounds of WRITERS `workbench label --movie-data` runs
# started at once on one file, each adding its own movie (on a two-frame folder, so each run is short and the runs
# overlap). Passes when every movie of every round is in the file at the end and every run exited 0.
#
# Usage: scripts/check/stress-movie-data.sh [ROUNDS] [WRITERS]   (defaults 50 and 8: the issue's done-when)
#        WORKBENCH_BINARY=path scripts/check/stress-movie-data.sh
#            to try another binary (e.g. an old one, to see it fail)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-50}
writers=${2:-8}
binary=${WORKBENCH_BINARY:-.build/release/workbench}
[ -x "$binary" ] || { echo "stress-movie-data: $binary not found; run scripts/setup.sh" >&2; exit 2; }
python=.venv/bin/python3
[ -x "$python" ] || { echo "stress-movie-data: $python not found; run scripts/setup.sh" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/stress-movie-data.XXXXXX")
trap 'rm -rf "$work"' EXIT
fixtures=Tests/ModelsTests/Fixtures
"$python" scripts/fixtures/make-tiny-dataset.py "$fixtures" "$work/tiny" >/dev/null
"$binary" train "$work/tiny" -o "$work/tiny.wbmodel" --no-cache >/dev/null 2>&1
mkdir "$work/frames"
cp "$fixtures/chelsea.jpg" "$work/frames/1.jpg"
cp "$fixtures/coffee.jpg" "$work/frames/2.jpg"
movie_data="$work/MovieData.json"
echo "[]" > "$movie_data"

failed_runs=0
started=$SECONDS
for round in $(seq 1 "$rounds"); do
    pids=()
    for writer in $(seq 1 "$writers"); do
        "$binary" label "$work/tiny.wbmodel" "$work/frames" --threads 1 --movie-data "$movie_data" \
            --id "round${round}-writer${writer}" >/dev/null 2>"$work/err-$round-$writer" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || failed_runs=$((failed_runs + 1)); done
done
seconds=$((SECONDS - started))

expected=$((rounds * writers))
# Counted by Python's own JSON parser, independently of Workbench's.
read -r kept distinct < <("$python" -c '
import json, sys
movies = json.load(open(sys.argv[1]))
ids = [movie["id"] for movie in movies]
print(len(ids), len(set(ids)))' "$movie_data")
printf 'stress-movie-data: %d rounds x %d concurrent writers in %d s: %d of %d movies kept (%d distinct), %d failed runs\n' \
    "$rounds" "$writers" "$seconds" "$kept" "$expected" "$distinct" "$failed_runs"
if [ "$failed_runs" -ne 0 ]; then cat "$work"/err-* | sort | uniq -c | head -5 >&2; fi
[ "$kept" -eq "$expected" ] && [ "$distinct" -eq "$expected" ] && [ "$failed_runs" -eq 0 ]
