#!/usr/bin/env bash
# Set up everything (packages, backbone, release build), then run the whole test suite: XCTest, the C code under
# the sanitizers, every fuzz harness briefly. The last line is the count: `tests: N passed, N failed`.
#
# Usage: scripts/test.sh [--quick]
#   --quick  the inner loop while developing: set-up without the release build (and without Python once the
#            weights are in place), then `swift test` without the end-to-end target WorkbenchCLITests (the only one
#            that runs the release binary), without the tests listed in scripts/test-needs-tools.txt (they start
#            ffmpeg, Python or Chromium) or in scripts/test-slow.txt (minutes each), and no sanitizer or fuzz
#            runs. Every other test runs, in-process ones added later included; scripts/check/quick-without-tools.sh
#            checks that it needs none of those programs.
set -euo pipefail
usage="usage: scripts/test.sh [--quick]   (--quick: no release build, no WorkbenchCLITests or tests needing ffmpeg, Python or Chromium, no sanitizers or fuzzing)"
quick=false
for argument in "$@"; do
    case "$argument" in
        --quick) quick=true ;;
        -h|--help) printf '%s\n' "$usage"; exit 0 ;;
        *) printf 'test: unknown option %s\n%s\n' "$argument" "$usage" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.."

skip=()
if "$quick"; then
    SETUP_SKIP_RELEASE_BUILD=1 scripts/setup.sh
    # XCTest names a test `Target.Class/method`; anchored, so a target like WorkbenchTests still runs.
    skip=(--skip '^WorkbenchCLITests\.')
    while read -r test _; do
        case "$test" in ''|'#'*) continue ;; esac
        skip+=(--skip "^${test//./\\.}\$")
    done < <(cat scripts/test-needs-tools.txt scripts/test-slow.txt)
else
    scripts/setup.sh
fi
# The suite is XCTest; the end-to-end tests run the release binary set-up just built.
mkdir -p .build
status=0
if ! "$quick"; then
    # The C sanitizer checks and the fuzz harnesses' builds run beside XCTest at the lowest priority: they take the
    # core time the suite leaves idle (waiting on ffmpeg, Chromium, Slurm, its own subprocesses), not the suite's.
    rm -f .build/sanitize.ended
    ( status=0; nice -n 19 scripts/check/sanitize-c.sh > .build/sanitize.log 2>&1 || status=$?
      date +%s > .build/sanitize.ended; exit "$status" ) &
    sanitize_pid=$!
    nice -n 19 scripts/check/fuzz.sh --build-only > .build/fuzz-build.log 2>&1 &
    fuzz_build_pid=$!
    started=$(date +%s)
fi
swift test --disable-swift-testing "${skip[@]}" 2>&1 | tee .build/test.log || status=$?
summary=$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" .build/test.log | tail -n 1 || true)
executed=$(printf '%s' "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
failed=$(printf '%s' "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')

# The C shims and kernels once under AddressSanitizer + UBSan, and every fuzz harness briefly (FUZZ_SECONDS
# each, 5 by default) so a regression in a parser shows up here; each counts as one test in the summary. The
# sanitizer checks and the harnesses' build started beside the suite (above); the fuzzing itself runs now, on cores
# the suite no longer needs. Their logs are shown when both end.
extra_passed=0
extra_failed=0
# The formatter's configuration holds for every Swift file (one test in the summary, in both tiers).
if scripts/check/format.sh > .build/format.log 2>&1; then extra_passed=$((extra_passed + 1)); else extra_failed=$((extra_failed + 1)); fi
cat .build/format.log
if ! "$quick"; then
    suite_ended=$(date +%s)
    # A failed background build is built again below (its error then in fuzz.log); its own log is shown too.
    fuzz_build_status=0
    wait "$fuzz_build_pid" || fuzz_build_status=$?
    if [ "$fuzz_build_status" -ne 0 ]; then
        echo "fuzz: the build beside the suite failed; its last lines (.build/fuzz-build.log):"
        tail -n 20 .build/fuzz-build.log
    fi
    fuzz_status=0
    scripts/check/fuzz.sh "${FUZZ_SECONDS:-5}" > .build/fuzz.log 2>&1 || fuzz_status=$?
    fuzz_seconds=$(( $(date +%s) - suite_ended ))
    sanitize_status=0
    wait "$sanitize_pid" || sanitize_status=$?
    cat .build/sanitize.log
    if [ "$sanitize_status" -eq 0 ]; then extra_passed=$((extra_passed + 1)); else extra_failed=$((extra_failed + 1)); fi
    sanitize_ended=$(cat .build/sanitize.ended 2>/dev/null || date +%s)
    after=$(( sanitize_ended - suite_ended ))
    if [ "$after" -lt 0 ]; then when="$(( -after )) s before XCTest's end"; else when="$after s after XCTest's end"; fi
    echo "c-sanitizers: $(( sanitize_ended - started )) s from the suite's start, ending $when"
    cat .build/fuzz.log
    echo "fuzz: $fuzz_seconds s after XCTest"
    harnesses=$(grep -cE '^fuzz: [a-z_]+ +[0-9?]+ +[0-9?]+ ' .build/fuzz.log || true)
    findings=$(sed -nE 's/^fuzz: findings in //p' .build/fuzz.log | wc -w)
    extra_passed=$((extra_passed + harnesses - findings))
    extra_failed=$((extra_failed + findings))
    # A failed build prints no harness line: one failure for it.
    if [ "$fuzz_status" -ne 0 ] && [ "$findings" -eq 0 ]; then extra_failed=$((extra_failed + 1)); fi
fi
[ "$extra_failed" -eq 0 ] || status=1

if [ -n "$summary" ]; then
    echo "tests: $((executed - failed + extra_passed)) passed, $((failed + extra_failed)) failed"
fi
exit "$status"
