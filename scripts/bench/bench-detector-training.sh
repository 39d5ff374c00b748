#!/usr/bin/env bash
# How long `workbench train` takes on an object-detection dataset (issue 27: 300 pictures at the default settings
# should train in under 5 minutes on 2 cores, frozen backbone), and what a 384-pixel input costs beside the
# default 320: the same 300 synthetic pictures (make-detector-bench.py), each side with a cold feature cache (maps
# computed), then 320 again with the cache warm (training alone; the head, then its refit on every picture). Prints the phases' seconds from the report and
# the 384 / 320 ratios measured in this run. The machine is shared: the load average is printed before and after.
#
# Usage: scripts/bench/bench-detector-training.sh [COUNT]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-300}
python=.venv/bin/python3  # set-up's venv
scripts/setup.sh >/dev/null
work=.build/bench-detector-training
rm -rf "$work"
mkdir -p "$work"
"$python" scripts/bench/make-detector-bench.py "$work/shapes" "$count" >/dev/null
echo "$(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # side, cache folder, label
    local start end
    start=$(date +%s.%N)
    WORKBENCH_CACHE="$2" .build/release/workbench train "$work/shapes" --input-side "$1" -o "$work/model-$1.wbmodel" \
        --json > "$work/report-$3.json" 2>/dev/null
    end=$(date +%s.%N)
    "$python" - "$work/report-$3.json" "$3" "$start" "$end" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
held = report["heldOut"]
timings = report["timings"]
refit = f", refit {timings['refit']:6.1f} s" if timings.get("refit") is not None else ""
print(f"{sys.argv[2]:>10}: wall {wall:6.1f} s, maps {timings['maps']:6.1f} s, head {timings['training']:6.1f} s{refit}, "
      f"held-out mAP@0.5 {held['meanAveragePrecision50']:.3f}, mAP@0.5:0.95 {held['meanAveragePrecision']:.3f}")
PY
}
run 320 "$work/cache-320" 320-cold
run 384 "$work/cache-384" 384-cold
run 320 "$work/cache-320" 320-warm
"$python" - "$work" <<'PY'
import json, sys
def load(name): return json.load(open(f"{sys.argv[1]}/report-{name}.json"))["timings"]
small, large = load("320-cold"), load("384-cold")
print(f"384 / 320: maps x{large['maps'] / small['maps']:.2f}, head x{large['training'] / small['training']:.2f}")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
