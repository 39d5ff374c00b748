#!/usr/bin/env bash
# The quick tier as a machine without ffmpeg, ffprobe, Python or Chromium would run it: in a private mount
# namespace each of those programs is covered by an empty file (a bind mount of /dev/null), so nothing the tier
# starts can find or run them; nothing outside the namespace changes. Needs root (unshare -m) and a set-up done
# once (the weights in models/). Prints the tier's own last line; exits with its status.
#
# Usage: scripts/check/quick-without-tools.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" -eq 0 ] || { echo "quick-without-tools: needs root (a private mount namespace)" >&2; exit 2; }
exec unshare --mount --propagation private bash -c '
    set -euo pipefail
    # Every copy on the PATH (pyenv shims included), and the interpreters they lead to.
    for name in ffmpeg ffprobe chromium python3 python; do
        IFS=: read -r -a folders <<< "$PATH:/usr/bin:/usr/local/bin"
        for folder in "${folders[@]}"; do
            if [ -e "$folder/$name" ]; then
                target=$(readlink -f "$folder/$name")
                mount --bind /dev/null "$target"
            fi
        done
    done
    for name in ffmpeg chromium python3; do
        if command -v "$name" >/dev/null && "$name" --version >/dev/null 2>&1; then
            echo "quick-without-tools: $name still runs" >&2; exit 2
        fi
    done
    start=$(date +%s)
    status=0
    scripts/test.sh --quick || status=$?
    echo "quick-without-tools: $(( $(date +%s) - start )) s with ffmpeg, ffprobe, python3 and chromium hidden"
    exit "$status"
'
