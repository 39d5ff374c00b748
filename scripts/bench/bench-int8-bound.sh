#!/usr/bin/env bash
# How much int8 arithmetic can gain over fp32 on this CPU, before any kernel is written: one core's peak
# multiply-accumulate rate from registers for fp32 FMA and for each integer dot product the CPU has (AVX2's exact
# vpmaddwd and saturating vpmaddubsw, AVX-VNNI, AVX-512 VNNI), printed as ratios to fp32 measured in the same run.
# Issue 28 asks for an int8 network at 3x onnxruntime's fp32 with exact integer arithmetic; where the exact path's
# ratio here is near 1, the 1x1 convolutions (most of the network's work) cannot get there on this CPU.
# Usage: scripts/bench/bench-int8-bound.sh      (a few seconds; needs a C compiler: gcc or clang)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$root/.build/bench-int8-bound"
mkdir -p "$work"
compiler=$(command -v gcc || command -v clang) || { echo "bench-int8-bound: no C compiler (gcc or clang)" >&2; exit 1; }
"$compiler" -O2 -o "$work/int8-peak" "$root/scripts/bench/int8-peak.c"
model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
number=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
echo "CPU: $model (family $family, model $number); integer dot-product flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'avx_vnni|avx512_vnni|amx_int8' | tr '\n' ' ' || true)"
"$work/int8-peak"
