#!/usr/bin/env bash
# Builds the release binary .build/release/workbench, incrementally (only checks when it is up to date), for
# scripts/setup.sh and scripts/install.sh. The log goes to .build/release-build.log; a failure prints its last 40
# lines on stderr and exits 1.
#
# A successful build also stamps .build/release-build-stamp with the time it started, which install.sh compares the
# sources against when it cannot build (no swift on the PATH). The binary's own time would not do: swift build
# leaves the binary as it is when a change compiles to the same program (a change undone, a comment), so a source
# can be newer than an up-to-date binary. A source changed while the build ran stays newer than the stamp.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .build
touch .build/release-build-stamp.next
if ! swift build -c release --product workbench > .build/release-build.log 2>&1; then
    tail -n 40 .build/release-build.log >&2
    exit 1
fi
mv -f .build/release-build-stamp.next .build/release-build-stamp
