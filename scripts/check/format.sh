#!/usr/bin/env bash
# The one formatter configuration (.swift-format at the top) holds for every Swift file: swift-format, which the
# toolchain ships, lints them strictly and exits non-zero with each place it would change. To apply it:
#   swift-format format --in-place --parallel --recursive Package.swift Sources Tests
set -euo pipefail
cd "$(dirname "$0")/../.."
if swift-format lint --strict --parallel --recursive Package.swift Sources Tests; then
    echo "format: every Swift file follows .swift-format"
else
    echo "format: the files above differ from .swift-format; apply it with:"
    echo "  swift-format format --in-place --parallel --recursive Package.swift Sources Tests"
    exit 1
fi
