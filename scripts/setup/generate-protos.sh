#!/usr/bin/env bash
# Regenerates the Swift of the trimmed schemas in proto/: Sources/Export/Generated/*.pb.swift (ONNX, Core ML) and
# Sources/DetectorConversion/Generated/*.pb.swift (TensorFlow's GraphDef, read by the detector's converter).
#
# Run by hand only when a file in proto/ changes; the output is committed so that builds and CI never need
# protoc or the slow protoc-gen-swift build. The plugin must come from the same swift-protobuf release the
# package resolves (see Package.swift), because generated code checks the runtime's version.
#
#   scripts/setup/generate-protos.sh [path/to/protoc-gen-swift]
#
# Without an argument it builds protoc-gen-swift from the swift-protobuf checkout that SwiftPM fetched into
# .build*/checkouts (run `swift package resolve` first). protoc comes from Debian's protobuf-compiler.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

if ! command -v protoc >/dev/null; then
    apt-get install -y protobuf-compiler
fi

plugin="${1:-}"
if [[ -z "$plugin" ]]; then
    checkout="$(ls -d .build*/checkouts/swift-protobuf 2>/dev/null | head -n 1 || true)"
    if [[ -z "$checkout" ]]; then
        echo "no swift-protobuf checkout under .build*/checkouts: run 'swift package resolve' first" >&2
        exit 1
    fi
    # Build in a copy so the checkout SwiftPM manages stays untouched.
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    cp -R "$checkout" "$work/swift-protobuf"
    (cd "$work/swift-protobuf" && swift build --product protoc-gen-swift >&2)
    plugin="$work/swift-protobuf/.build/debug/protoc-gen-swift"
fi

# generate OUTPUT_FOLDER PROTO...: each module keeps the messages it reads or writes, internal to it.
generate() {
    local output=$1
    shift
    mkdir -p "$output"
    rm -f "$output"/*.pb.swift
    protoc --plugin=protoc-gen-swift="$plugin" \
        --swift_opt=Visibility=Internal \
        --swift_out="$output" \
        --proto_path=proto \
        "$@"
    echo "generated: $(ls "$output")"
}
generate Sources/Export/Generated proto/onnx_subset.proto proto/coreml_subset.proto
generate Sources/DetectorConversion/Generated proto/tensorflow_graph_subset.proto
