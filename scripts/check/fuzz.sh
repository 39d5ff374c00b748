#!/usr/bin/env bash
# Builds the libFuzzer harnesses in Tests/Fuzz and runs each for SECONDS (default 30).
#
#   scripts/check/fuzz.sh [SECONDS] [HARNESS ...]   e.g. scripts/check/fuzz.sh 600, scripts/check/fuzz.sh 60 movie_data
#   scripts/check/fuzz.sh --build-only [HARNESS ...]   builds and stops (scripts/test.sh builds beside the suite)
#
# Harnesses: png_shim, jpeg_shim, webp_shim, heif_shim, tiff_shim, gif_shim (C, clang
# -fsanitize=fuzzer,address,undefined), image_loader, model_file, movie_data, frame_number, result_folder,
# detection_annotations (Swift, swiftc -sanitize=fuzzer,address; swiftc has no -sanitize=undefined on Linux,
# and Swift's own overflow and bounds checks trap, which libFuzzer reports as a crash). Everything builds into
# .build-fuzz/ and is rebuilt only when a source or a flag changed. Each run reads the seeds in
# Tests/Fuzz/corpus/<harness>/ and grows a working corpus in .build-fuzz/corpus/<harness>/, so later runs start
# where earlier ones stopped.
#
# Prints, per harness, executions per second and libFuzzer's final coverage (cov: edges, ft: features). Exits
# non-zero on any finding (crash, sanitizer report, leak, timeout over 10 s, more than 2 GB of memory); the input
# that caused it is kept in .build-fuzz/findings/<harness>/ and its path is printed with the command to replay it.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

build_only=false
if [ "${1:-}" = "--build-only" ]; then build_only=true; shift; set -- 1 "$@"; fi
seconds=${1:-30}
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: SECONDS must be a positive whole number, got '$seconds'" >&2; exit 2; }
shift || true
all_harnesses=(png_shim jpeg_shim webp_shim heif_shim tiff_shim gif_shim image_loader model_file movie_data frame_number
               result_folder detection_annotations)
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all_harnesses[@]}")
for harness in "${harnesses[@]}"; do
    [[ " ${all_harnesses[*]} " == *" $harness "* ]] || { echo "fuzz: no harness '$harness' (${all_harnesses[*]})" >&2; exit 2; }
done

toolchain=/opt/swift/usr/bin
[ -x "$toolchain/clang" ] || toolchain=$(dirname "$(command -v swiftc)")
clang="$toolchain/clang"
swiftc="$toolchain/swiftc"
build="$root/.build-fuzz"
mkdir -p "$build/objects" "$build/modules" "$build/bin"

# ---- Build, each step skipped when its stamp (a hash of the command and of its inputs' contents) is unchanged.
# step OUTPUT "INPUT FILES" COMMAND...
step() {
    local output=$1 inputs=$2
    shift 2
    local stamp
    # shellcheck disable=SC2086  # the inputs are a space-separated list of paths without spaces
    stamp=$( { printf '%s\n' "$*"; cat $inputs; } | sha256sum | cut -d' ' -f1)
    if [ -e "$output" ] && [ "$(cat "$output.stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
    rm -f "$output.stamp"
    if ! "$@" > "$output.log" 2>&1; then
        cat "$output.log" >&2
        echo "fuzz: build failed: $output" >&2
        exit 1
    fi
    echo "$stamp" > "$output.stamp"
}

c_flags=(-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all)
read -r -a png_cflags <<< "$(pkg-config --cflags libpng)"
read -r -a blas_cflags <<< "$(pkg-config --cflags openblas)"
read -r -a blas_libs <<< "$(pkg-config --libs openblas)"

build_started=$(date +%s)
step "$build/objects/png_shim.o" "Sources/CPNGShim/png_shim.c Sources/CPNGShim/png_shim_errors.h Sources/CPNGShim/include/png_shim.h" \
    "$clang" "${c_flags[@]}" -ISources/CPNGShim/include "${png_cflags[@]}" -c Sources/CPNGShim/png_shim.c -o "$build/objects/png_shim.o"
step "$build/objects/jpeg_shim.o" "Sources/CJPEGShim/jpeg_shim.c Sources/CJPEGShim/include/jpeg_shim.h" \
    "$clang" "${c_flags[@]}" -ISources/CJPEGShim/include -c Sources/CJPEGShim/jpeg_shim.c -o "$build/objects/jpeg_shim.o"
# The encoders (report thumbnails) are in the same shims; ImageCodecs calls them, so Swift harnesses link them.
step "$build/objects/png_encode.o" "Sources/CPNGShim/png_encode.c Sources/CPNGShim/png_shim_errors.h Sources/CPNGShim/include/png_shim.h" \
    "$clang" "${c_flags[@]}" -ISources/CPNGShim/include "${png_cflags[@]}" -c Sources/CPNGShim/png_encode.c -o "$build/objects/png_encode.o"
step "$build/objects/jpeg_encode.o" "Sources/CJPEGShim/jpeg_encode.c Sources/CJPEGShim/include/jpeg_shim.h" \
    "$clang" "${c_flags[@]}" -ISources/CJPEGShim/include -c Sources/CJPEGShim/jpeg_encode.c -o "$build/objects/jpeg_encode.o"
# The shims of the other formats (each library's headers are on the default include path).
for format in webp heif tiff gif; do
    shim=$(ls -d Sources/C*Shim | grep -i "/C${format}Shim$")
    step "$build/objects/${format}_shim.o" "$shim/${format}_shim.c $shim/include/${format}_shim.h" \
        "$clang" "${c_flags[@]}" -I"$shim/include" -c "$shim/${format}_shim.c" -o "$build/objects/${format}_shim.o"
done
format_libraries=(-lwebpdemux -lwebp -lheif -ltiff -lgif)

needs() { [[ " ${harnesses[*]} " == *" $1 "* ]]; }
link_flags=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
if needs png_shim; then
    step "$build/bin/png_shim" "Tests/Fuzz/png_shim_fuzz.c $build/objects/png_shim.o" \
        "$clang" "${c_flags[@]}" "${link_flags[@]}" -ISources/CPNGShim/include Tests/Fuzz/png_shim_fuzz.c \
        "$build/objects/png_shim.o" -lpng16 -o "$build/bin/png_shim"
fi
if needs jpeg_shim; then
    step "$build/bin/jpeg_shim" "Tests/Fuzz/jpeg_shim_fuzz.c $build/objects/jpeg_shim.o" \
        "$clang" "${c_flags[@]}" "${link_flags[@]}" -ISources/CJPEGShim/include Tests/Fuzz/jpeg_shim_fuzz.c \
        "$build/objects/jpeg_shim.o" -ljpeg -o "$build/bin/jpeg_shim"
fi
for format in webp heif tiff gif; do
    if needs "${format}_shim"; then
        shim=$(ls -d Sources/C*Shim | grep -i "/C${format}Shim$")
        step "$build/bin/${format}_shim" "Tests/Fuzz/${format}_shim_fuzz.c $build/objects/${format}_shim.o" \
            "$clang" "${c_flags[@]}" "${link_flags[@]}" -I"$shim/include" "Tests/Fuzz/${format}_shim_fuzz.c" \
            "$build/objects/${format}_shim.o" "${format_libraries[@]}" -o "$build/bin/${format}_shim"
    fi
done

# Swift: each library module the harnesses need is compiled straight from its sources (whole module, optimised,
# with coverage and AddressSanitizer), in dependency order; the harness is linked against their objects.
# The shims' module maps are written here, as SwiftPM would generate them.
for shim in CPNGShim CJPEGShim CWebPShim CHEIFShim CTIFFShim CGIFShim; do
    mkdir -p "$build/include/$shim"
    header=$(ls "$root/Sources/$shim/include/"*.h)
    printf 'module %s {\n    header "%s"\n    export *\n}\n' "$shim" "$header" > "$build/include/$shim/module.modulemap"
done
swift_flags=(-parse-as-library -O -gline-tables-only -sanitize=fuzzer,address -enable-testing
    -I "$build/modules" -I Sources/CBLAS -I Sources/CPNG -I "$build/include/CPNGShim" -I "$build/include/CJPEGShim"
    -I "$build/include/CWebPShim" -I "$build/include/CHEIFShim" -I "$build/include/CTIFFShim" -I "$build/include/CGIFShim"
    -Xcc "${blas_cflags[0]}" -Xcc "${png_cflags[0]}" -Xcc -ISources/CPNGShim/include -Xcc -ISources/CJPEGShim/include
    -Xcc -ISources/CWebPShim/include -Xcc -ISources/CHEIFShim/include -Xcc -ISources/CTIFFShim/include
    -Xcc -ISources/CGIFShim/include)
# swift-crypto (Datasets' content hashes, ModelFiles' checksum) is not compiled here: its module and objects come
# from set-up's release build (uninstrumented, so libFuzzer's coverage stays on our own code).
release="${SPM_RELEASE:-$root/.build/release}"
crypto_checkout="$root/.build/checkouts/swift-crypto/Sources"
crypto_flags=(-I "$release/Modules" -Xcc -fmodule-map-file="$crypto_checkout/CCryptoBoringSSL/include/module.modulemap"
    -Xcc -fmodule-map-file="$crypto_checkout/CCryptoBoringSSLShims/include/module.modulemap"
    -Xcc -fmodule-map-file="$crypto_checkout/CXKCP/include/module.modulemap"
    -Xcc -fmodule-map-file="$crypto_checkout/CXKCPShims/include/module.modulemap"
    -Xcc -fmodule-map-file="$release/CryptoBoringWrapper.build/include/module.modulemap"
    -Xcc -fmodule-map-file="$release/Crypto.build/include/module.modulemap")
crypto_objects() {
    [ -f "$release/Modules/Crypto.swiftmodule" ] || { echo "fuzz: $release has no swift-crypto build: run scripts/setup.sh" >&2; exit 1; }
    find "$release/Crypto.build" "$release/CryptoBoringWrapper.build" "$release/CCryptoBoringSSL.build" \
        "$release/CCryptoBoringSSLShims.build" "$release/CXKCP.build" "$release/CXKCPShims.build" -name '*.o' | sort
}
swift_flags+=("${crypto_flags[@]}")
# module NAME [DEPENDENCY...]: compiles Sources/NAME/*.swift (only the files in $SOURCES when it is set) into
# .build-fuzz/objects/NAME.o and .build-fuzz/modules/NAME.swiftmodule.
module() {
    local name=$1 sources
    shift
    sources=$(echo ${SOURCES:-$(ls Sources/"$name"/*.swift)} | tr '\n' ' ')
    # A module's stamp includes its dependencies' objects, so a change below rebuilds everything above it.
    local dependencies=""
    for dependency in "$@"; do dependencies+=" $build/objects/$dependency.o"; done
    # shellcheck disable=SC2086
    step "$build/objects/$name.o" "$sources$dependencies" \
        "$swiftc" "${swift_flags[@]}" -module-name "$name" -wmo -emit-module \
        -emit-module-path "$build/modules/$name.swiftmodule" -c $sources -o "$build/objects/$name.o"
}
# harness NAME SOURCE MODULE...: links a Swift harness with the named modules' objects and the C libraries.
harness() {
    local name=$1 source=$2
    shift 2
    local objects=()
    for dependency in "$@"; do
        if [ "$dependency" = Crypto ]; then mapfile -t -O "${#objects[@]}" objects < <(crypto_objects)
        else objects+=("$build/objects/$dependency.o"); fi
    done
    step "$build/bin/$name" "$source ${objects[*]}" \
        "$swiftc" "${swift_flags[@]}" -use-ld=lld "$source" "${objects[@]}" "$build/objects/png_shim.o" \
        "$build/objects/jpeg_shim.o" "$build/objects/png_encode.o" "$build/objects/jpeg_encode.o" \
        "$build/objects/webp_shim.o" "$build/objects/heif_shim.o" "$build/objects/tiff_shim.o" "$build/objects/gif_shim.o" \
        "${blas_libs[@]}" -lpng16 -ljpeg "${format_libraries[@]}" -o "$build/bin/$name"
}
# ModelFiles stores ImageCodecs' preprocessing value, so the model-file harness needs ImageCodecs too; the frame
# namer is Video's, which walks folders with Datasets; MovieData is Labeling's, above Video.
if needs image_loader || needs model_file || needs movie_data || needs frame_number || needs result_folder || needs detection_annotations; then
    module FileFormats
    module ImageCodecs FileFormats
fi
if needs image_loader; then
    harness image_loader Tests/Fuzz/ImageLoaderFuzz.swift FileFormats ImageCodecs
fi
if needs model_file; then
    module ModelFiles FileFormats ImageCodecs
    harness model_file Tests/Fuzz/ModelFileFuzz.swift FileFormats ImageCodecs ModelFiles Crypto
fi
if needs movie_data || needs frame_number || needs result_folder; then
    module TensorCore
    module Datasets FileFormats
    module ExternalProcesses FileFormats
    module Phases FileFormats
    module Video FileFormats ImageCodecs Datasets ExternalProcesses Phases
    # Labeling without its per-movie loop (MovieLabeling.swift runs a classifier: Inference and the network below
    # it); the harnesses fuzz the files it reads and names, which need none of that.
    SOURCES="$(ls Sources/Labeling/*.swift | grep -v '/MovieLabeling\.swift$')" module Labeling FileFormats TensorCore Video
    needs movie_data && harness movie_data Tests/Fuzz/MovieDataFuzz.swift FileFormats TensorCore ImageCodecs Datasets ExternalProcesses Phases Video Labeling Crypto
    needs frame_number && harness frame_number Tests/Fuzz/FrameNumberFuzz.swift FileFormats TensorCore ImageCodecs Datasets ExternalProcesses Phases Video Crypto
    needs result_folder && harness result_folder Tests/Fuzz/ResultFolderFuzz.swift FileFormats TensorCore ImageCodecs Datasets ExternalProcesses Phases Video Labeling Crypto
fi
# The annotations reader walks folders with Datasets; the harness drives its document parser.
if needs detection_annotations; then
    module Datasets FileFormats
    module DetectionAnnotations FileFormats ImageCodecs Datasets
    harness detection_annotations Tests/Fuzz/DetectionAnnotationsFuzz.swift FileFormats ImageCodecs Datasets DetectionAnnotations Crypto
fi
echo "fuzz: built ${harnesses[*]} in $(( $(date +%s) - build_started )) s"
"$build_only" && exit 0

# ---- Run.
# Swift's crash reporter would race libFuzzer's handler on a trap; libFuzzer reports it (and keeps the input).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/Tests/Fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
printf 'fuzz: %-21s %10s %10s %8s %8s %7s\n' harness executions "exec/s" cov ft corpus
for harness in "${harnesses[@]}"; do
    corpus="$build/corpus/$harness"
    findings="$build/findings/$harness"
    mkdir -p "$corpus" "$findings"
    log="$build/$harness.log"
    status=0
    "$build/bin/$harness" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -timeout=10 -artifact_prefix="$findings/" "$corpus" "Tests/Fuzz/corpus/$harness" > "$log" 2>&1 || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    final=$(grep -aE '^#[0-9]+.* cov: ' "$log" | tail -n 1 || true)
    coverage=$(printf '%s' "$final" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
    features=$(printf '%s' "$final" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
    units=$(printf '%s' "$final" | sed -nE 's/.* corp: ([0-9]+).*/\1/p')
    printf 'fuzz: %-21s %10s %10s %8s %8s %7s\n' "$harness" "${executions:-?}" "${speed:-?}" \
        "${coverage:-?}" "${features:-?}" "${units:-?}"
    artifact=$(grep -aoE "Test unit written to [^ ]+" "$log" | tail -n 1 | sed 's/Test unit written to //' || true)
    if [ "$status" -ne 0 ] || [ -n "$artifact" ]; then
        failed+=("$harness")
        echo "fuzz: FINDING in $harness (exit status $status); libFuzzer's report:" >&2
        grep -aE -A 30 "ERROR: |SUMMARY: |Fatal error|fatal error|deadly signal|timeout|out-of-memory|leak" "$log" \
            | head -n 60 | "$toolchain/swift-demangle" --simplified >&2 || tail -n 40 "$log" >&2
        echo "fuzz: input kept in ${artifact:-$findings}; replay: $build/bin/$harness ${artifact:-<input>}" >&2
        echo "fuzz: full log: $log" >&2
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: no findings (${#harnesses[@]} harnesses, $seconds s each)"
