#!/usr/bin/env bash
# Runs the C code (the PNG/JPEG/WebP/HEIF/TIFF/GIF shims, the CKernels and the CTrainingKernels) under
# AddressSanitizer and UBSan once: Tests/Sanitizers/c_sanitizer_tests.c decodes the ImageCodecs fixtures through the
# shims (c_format_shim_tests.c those of formats-manifest.json) and checks every kernel path this CPU supports against
# naive loops (c_training_kernel_tests.c the training kernels'). Builds into
# .build-fuzz/ (rebuilt only when a source changed).
# Exits non-zero on a wrong result or any sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/../.."
toolchain=/opt/swift/usr/bin
[ -x "$toolchain/clang" ] || toolchain=$(dirname "$(command -v swiftc)")
build=.build-fuzz/sanitizers
mkdir -p "$build"

sources=(Tests/Sanitizers/c_sanitizer_tests.c Tests/Sanitizers/c_training_kernel_tests.c Tests/Sanitizers/c_format_shim_tests.c
         Sources/CPNGShim/png_shim.c Sources/CPNGShim/png_encode.c Sources/CJPEGShim/jpeg_shim.c Sources/CJPEGShim/jpeg_encode.c
         Sources/CWebPShim/webp_shim.c Sources/CHEIFShim/heif_shim.c Sources/CTIFFShim/tiff_shim.c Sources/CGIFShim/gif_shim.c
         Sources/CKernels/*.c Sources/CTrainingKernels/*.c)
binary="$build/c_sanitizer_tests"
read -r -a png_cflags <<< "$(pkg-config --cflags libpng)"
command=("$toolchain/clang" -g -O2 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
    -ISources/CPNGShim/include -ISources/CJPEGShim/include -ISources/CKernels/include -ISources/CTrainingKernels/include
    -ISources/CWebPShim/include -ISources/CHEIFShim/include -ISources/CTIFFShim/include -ISources/CGIFShim/include
    "${png_cflags[@]}"
    "${sources[@]}" -lpng16 -ljpeg -lwebpdemux -lwebp -lheif -ltiff -lgif -lm -o "$binary")
stamp=$( { printf '%s\n' "${command[*]}"; cat "${sources[@]}" Sources/*/include/*.h Sources/*/*.h; } | sha256sum | cut -d' ' -f1)
if [ ! -x "$binary" ] || [ "$(cat "$binary.stamp" 2>/dev/null)" != "$stamp" ]; then
    if ! "${command[@]}" > "$build/build.log" 2>&1; then
        cat "$build/build.log" >&2
        echo "c-sanitizers: build failed" >&2
        exit 1
    fi
    echo "$stamp" > "$binary.stamp"
fi

# The decoder cases come from the ImageCodecs fixture manifest: "file expected width height tolerance scale".
# Sizes are those the shim produces (EXIF orientation is applied in Swift, so those cases check the size only).
# Pillow comes from the project's .venv (Debian's own python3 has none for a normal user).
fixtures=Tests/ImageCodecsTests/Fixtures
[ -x .venv/bin/python3 ] || scripts/setup.sh
.venv/bin/python3 - "$fixtures" > "$build/cases.txt" <<'PYTHON'
import json, os, sys
from PIL import Image
folder = sys.argv[1]
for case in json.load(open(os.path.join(folder, "manifest.json")))["cases"]:
    path = os.path.join(folder, case["file"])
    if not os.path.exists(path):
        continue
    if "error" in case:
        print(case["file"], "-", 0, 0, 0, 8)
        continue
    stored_width, stored_height = Image.open(path).size
    scale = next(n for n in range(1, 9)
                 if {(stored_width * n + 7) // 8, (stored_height * n + 7) // 8} == {case["width"], case["height"]})
    width, height = (stored_width * scale + 7) // 8, (stored_height * scale + 7) // 8
    rotated = "EXIF orientation" in case.get("note", "")
    expected = case["expected"] if case.get("expected") and not rotated else "="
    print(case["file"], expected, width, height, case["tolerance"], scale)
PYTHON
# The other formats' cases: the stored size (orientation is Swift's to apply), BMP left out (no shim).
.venv/bin/python3 - "$fixtures" > "$build/format-cases.txt" <<'PYTHON'
import json, os, sys
folder = sys.argv[1]
for case in json.load(open(os.path.join(folder, "formats-manifest.json")))["cases"]:
    if case["file"].endswith(".bmp") or not os.path.exists(os.path.join(folder, case["file"])):
        continue
    if "error" in case:
        print(case["file"], "-", 0, 0, 0)
        continue
    turned = "orientation" in case["note"].lower() and not case["file"].endswith(".heic")
    width, height = case["width"], case["height"]
    if turned and any(f"{n}" in case["note"] for n in (5, 6, 7, 8)):
        width, height = height, width
    print(case["file"], "=" if turned else case["expected"], width, height, case["tolerance"])
PYTHON
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$binary" "$build/cases.txt" "$fixtures" "$build/format-cases.txt"
