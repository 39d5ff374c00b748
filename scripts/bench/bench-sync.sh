#!/usr/bin/env bash
# Time of `workbench sync` on two 60-second 1080p videos (30 fps, ffmpeg's testsrc2 pattern with grain, H.264),
# beside the encoder's own time: ffmpeg encoding a picture of the same size and length (3840 x 1080, the sync
# output's) from its own test pattern, with the same encoder settings (libx264, preset veryfast, CRF 20) and no
# filtering. The ratio says what decoding the two inputs, the trims, holds, scaling, bars, names and stacking add
# to the encoding every sync pays anyway. Medians of RUNS runs, alternating.
#
# Usage: scripts/bench/bench-sync.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
work=.build/bench/sync
mkdir -p "$work"
scripts/setup.sh
binary=${WORKBENCH_BINARY:-.build/release/workbench}   # WORKBENCH_BINARY: another build (the work is ffmpeg's)

for name in a b; do
    if [ ! -f "$work/$name.mp4" ]; then
        seed=$([ "$name" = a ] && echo 1 || echo 2)
        ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=60" \
            -vf "noise=alls=8:allf=t+u:all_seed=$seed,format=yuv420p" -c:v libx264 -preset veryfast -crf 23 "$work/$name.partial.mp4"
        mv "$work/$name.partial.mp4" "$work/$name.mp4"
    fi
done
# Four phases spanning most of each video, at different speeds.
cat > "$work/a.json" <<'JSON'
{"video": "a.mp4", "order": ["address", "backswing", "impact", "finish"], "phases": [
  {"label": "address", "start": 1, "end": 16}, {"label": "backswing", "start": 16, "end": 30},
  {"label": "impact", "start": 30, "end": 42}, {"label": "finish", "start": 42, "end": 59}]}
JSON
cat > "$work/b.json" <<'JSON'
{"video": "b.mp4", "order": ["address", "backswing", "impact", "finish"], "phases": [
  {"label": "address", "start": 3, "end": 12}, {"label": "backswing", "start": 12, "end": 33},
  {"label": "impact", "start": 33, "end": 40}, {"label": "finish", "start": 40, "end": 58}]}
JSON
# The output's length: per phase the longer of the two (both videos at 30 fps, phases on whole frames).
frames=$(.venv/bin/python3 -c '
import json, sys
a, b = (json.load(open(path))["phases"] for path in sys.argv[1:])
print(sum(max(round((x["end"] - x["start"]) * 30), round((y["end"] - y["start"]) * 30)) for x, y in zip(a, b)))' "$work/a.json" "$work/b.json")
duration=$(.venv/bin/python3 -c "print($frames / 30)")
echo "sync output: 3840x1080, $frames frames at 30 fps ($duration s)"

seconds() { local start end; start=$(date +%s.%N); "$@" > /dev/null; end=$(date +%s.%N); .venv/bin/python3 -c "print(f'{$end - $start:.2f}')"; }
sync_times=(); encoder_times=()
for run in $(seq 1 "$runs"); do
    sync_times+=("$(seconds "$binary" sync "$work/a.mp4" "$work/b.mp4" --phases "$work/a.json" "$work/b.json" -o "$work/side.mp4")")
    encoder_times+=("$(seconds ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=s=3840x1080:r=30:d=$duration" \
        -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$work/encoder.mp4")")
    echo "run $run: sync ${sync_times[-1]} s, encoder alone ${encoder_times[-1]} s"
done
.venv/bin/python3 - "${sync_times[*]}" "${encoder_times[*]}" <<'PY'
import statistics, sys
sync = statistics.median(map(float, sys.argv[1].split()))
encoder = statistics.median(map(float, sys.argv[2].split()))
print(f"median: sync {sync:.2f} s, encoder alone {encoder:.2f} s, ratio {sync / encoder:.2f}x")
PY
