#!/usr/bin/env bash
# Measures the SHA-256 throughput of Datasets' `SHA256` (swift-crypto's) against OpenSSL's, through Python's
# hashlib on the same bytes, and against the naive `SHA256Reference` (release build). Digests must agree.
# Usage: scripts/bench/bench-sha256.sh [megabytes]   (default 256; best of 3 rounds each)
# The bench package is built in .build-bench-sha256/ (the first build compiles swift-crypto, a minute or two).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
megabytes="${1:-256}"
python="$root/.venv/bin/python3"
[ -x "$python" ] || { echo "$python not found: run scripts/setup.sh" >&2; exit 1; }
package="$root/.build-bench-sha256"
mkdir -p "$package/Sources/SHA256Bench"
cat > "$package/Package.swift" <<'MANIFEST'
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "SHA256Bench",
    dependencies: [.package(url: "https://github.com/apple/swift-crypto", from: "4.5.2")],
    targets: [
        .executableTarget(name: "SHA256Bench", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
    ]
)
MANIFEST
# The module's own files, copied so the bench measures exactly what Datasets compiles (cp -p keeps the build
# incremental when they did not change).
cp -p "$root/Sources/Datasets/SHA256.swift" "$root/Sources/Datasets/SHA256Reference.swift" "$package/Sources/SHA256Bench/"
cat > "$package/Sources/SHA256Bench/main.swift.new" <<'SWIFT'
import Foundation

let megabytes = Int(CommandLine.arguments[1])!
let buffer = [UInt8]((0..<(megabytes << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761) })
func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
var digest: [UInt8] = []
let fast = (0..<3).map { _ in seconds { digest = SHA256.hash(buffer) } }.min()!
let small = Array(buffer.prefix(8 << 20))
var referenceDigest: [UInt8] = []
let reference = seconds { referenceDigest = SHA256Reference.hash(small) }
precondition(SHA256.hash(small) == referenceDigest, "SHA256 and SHA256Reference disagree")
print(digest.map { String(format: "%02x", $0) }.joined(), Double(megabytes) / fast, 8 / reference)
SWIFT
cmp -s "$package/Sources/SHA256Bench/main.swift.new" "$package/Sources/SHA256Bench/main.swift" 2>/dev/null \
    && rm "$package/Sources/SHA256Bench/main.swift.new" \
    || mv "$package/Sources/SHA256Bench/main.swift.new" "$package/Sources/SHA256Bench/main.swift"
swift build -c release --package-path "$package" --product SHA256Bench > "$package/build.log" 2>&1 \
    || { cat "$package/build.log" >&2; exit 1; }
read -r digest rate referenceRate < <("$package/.build/release/SHA256Bench" "$megabytes")

read -r hashlibDigest hashlibRate openssl < <("$python" - "$megabytes" <<'PYTHON'
import hashlib, ssl, sys, time
import numpy as np
megabytes = int(sys.argv[1])
buffer = ((np.arange(megabytes << 20, dtype=np.uint64) * 2654435761) & 0xFF).astype(np.uint8).tobytes()
best = float("inf")
for _ in range(3):
    start = time.perf_counter()
    digest = hashlib.sha256(buffer).hexdigest()
    best = min(best, time.perf_counter() - start)
print(digest, megabytes / best, ssl.OPENSSL_VERSION.replace(" ", "_"))
PYTHON
)
[ "$digest" = "$hashlibDigest" ] || { echo "digests differ: SHA256 $digest, hashlib $hashlibDigest" >&2; exit 1; }
awk -v m="$megabytes" -v r="$rate" -v h="$hashlibRate" -v n="$referenceRate" -v o="$openssl" 'BEGIN {
    gsub("_", " ", o)
    printf "SHA256 (swift-crypto): %.0f MiB/s (%d MiB, best of 3)\n", r, m
    printf "hashlib (%s): %.0f MiB/s; SHA256/hashlib = %.2fx\n", o, h, r / h
    printf "SHA256Reference: %.1f MiB/s (8 MiB); SHA256/reference = %.0fx\n", n, r / n
}'
