#!/usr/bin/env bash
# Coverage-guided fuzzing of the trace readers, decoders and format detection with libFuzzer.
# Usage: Scripts/fuzz-readers.sh [SECONDS]   (default 60; crashes are written to .build-fuzz/)
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out=.build-fuzz
mkdir -p "$out/corpus"
# Seed the corpus with the bundled traces' first lines (CSV: first byte even) and a binary prefix (odd).
for f in Traces/*.csv; do { printf '\x00'; head -c 2000 "$f"; } > "$out/corpus/$(basename "$f").seed"; done
for f in Traces/zipf.csv Traces/cloudPhysicsIO.oracleGeneral.bin; do { printf '\x02'; head -c 960 "$f"; } > "$out/corpus/detect-$(basename "$f").seed"; done
{ printf '\x01'; head -c 480 Traces/cloudPhysicsIO.oracleGeneral.bin; } > "$out/corpus/oracle.seed"
# Twitter's layouts: a CSV in the published form, and twr records for detection to find.
{ printf '\x00'; printf '0,nz:u:eeW5,10,2017,1014,get,0\n0,nz:u:eeW5,10,2017,1014,set,3600\n1,q:1,3,0,7,gets,0\n2,q:1,3,9,7,delete,0\n'; } > "$out/corpus/twitter-csv.seed"
python3 -c "
import struct, sys
sys.stdout.buffer.write(b'\x02' + b''.join(struct.pack('<IQII', i // 3, i % 7, (10 << 22) | 100 * i, ((1 + i % 11) << 24) | 60) for i in range(40)))
" > "$out/corpus/detect-twr.seed"
# The readers, the decoders and format detection only (the converter needs the output layer).
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name CacheBenchFuzz \
  $(ls Sources/CacheBench/Trace/*.swift | grep -v TraceConverter) $(find Sources/CacheBench/Decompression -name '*.swift') \
  Scripts/fuzz/FuzzReaders.swift -o "$out/fuzz-readers"
"$out/fuzz-readers" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$out/" "$out/corpus"
