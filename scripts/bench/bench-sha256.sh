#!/usr/bin/env bash
# Measures the SHA-256 throughput of Datasets' fast path against its naive reference (release build).
# Usage: scripts/bench/bench-sha256.sh [megabytes]   (default 256)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
megabytes="${1:-256}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/main.swift" <<'SWIFT'
import Foundation

let megabytes = Int(CommandLine.arguments[1])!
let buffer = [UInt8]((0..<(megabytes << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761) })
func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
var digest: [UInt8] = []
let fast = seconds { digest = SHA256.hash(buffer) }
let small = Array(buffer.prefix(8 << 20))
var referenceDigest: [UInt8] = []
let reference = seconds { referenceDigest = SHA256Reference.hash(small) }
precondition(SHA256.hash(small) == referenceDigest, "fast path and reference disagree")
let fastRate = Double(megabytes) / fast
let referenceRate = 8 / reference
print(String(format: "fast path: %.0f MiB/s (%d MiB in %.2f s)", fastRate, megabytes, fast))
print(String(format: "reference: %.1f MiB/s (8 MiB); fast/reference = %.0fx", referenceRate, fastRate / referenceRate))
SWIFT
swiftc -O -wmo -module-name SHA256Bench -o "$work/bench" \
    "$root/Sources/Datasets/SHA256.swift" "$root/Sources/Datasets/SHA256Reference.swift" "$work/main.swift"
"$work/bench" "$megabytes"
