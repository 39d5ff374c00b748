#!/usr/bin/env bash
# The training report at the size issue 14 sets its limits for: 1,000 testing images (variants of the sample
# dataset's pictures, scripts/make_report_bench.py). Prints the page's size, the seconds `train` spends making it
# (a run with the page minus one without, features cached), and headless Chromium's load and render times over
# three fresh browser starts (scripts/check_page.py). Limits: under 10 MB, rendered in under 3 s.
#
#     scripts/bench-report.sh            # the page and its screenshot stay in /tmp/workbench-bench-report/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
python=.venv/bin/python3
workbench=.build/release/workbench
"$python" datasets/build_clipart.py > /dev/null
out=/tmp/workbench-bench-report
rm -rf "$out"
mkdir -p "$out"
"$python" scripts/make_report_bench.py datasets/drawings "$out/testing-1000" --count 1000 > /dev/null
export WORKBENCH_CACHE="$out/cache"
export SOURCE_DATE_EPOCH=1700000000
train=("$workbench" train datasets/drawings --test "$out/testing-1000" -o "$out/Bench.wbmodel")

seconds() { date +%s.%N; }
"${train[@]}" --no-html > /dev/null 2>&1   # fills the feature cache
start=$(seconds); "${train[@]}" --no-html > /dev/null 2>&1; without=$(echo "$(seconds) - $start" | bc)
start=$(seconds); "${train[@]}" --html "$out/Bench.html" > "$out/train.txt" 2>&1; with=$(echo "$(seconds) - $start" | bc)

bytes=$(stat -c %s "$out/Bench.html")
for run in 1 2 3; do
    shot=()
    [ "$run" -eq 1 ] && shot=(--screenshot "$out/Bench.png")
    "$python" scripts/check_page.py "$out/Bench.html" "$out/check-$run.json" "${shot[@]}"
done
"$python" - "$out" "$bytes" "$without" "$with" <<'PYTHON'
import json, statistics, sys
out, size, without, with_page = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
checks = [json.load(open("%s/check-%d.json" % (out, run))) for run in (1, 2, 3)]
cards = open(out + "/Bench.html", encoding="utf-8").read().count('class="card"')
loads = [check["load_ms"] for check in checks]
renders = [check["render_ms"] for check in checks]
print("page              %s/Bench.html (%d picture cards)" % (out, cards))
print("size              %.2f MB (limit 10 MB)" % (size / 1e6))
print("making the page   %.2f s (train %.2f s with it, %.2f s without)" % (with_page - without, with_page, without))
print("load event        %s ms; median %.0f ms" % (", ".join("%.0f" % value for value in loads), statistics.median(loads)))
print("first frame after %s ms; median %.0f ms (limit 3000 ms)" % (", ".join("%.0f" % value for value in renders), statistics.median(renders)))
print("console errors    %d" % sum(len(check["console_errors"]) for check in checks))
print("screenshot        %s/Bench.png, %d distinct colours" % (out, checks[0]["distinct_colors"]))
PYTHON
