#!/usr/bin/env bash
# Coverage-guided fuzzing of the trace readers, decoders and format detection with libFuzzer.
# Usage: Scripts/fuzz-readers.sh [SECONDS]   (default 60; crashes are written to .build-fuzz/)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out=.build-fuzz
mkdir -p "$out/corpus"
# Seed the corpus with the bundled traces' first lines (CSV: first byte even) and a binary prefix (odd).
for f in Traces/*.csv; do { printf '\x00'; head -c 2000 "$f"; } > "$out/corpus/$(basename "$f").seed"; done
for f in Traces/zipf.csv Traces/cloudPhysicsIO.oracleGeneral.bin; do { printf '\x02'; head -c 960 "$f"; } > "$out/corpus/detect-$(basename "$f").seed"; done
{ printf '\x01'; head -c 480 Traces/cloudPhysicsIO.oracleGeneral.bin; } > "$out/corpus/oracle.seed"
# The readers, the decoders and format detection only (the converter needs the output layer).
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name CacheBenchFuzz \
  $(ls Sources/CacheBench/Trace/*.swift | grep -v TraceConverter) $(find Sources/CacheBench/Decompression -name '*.swift') \
  Scripts/fuzz/FuzzReaders.swift -o "$out/fuzz-readers"
"$out/fuzz-readers" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$out/" "$out/corpus"
