#!/usr/bin/env bash
# Hostile cases (issue 14): ordinary mistakes and faults a new user meets. Each case runs the
# binary in a scratch folder and checks the exit code, the message, standard output and every
# file involved. A failure is classified: CRASH (signal), HANG (timeout), LOST (a file removed,
# changed or a temporary left), WRONG (exit 0 or a result that differs where it must not), FAIL
# (anything else: wrong code or message).
#
#   Scripts/hostile-cases.sh --list                 case names, one a line
#   CB=path/to/cachebench Scripts/hostile-cases.sh --case NAME
#   CB=path/to/cachebench Scripts/hostile-cases.sh --tally   every case, then counts per class
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T="$ROOT/Traces"
CB=${CB:-"$ROOT/.build/debug/cachebench"}
case "${1:-}" in -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
if [ "${1:-}" != "--list" ] && [ ! -x "$CB" ]; then echo "hostile-cases.sh: no cachebench at $CB: build it (swift build) or set CB=path/to/cachebench" >&2; exit 66; fi
LIMIT=${HOSTILE_TIMEOUT:-20}

# run ARGS...: runs cachebench with a time limit; sets RC, OUT (stdout file), ERR (stderr file).
run() { timeout -s KILL "$LIMIT" "$CB" "$@" >"$W/out" 2>"$W/err"; RC=$?; OUT="$W/out"; ERR="$W/err"; }
# runsh SCRIPT: the same through bash -c (redirections, process substitution); $CB is exported.
runsh() { CB="$CB" timeout -s KILL "$LIMIT" bash -c "$1" >"$W/out" 2>"$W/err"; RC=$?; OUT="$W/out"; ERR="$W/err"; }
fail() { echo "$1: $2"; exit 1; }
# run_default_signals ARGS...: as run, with SIGINT, SIGTERM and SIGHUP at their default actions and
# unblocked, whatever the caller ignores (a test runner may start the script with them ignored).
run_default_signals() { timeout -s KILL "$LIMIT" python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
os.execv(sys.argv[1], sys.argv[1:])' "$CB" "$@" >"$W/out" 2>"$W/err"; RC=$?; OUT="$W/out"; ERR="$W/err"; }
# interruptible ARGS...: starts cachebench in the background with SIGINT at its default action
# (a background job of a script inherits SIGINT ignored, which a program should respect).
interruptible() { exec python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); os.execv(sys.argv[1], sys.argv[1:])' "$CB" "$@"; }
# expect CODE [MESSAGE]: the exit code, a message fragment on stderr, nothing on stdout unless 0.
expect() {
  if [ "$RC" = 137 ] || [ "$RC" = 124 ]; then fail HANG "no exit within ${LIMIT}s"; fi
  if [ "$RC" -ge 128 ]; then fail CRASH "exit $RC: $(head -c 200 "$ERR")"; fi
  if [ "$RC" != "$1" ]; then
    if [ "$RC" = 0 ]; then fail WRONG "exit 0, expected $1"; fi
    fail FAIL "exit $RC, expected $1: $(head -c 300 "$ERR")"
  fi
  if [ -n "${2:-}" ] && ! grep -qF -- "$2" "$ERR"; then fail FAIL "stderr lacks '$2': $(head -c 300 "$ERR")"; fi
  # Only a failed gate (3) still prints its report.
  if [ "$1" != 0 ] && [ "$1" != 3 ] && [ -s "$OUT" ]; then fail FAIL "stdout not empty after exit $1"; fi
}
same() { cmp -s "$1" "$2" || fail LOST "$1 changed or removed"; }
no_temps() { local left; left=$(find "$W" -name '.*.tmp' -o -name '.*cachebench*' | head -1); [ -z "$left" ] || fail LOST "temporary left: $left"; }
# same_result A B: two csv reports agree on everything but the trace name and timings.
same_result() {
  local a b; a=$(cut -d, -f1,3-15 "$1" | tr -d '\r'); b=$(cut -d, -f1,3-15 "$2" | tr -d '\r')
  [ "$a" = "$b" ] || fail WRONG "results differ from the same trace read from a file"
}
csv_rows() { python3 - "$@" <<'PY'
import sys
rows, n, path, extra = [], int(sys.argv[1]), sys.argv[2], sys.argv[3:]
with open(path, "w") as f:
    f.write("timestamp,key,size\n")
    for i in range(n): f.write(f"{i},{i % 7},{extra[0] if extra else 10}\n")
PY
}

# ---- 1. every file written whole or not at all
case_convert_over_existing() { echo old > "$W/o.bin"; run convert "$T/zipf.csv" --output "$W/o.bin"; expect 0
  [ "$(stat -c %s "$W/o.bin")" = 1200000 ] || fail LOST "o.bin is not the converted trace"
  run convert "$T/zipf.csv" --output "$W/o.bin"; expect 0; [ "$(stat -c %s "$W/o.bin")" = 1200000 ] || fail LOST "second run"; no_temps; }
case_convert_over_input() { cp "$T/zipf.csv" "$W/x.csv"; run convert "$W/x.csv" --output "$W/x.csv"; expect 2 "input trace"; same "$W/x.csv" "$T/zipf.csv"; }
case_convert_over_input_symlink() { cp "$T/zipf.csv" "$W/x.csv"; ln -s x.csv "$W/l.csv"; run convert "$W/x.csv" --output "$W/l.csv"; expect 2 "input trace"; same "$W/x.csv" "$T/zipf.csv"; }
case_convert_disk_full() { echo old > "$W/o.bin"; cp "$W/o.bin" "$W/ref"; CACHEBENCH_FAULT_WRITE_AFTER_BYTES=5000 run convert "$T/zipf.csv" --output "$W/o.bin"
  expect 74 "No space left"; same "$W/o.bin" "$W/ref"; no_temps; }
case_replay_output_disk_full() { echo old > "$W/r.json"; cp "$W/r.json" "$W/ref"; CACHEBENCH_FAULT_WRITE_AFTER_BYTES=10 run replay "$T/lirs-cs.csv" --policy lru --capacity 100 --format json --output "$W/r.json"
  expect 74 "r.json: cannot write"; same "$W/r.json" "$W/ref"; no_temps; }
case_generate_disk_full() { echo old > "$W/g.csv"; cp "$W/g.csv" "$W/ref"; CACHEBENCH_FAULT_WRITE_AFTER_BYTES=100 run generate zipf --requests 1000 --output "$W/g.csv"
  expect 74 "g.csv: cannot write"; same "$W/g.csv" "$W/ref"; no_temps; }
case_compare_outputs_disk_full() { echo a > "$W/r.txt"; echo b > "$W/p.svg"; cp "$W/r.txt" "$W/ra"; cp "$W/p.svg" "$W/pb"
  CACHEBENCH_FAULT_WRITE_AFTER_BYTES=2000 run compare "$T/lirs-cs.csv" --policies lru,fifo --capacities 100,1000 --ignore-size --output "$W/r.txt" --plot "$W/p.svg"
  expect 74 "cannot write"; same "$W/r.txt" "$W/ra"; same "$W/p.svg" "$W/pb"; no_temps; }
case_plot_same_as_output() { run compare "$T/lirs-cs.csv" --policies lru --capacities 100 --ignore-size --output "$W/r.svg" --plot "$W/./r.svg"; expect 2 "same file"; }
case_replay_output_is_trace() { cp "$T/lirs-cs.csv" "$W/t.csv"; run replay "$W/t.csv" --policy lru --capacity 10 --output "$W/t.csv"; expect 2 "input trace"; same "$W/t.csv" "$T/lirs-cs.csv"; }
case_generate_missing_folder() { run generate zipf --requests 10 --output "$W/nodir/g.csv"; expect 74 "g.csv: cannot write"; }
case_mrc_plot_fails_nothing_written() { echo old > "$W/m.txt"; cp "$W/m.txt" "$W/ref"; run mrc "$T/lirs-cs.csv" --ignore-size --points 4 --output "$W/m.txt" --plot "$W/nodir/p.svg"
  expect 74 "p.svg"; same "$W/m.txt" "$W/ref"; no_temps; }
case_compare_plot_fails_stdout_empty() { run compare "$T/lirs-cs.csv" --policies lru,fifo --capacities 100 --ignore-size --plot "$W/nodir/p.svg"; expect 74 "p.svg"; }
case_sigint_generate() { echo old > "$W/g.csv"; cp "$W/g.csv" "$W/ref"
  interruptible generate zipf --requests 100000000 --output "$W/g.csv" 2>/dev/null & local pid=$!
  for _ in $(seq 50); do [ -n "$(find "$W" -name '.g.csv*')" ] && break; sleep 0.1; done; sleep 0.3
  kill -INT $pid; wait $pid; RC=$?; [ "$RC" = 130 ] || fail FAIL "exit $RC after SIGINT, expected 130"; same "$W/g.csv" "$W/ref"; no_temps; }
case_sigint_convert() { echo old > "$W/o.bin"; cp "$W/o.bin" "$W/ref"; mkfifo "$W/f"
  ( cat "$T/zipf.csv"; sleep 5 ) > "$W/f" & local writer=$!
  interruptible convert "$W/f" --output "$W/o.bin" 2>/dev/null & local pid=$!
  for _ in $(seq 50); do [ -n "$(find "$W" -name '.o.bin*')" ] && break; sleep 0.1; done; sleep 0.3
  kill -INT $pid; wait $pid; RC=$?; kill $writer 2>/dev/null; wait $writer 2>/dev/null
  [ "$RC" = 130 ] || fail FAIL "exit $RC after SIGINT, expected 130"; same "$W/o.bin" "$W/ref"; no_temps; }
case_cpu_limit_and_timer_signals_generate() { echo old > "$W/g.csv"; cp "$W/g.csv" "$W/ref"
  # `ulimit -t` and schedulers' CPU limits send SIGXCPU; it left a 100 MB temporary behind.
  # At their default actions, whatever the caller (a test runner) ignores.
  for sig in XCPU VTALRM PROF; do
    python3 -c 'import os, signal, sys
for s in (signal.SIGXCPU, signal.SIGVTALRM, signal.SIGPROF): signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGXCPU, signal.SIGVTALRM, signal.SIGPROF])
os.execv(sys.argv[1], sys.argv[1:])' "$CB" generate zipf --requests 100000000 --output "$W/g.csv" 2>/dev/null & local pid=$!
    for _ in $(seq 50); do [ -n "$(find "$W" -name '.g.csv*')" ] && break; sleep 0.1; done; sleep 0.3
    kill -$sig $pid; wait $pid; RC=$?
    local want=$((128 + $(kill -l $sig)))
    [ "$RC" = "$want" ] || fail FAIL "exit $RC after SIG$sig, expected $want"
    same "$W/g.csv" "$W/ref"; no_temps
  done; }
case_sigquit_and_sigusr1_generate() { echo old > "$W/g.csv"; cp "$W/g.csv" "$W/ref"
  # Ctrl-\ (SIGQUIT) went through Swift's backtracer, which printed a crash report and let the
  # run finish and exit 0; a batch system's SIGUSR1 left the temporary behind.
  for sig in QUIT USR1; do
    python3 -c 'import os, signal, sys
for s in (signal.SIGQUIT, signal.SIGUSR1): signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGQUIT, signal.SIGUSR1])
os.execv(sys.argv[1], sys.argv[1:])' "$CB" generate zipf --requests 100000000 --output "$W/g.csv" 2>"$W/err" & local pid=$!
    for _ in $(seq 50); do [ -n "$(find "$W" -name '.g.csv*')" ] && break; sleep 0.1; done; sleep 0.3
    kill -$sig $pid; wait $pid; RC=$?
    local want=$((128 + $(kill -l $sig)))
    [ "$RC" = "$want" ] || fail FAIL "exit $RC after SIG$sig, expected $want"
    grep -q "crashed" "$W/err" && fail FAIL "SIG$sig was reported as a crash: $(head -c 200 "$W/err")"
    same "$W/g.csv" "$W/ref"; no_temps
  done
  # With no file open yet (a report to standard output) too.
  python3 -c 'import os, signal, sys
signal.signal(signal.SIGQUIT, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGQUIT])
os.execv(sys.argv[1], sys.argv[1:])' "$CB" generate zipf --requests 100000000 >/dev/null 2>"$W/err" & local pid=$!
  sleep 1; kill -QUIT $pid; wait $pid; RC=$?
  [ "$RC" = 131 ] || fail FAIL "exit $RC after SIGQUIT with no file open, expected 131: $(head -c 200 "$W/err")"
  grep -q "crashed" "$W/err" && fail FAIL "SIGQUIT was reported as a crash: $(head -c 200 "$W/err")"; true; }
case_output_checked_before_the_run() { printf 'timestamp,key,size\n1,2,x\n' > "$W/bad.csv"
  # A folder that is missing is found before the trace is read (the malformed trace would say 65):
  # a run of hours does not end in a failure to write that was there from the start.
  run replay "$W/bad.csv" --policy lru --capacity 10 --output "$W/nodir/r.txt"; expect 74 "r.txt"
  run replay "$W/bad.csv" --policy lru --capacity 10 --report-interval 1req --plot-intervals "$W/nodir/i.svg"; expect 74 "i.svg"
  run compare "$W/bad.csv" --policies lru,fifo --capacities 10 --plot "$W/nodir/p.svg"; expect 74 "p.svg"
  run mrc "$W/bad.csv" --points 4 --output "$W"; expect 74 "is a directory"
  run analyze "$W/bad.csv" --output "$W/nodir/a.txt"; expect 74 "a.txt"
  # A report inside the --plot folder the command makes is not refused before the folder exists.
  run analyze "$T/lirs-cs.csv" --plot "$W/plots" --output "$W/plots/report.json"; expect 0
  [ -s "$W/plots/report.json" ] || fail LOST "the report in the plots folder was not written"
  ln -s loop1 "$W/loop2"; ln -s loop2 "$W/loop1"
  run replay "$W/bad.csv" --policy lru --capacity 10 --output "$W/loop1"; expect 74 "loop1"
  [ -L "$W/loop1" ] || fail LOST "the link was replaced"
  mkdir "$W/empty-sweep"
  run merge "$W/empty-sweep" --output "$W/nodir/m.json"; expect 74 "m.json"
  run sweep-report "$W/empty-sweep" --output "$W/nodir/s.md"; expect 74 "s.md"
  # An input that cannot be opened is reported first, as before the check (66).
  run replay "$W/missing.csv" --policy lru --capacity 10 --output "$W/nodir/r.txt"; expect 66 "missing.csv"
  run merge "$W/no-sweep" --output "$W/nodir/m.json"; expect 66 "no-sweep"; }

# ---- 2. standard streams
case_stdout_dev_full() { runsh '"$CB" replay '"$T"'/lirs-cs.csv --policy lru --capacity 10 > /dev/full'; expect 74 "standard output: cannot write"; }
case_stdout_closed() { runsh '"$CB" replay '"$T"'/lirs-cs.csv --policy lru --capacity 10 >&-'; expect 74 "standard output"; }
case_stdout_closed_output_file() { runsh '"$CB" replay '"$T"'/lirs-cs.csv --policy lru --capacity 10 --output '"$W"'/r.txt >&-'; expect 0; grep -q "lru" "$W/r.txt" || fail WRONG "report not in the file"; }
case_stdout_epipe() { runsh 'trap "" PIPE; "$CB" generate zipf --requests 300000 | head -c 10 > /dev/null; exit ${PIPESTATUS[0]}'; expect 74 "standard output"; }
case_stderr_dev_full() { runsh '"$CB" replay /nonexistent.csv --policy lru 2>/dev/full'; RC=$RC; [ "$RC" = 66 ] || { [ "$RC" -ge 128 ] && fail CRASH "exit $RC"; fail FAIL "exit $RC, expected 66"; }; }
case_stderr_closed_ok() { runsh '"$CB" replay '"$T"'/lirs-cs.csv --policy lru --capacity 10 --format csv 2>&-'; expect 0; grep -q '^lru,' "$OUT" || fail WRONG "no report"; }
case_help_dev_full() { runsh '"$CB" replay --help > /dev/full'; expect 74; }

# ---- 3. inputs that can be read once
case_replay_fifo_default_capacity() { mkfifo "$W/f"; cat "$T/zipf.csv" > "$W/f" & run replay "$W/f" --policy lru --format csv; expect 0
  "$CB" replay "$T/zipf.csv" --policy lru --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_replay_process_substitution() { runsh '"$CB" replay <(cat '"$T"'/zipf.csv) --policy lru --format csv'; expect 0
  "$CB" replay "$T/zipf.csv" --policy lru --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_compare_process_substitution() { runsh '"$CB" compare <(cat '"$T"'/mix.csv) --policies lru,fifo --capacities 100,1000 --format csv'; expect 0
  "$CB" compare "$T/mix.csv" --policies lru,fifo --capacities 100,1000 --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_mrc_process_substitution() { runsh '"$CB" mrc <(cat '"$T"'/lirs-cs.csv) --ignore-size --points 8 --format csv'; expect 0
  "$CB" mrc "$T/lirs-cs.csv" --ignore-size --points 8 --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_convert_process_substitution() { runsh '"$CB" convert <(cat '"$T"'/zipf.csv) --output '"$W"'/p.bin'; expect 0
  "$CB" convert "$T/zipf.csv" --output "$W/ref.bin" 2>/dev/null; cmp -s "$W/p.bin" "$W/ref.bin" || fail WRONG "converted file differs"; }
case_belady_dev_stdin_pipe() { runsh 'cat '"$T"'/lirs-cs.csv | "$CB" replay /dev/stdin --policy belady --capacity 100 --ignore-size --format csv'; expect 0
  "$CB" replay "$T/lirs-cs.csv" --policy belady --capacity 100 --ignore-size --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_stdin_dash_default_capacity() { runsh '"$CB" replay - --policy s3fifo --format csv < <(cat '"$T"'/lirs-cs.csv)'; expect 0
  "$CB" replay "$T/lirs-cs.csv" --policy s3fifo --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }

# ---- 4. timers at any finite time
timer() { printf 'timestamp,key,size\n0,1,10\n%s,2,10\n%s,1,10\n' "$1" "$2" > "$W/t.csv"; shift 2; run replay "$W/t.csv" --capacity 1000 "$@"; expect 0; }
case_yylru_5e19() { timer 5e19 6e19 --policy yy-lru; }
case_yylru_age_1e22() { timer 1e22 3e22 --policy yy-lru --option age-limit=5; }
case_pin_age_1e22() { timer 1e22 3e22 --policy pin-memory --option age-limit=10; }
case_kingfisher_1e22() { timer 1e22 3e22 --policy kingfisher; }
case_yydisk_1e22() { timer 1e22 3e22 --policy yy-disk; }
case_compare_tier_5e19() { timer 5e19 6e19 --tier memory=yy-lru,disk=yy-disk; }
case_nanosecond_epoch_trim_interval() { python3 -c "
print('timestamp,key,size')
t=1700000000000000000
for i in range(3000): t+=(i*7919)%1000000000+1; print(t, i%97, 10, sep=',')" > "$W/ns.csv"
  run replay "$W/ns.csv" --policy yy-lru --capacity 500 --option auto-trim-interval=0.1; expect 0; }
case_pin_age_tiny() { run replay "$T/lirs-cs.csv" --policy pin-memory --capacity 100 --option age-limit=1e-300; expect 2 "age-limit"; }

# ---- 5. byte totals
case_sizes_overflow_replay() { csv_rows 1024 "$W/b.csv" 9007199254740992; run replay "$W/b.csv" --policy lru; expect 65 "b.csv:1025"; }
case_sizes_overflow_compare() { csv_rows 1024 "$W/b.csv" 9007199254740992; run compare "$W/b.csv" --policies lru,fifo --capacities 1GiB,2GiB; expect 65 "b.csv:1025"; }
case_sizes_overflow_mrc() { csv_rows 1024 "$W/b.csv" 9007199254740992; run mrc "$W/b.csv"; expect 65 "b.csv:1025"; }
case_sizes_near_limit_ok() { csv_rows 1023 "$W/b.csv" 9007199254740992; run compare "$W/b.csv" --policies lru,fifo,arc --capacities 0.1,0.5; expect 0; }

# ---- 7. the content decides the format
case_csv_named_bin() { cp "$T/zipf.csv" "$W/x.bin"; run replay "$W/x.bin" --policy lru; expect 65 "content is CSV text"; }
case_csv_in_oracleGeneral_folder() { mkdir "$W/oracleGeneral"; cp "$T/lirs-cs.csv" "$W/oracleGeneral/t.csv"; run replay "$W/oracleGeneral/t.csv" --policy lru --capacity 100 --format csv; expect 0
  "$CB" replay "$T/lirs-cs.csv" --policy lru --capacity 100 --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_zstd_file_cut_short() { printf '\x28\xb5\x2f\xfd\x04\x00\x00\x00\x00\x00' > "$W/t.zst"; run replay "$W/t.zst" --policy lru; expect 65 "t.zst: byte 9: zstd: truncated block header"; }
case_gzip_unnamed() { gzip -c "$T/lirs-cs.csv" > "$W/trace"; run replay "$W/trace" --policy lru --capacity 100 --format csv; expect 0
  "$CB" replay "$T/lirs-cs.csv" --policy lru --capacity 100 --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_gzip_stdin_convert() { runsh 'gzip -c '"$T"'/mix.csv | "$CB" convert - --output '"$W"'/o.bin'; expect 0
  "$CB" convert "$T/mix.csv" --output "$W/ref.bin" 2>/dev/null; same "$W/o.bin" "$W/ref.bin"; no_temps; }
case_zstd_named_gz() { cp "$ROOT/Tests/Fixtures/zstd/ps30k-fast5.zst" "$W/t.gz"; run replay "$W/t.gz" --policy lru; expect 65 "the name says gzip-compressed but the content is zstd-compressed"; }
case_gzip_inside_gzip() { gzip -c "$T/lirs-cs.csv" | gzip -c > "$W/t.gz"; run replay "$W/t.gz" --policy lru; expect 65 "gzip-compressed data inside gzip-compressed data"; }
case_xz_file() { python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.compress(open(sys.argv[1], "rb").read()))' "$T/lirs-cs.csv" > "$W/t.xz"; run replay "$W/t.xz" --policy lru; expect 65 "compressed (xz) trace: not supported"; }
case_unrecognised_binary() { python3 -c 'import sys; sys.stdout.buffer.write(b"\x00\xfe" * 2048)' > "$W/t"; run replay "$W/t" --policy lru; expect 65 "t: byte 0: unrecognised binary content"; }
case_binary_named_csv() { cp "$T/cloudPhysicsIO.oracleGeneral.bin" "$W/t.csv"; run replay "$W/t.csv" --policy lru; expect 65 "content is oracleGeneral binary"; }

# ---- 8. the gate
gate() { "$CB" compare "$T/lirs-cs.csv" --policies lru,fifo --capacities 100,1000 --ignore-size "$@"; }
case_gate_empty_baseline() { echo '{"trace": "lirs-cs.csv", "results": []}' > "$W/b.json"; run compare "$T/lirs-cs.csv" --policies lru --capacities 100 --ignore-size --baseline "$W/b.json"; expect 3 "nothing was compared"; }
case_gate_other_mode() { gate --format json > "$W/b.json"; run compare "$T/lirs-cs.csv" --policies lru,fifo --capacities 100,1000 --baseline "$W/b.json"; expect 3 "gate:"; }
case_gate_other_trace() { "$CB" compare "$T/lirs-ps.csv" --policies lru,fifo --capacities 100,1000 --ignore-size --format json > "$W/b.json"
  run compare "$T/lirs-cs.csv" --policies lru,fifo --capacities 100,1000 --ignore-size --baseline "$W/b.json"; expect 3 "lirs-ps.csv"; }
case_gate_zero_requests() { printf 'timestamp,key,size,op\n1,1,1,set\n2,2,1,set\n' > "$W/s.csv"
  "$CB" compare "$W/s.csv" --policies lru --capacities 10 --ignore-size --format json > "$W/b.json" 2>/dev/null
  run compare "$W/s.csv" --policies lru --capacities 10 --ignore-size --baseline "$W/b.json"; expect 3 "nothing was compared"; }
case_gate_allow_partial() { echo '{"trace": "lirs-cs.csv", "results": []}' > "$W/b.json"
  run compare "$T/lirs-cs.csv" --policies lru --capacities 100 --ignore-size --baseline "$W/b.json" --allow-partial; expect 0; grep -q "note:" "$ERR" || fail FAIL "no note"; }

# ---- 9. CSV misparses and messages
case_bom_keeps_timestamps() { printf '\xef\xbb\xbf' > "$W/bom.csv"; cat "$T/image-feed.csv" >> "$W/bom.csv"
  run replay "$W/bom.csv" --policy kingfisher --option expiration=1 --format csv; expect 0
  "$CB" replay "$T/image-feed.csv" --policy kingfisher --option expiration=1 --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_semicolons() { printf 'timestamp;key;size\n1;a;10\n2;b;10\n' > "$W/s.csv"; run replay "$W/s.csv" --policy lru --capacity 100; expect 65 "s.csv:1"; }
case_whitespace_key() { printf 'timestamp,key,size\n1,a,10\n2,   ,10\n' > "$W/w.csv"; run replay "$W/w.csv" --policy lru --capacity 100; expect 65 "w.csv:3"; }
case_duplicate_header() { printf 'timestamp,key,ts,size\n1,a,100,10\n' > "$W/d.csv"; run replay "$W/d.csv" --policy lru --capacity 100; expect 65 "d.csv:1"; }
case_control_bytes_escaped() { printf 'timestamp,key,size,op\n1,a,10,\033[2J\007x\n' > "$W/c.csv"; run replay "$W/c.csv" --policy lru --capacity 100; expect 65 "c.csv:2"
  if LC_ALL=C grep -q "$(printf '\033')" "$ERR"; then fail FAIL "raw ESC byte on stderr"; fi; }

# ---- 10, 11, 12
case_compare_memory_budget() { run compare "$T/lirs-cs.csv" --policies fifo,clock,s3fifo,arc --capacities 10...1000:16 --ignore-size --format csv --max-memory 2MiB; expect 0 "waves"
  "$CB" compare "$T/lirs-cs.csv" --policies fifo,clock,s3fifo,arc --capacities 10...1000:16 --ignore-size --format csv > "$W/ref"; same_result "$OUT" "$W/ref"; }
case_policies_name_slow() { run policies; expect 0; grep -q "slow by design" "$OUT" || fail FAIL "pin-memory's sort not named"; }
case_count_limit_alone() { run replay "$T/zipf.csv" --policy nscache --count-limit 150 --format json; expect 0
  grep -q '"capacitySource": "library-default"' "$OUT" || fail WRONG "a cost limit was added: $(grep capacitySource "$OUT")"; }
case_no_arguments_usage_on_stderr() { run; expect 2 "USAGE"; }

# ---- 13. issue 17: convert --sample / lcs output, analyze, and bad compressed, lcs and vscsi input
# mangle IN OUT PYTHON-EXPR: OUT is IN's bytes d (a bytearray) after the expression.
mangle() { python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); $3; open(sys.argv[2],'wb').write(d)" "$1" "$2"; }
# bad_input_everywhere FILE MESSAGE: analyze and convert (to both formats) exit 65 with MESSAGE, write nothing.
bad_input_everywhere() { echo old > "$W/o.bin"; cp "$W/o.bin" "$W/ref"
  run analyze "$1" --output "$W/a.txt"; expect 65 "$2"; [ ! -e "$W/a.txt" ] || fail LOST "analyze wrote a.txt"
  run convert "$1" --output "$W/o.bin"; expect 65 "$2"; same "$W/o.bin" "$W/ref"
  run convert "$1" --output "$W/o.bin" --output-format lcs --sample 0.5; expect 65 "$2"; same "$W/o.bin" "$W/ref"; no_temps; }
case_zstd_cut_mid_block_analyze_convert() { head -c 1000 "$ROOT/Tests/Fixtures/zstd/og48k-level19.zst" > "$W/t.zst"
  bad_input_everywhere "$W/t.zst" "t.zst: byte 9: zstd: truncated compressed block"; }
case_zstd_bad_checksum_analyze_convert() { mangle "$ROOT/Tests/Fixtures/zstd/og48k-level19.zst" "$W/t.zst" "d[-1]^=0xff"
  bad_input_everywhere "$W/t.zst" "t.zst: byte 9406: zstd: content checksum"; }
case_lcs_wrong_version() { mangle "$T/cloudPhysicsIO-2k.lcs" "$W/t.lcs" "d[8]=9"; bad_input_everywhere "$W/t.lcs" "t.lcs: byte 8: lcs version 9 is not one of 1 to 8"; }
case_lcs_header_more_records_than_file() { mangle "$T/cloudPhysicsIO-2k.lcs" "$W/t.lcs" "del d[-24:]"
  bad_input_everywhere "$W/t.lcs" "the lcs v1 header says 2000 requests, the file holds 1999"; }
case_lcs_header_fewer_records_than_file() { mangle "$T/cloudPhysicsIO-2k.v3.lcs" "$W/t.lcs" "d+=d[-36:]"
  bad_input_everywhere "$W/t.lcs" "the lcs v3 header says 2000 requests, the file holds 2001"; }
case_vscsi_cut_mid_record() { mangle "$T/cloudPhysicsIO-2k.vscsi" "$W/t.vscsi" "del d[-10:]"
  bad_input_everywhere "$W/t.vscsi" "t.vscsi: byte 63968: truncated record: 22 of 32 bytes"; }
case_convert_sample_ratio_zero() { run convert "$T/zipf.csv" --output "$W/o.bin" --sample 0; expect 2 "--sample 0: the sampling ratio must be above 0 and at most 1"; [ ! -e "$W/o.bin" ] || fail LOST "o.bin written"; }
case_convert_sample_ratio_above_one() { run convert "$T/zipf.csv" --output "$W/o.bin" --sample 1.5; expect 2 "--sample 1.5: the sampling ratio must be above 0 and at most 1"; [ ! -e "$W/o.bin" ] || fail LOST "o.bin written"; }
case_convert_sample_ratio_above_half() { run convert "$T/zipf.csv" --output "$W/o.bin" --sample 0.7; expect 2 "--sample 0.7: libCacheSim's sampler takes 1 or a ratio up to 0.5"; }
case_convert_output_format_unknown() { run convert "$T/zipf.csv" --output "$W/o.bin" --output-format parquet; expect 2 "--output-format parquet: expected one of oracle-general, lcs"; }
case_convert_lcs_sampled_over_existing() { echo old > "$W/o.lcs"; run convert "$T/cloudPhysicsIO.oracleGeneral.bin" --output "$W/o.lcs" --output-format lcs --sample 0.01
  expect 0; [ "$(stat -c %s "$W/o.lcs")" = $((8192 + 984 * 24)) ] || fail WRONG "o.lcs is not 984 records after the header"; no_temps; }
case_convert_lcs_disk_full() { echo old > "$W/o.lcs"; cp "$W/o.lcs" "$W/ref"; CACHEBENCH_FAULT_WRITE_AFTER_BYTES=9000 run convert "$T/zipf.csv" --output "$W/o.lcs" --output-format lcs
  expect 74 "No space left"; same "$W/o.lcs" "$W/ref"; no_temps; }
case_analyze_window_zero() { run analyze "$T/lirs-cs.csv" --window 0; expect 2 "--window 0: expected a number of seconds greater than 0"; }
case_analyze_plots_written() { mkdir "$W/p"; run analyze "$T/lirs-cs.csv" --plot "$W/p" --output "$W/a.txt"; expect 0
  [ "$(ls "$W/p" | wc -l)" = 6 ] || fail WRONG "expected 6 plots, found $(ls "$W/p")"; grep -q "reuse distance" "$W/a.txt" || fail WRONG "report lacks the reuse distance"; no_temps; }
case_analyze_plot_folder_missing() { run analyze "$T/lirs-cs.csv" --plot "$W/new/plots" --output "$W/a.txt"; expect 0
  [ "$(ls "$W/new/plots" | wc -l)" = 6 ] || fail WRONG "expected the missing folder made with 6 plots, found $(ls "$W/new" 2>&1)"; no_temps; }
case_analyze_plot_folder_impossible() { echo old > "$W/a.txt"; cp "$W/a.txt" "$W/ref"; echo x > "$W/file"
  run analyze "$T/lirs-cs.csv" --plot "$W/file/nodir" --output "$W/a.txt"
  expect 74 "file/nodir: cannot write"; same "$W/a.txt" "$W/ref"; [ ! -e "$W/file/nodir" ] || fail WRONG "folder made"; no_temps; }
case_analyze_plots_disk_full() { mkdir "$W/p"; echo old > "$W/p/sizes.svg"; echo old > "$W/a.txt"; cp "$W/a.txt" "$W/ref"
  CACHEBENCH_FAULT_WRITE_AFTER_BYTES=1500 run analyze "$T/lirs-cs.csv" --plot "$W/p" --output "$W/a.txt"; expect 74 "cannot write"
  same "$W/a.txt" "$W/ref"; same "$W/p/sizes.svg" "$W/ref"; [ "$(ls "$W/p")" = sizes.svg ] || fail LOST "plots written: $(ls "$W/p")"; no_temps; }
case_analyze_plot_to_stdout() { run analyze "$T/lirs-cs.csv" --plot -; expect 2 "--plot needs a file name"; }

# ---- interruption, odd names and standard output aimed at the input
case_sweep_one_letter_folder() { run sweep --traces "$T/loop.csv" --policies lru --capacities 0.1 --output S; expect 0
  [ -f S/sweep.json ] || fail FAIL "no S/sweep.json"; }
case_sweep_nested_one_letter_folder() { run sweep --traces "$T/loop.csv" --policies lru --capacities 0.1 --output q/run1; expect 0
  [ -f q/run1/sweep.json ] || fail FAIL "no q/run1/sweep.json"; }
case_analyze_one_letter_plot_folder() { run analyze "$T/lirs-cs.csv" --plot p --output a.txt; expect 0
  [ -f p/sizes.svg ] || fail FAIL "no p/sizes.svg"; }
case_report_appended_to_trace() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" replay t.csv --policy lru --capacity 10 >> t.csv'
  expect 2 "standard output is the input trace t.csv"; same t.csv "$T/lirs-cs.csv"; }
case_report_over_trace_read_as_stdin() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" replay - --policy lru --capacity 10 < t.csv 1<> t.csv'
  expect 2 "standard output is the input trace (standard input reads it)"; same t.csv "$T/lirs-cs.csv"; }
case_mrc_report_appended_to_trace() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" mrc t.csv --ignore-size --points 4 >> t.csv'
  expect 2 "standard output is the input trace t.csv"; same t.csv "$T/lirs-cs.csv"; }
case_analyze_report_appended_to_trace() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" analyze t.csv >> t.csv'
  expect 2 "standard output is the input trace t.csv"; same t.csv "$T/lirs-cs.csv"; }
case_analyze_report_appended_to_stdin_trace() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" analyze - < t.csv >> t.csv'
  expect 2 "standard output is the input trace (standard input reads it)"; same t.csv "$T/lirs-cs.csv"; }
case_analyze_report_redirected_to_a_plot() { mkdir p; runsh '"$CB" analyze '"$T"'/lirs-cs.csv --plot p > p/sizes.svg'
  expect 2 "p/sizes.svg is standard output, where the report goes"; [ "$(ls p)" = sizes.svg ] || fail WRONG "plots written: $(ls p)"; }
# Standard input by another name (/dev/stdin, /dev/fd/0) is still read once.
case_compare_trace_and_baseline_both_stdin_by_other_names() { cp "$T/lirs-cs.csv" t.csv
  runsh 'cat t.csv | "$CB" compare - --policies lru --capacities 100 --ignore-size --baseline /dev/stdin'
  expect 2 "both read standard input"
  runsh 'cat t.csv | "$CB" compare /dev/fd/0 --policies lru --capacities 100 --ignore-size --baseline -'
  expect 2 "both read standard input"; }
# A baseline whose "trace" is of the wrong type is malformed, not a baseline without a trace.
case_baseline_trace_of_wrong_type() { cp "$T/lirs-cs.csv" a.csv; cp "$T/loop.csv" b.csv
  run compare a.csv --policies lru --capacities 100 --ignore-size --format json --output base.json; expect 0
  python3 -c 'import json; d=json.load(open("base.json")); d["trace"]=5; [r.pop("trace", None) for r in d["results"]]; json.dump(d, open("bad.json", "w"))'
  run compare b.csv --policies lru --capacities 100 --ignore-size --baseline bad.json
  expect 65 '"trace" is not a string'; }
# A refused sweep folder is left exactly as it was: no records folder made in it.
case_sweep_refused_folder_left_as_it_was() { mkdir S; echo '{}' > S/sweep.json
  run sweep --traces "$T/lirs-cs.csv" --policies lru --capacities 0.1 --output S
  expect 65 "not a sweep manifest"; [ "$(ls -A S)" = sweep.json ] || fail LOST "the refused folder changed: $(ls -A S)"; }
# --traces: a file whose name has glob characters, and a list saved with a byte-order mark.
case_sweep_traces_literal_and_bom_list() { cp "$T/lirs-cs.csv" 'day[1].csv'; cp "$T/loop.csv" b.csv
  run sweep --traces 'day[1].csv' --policies lru --capacities 0.1 --plan; expect 0
  grep -qF 'day[1].csv' "$OUT" || fail WRONG "the plan lacks day[1].csv: $(head -c 200 "$OUT")"
  printf '\xef\xbb\xbfb.csv\nday[1].csv\n' > list.txt
  run sweep --traces @list.txt --policies lru --capacities 0.1 --plan; expect 0; }
# A sweep's own files and its traces, aimed at by standard output: each command that prints.
sweep_of_t() { cp "$T/lirs-cs.csv" t.csv; cp t.csv t.ref; run sweep --traces t.csv --policies lru,fifo --capacities 0.1 --output S; expect 0
  cp S/sweep.json manifest.ref; cp S/cells/* cells.ref; }
case_merge_appended_to_manifest() { sweep_of_t; runsh '"$CB" merge S --format json >> S/sweep.json'
  expect 2 "standard output is"; same S/sweep.json manifest.ref; }
case_sweep_report_appended_to_records() { sweep_of_t; runsh '"$CB" sweep-report S >> S/cells/*'
  expect 2 "one of the sweep's own files"; same S/cells/* cells.ref; }
case_merge_appended_to_sweep_trace() { sweep_of_t; runsh '"$CB" merge S >> t.csv'
  expect 2 "a trace of the sweep"; same t.csv t.ref; }
case_merge_appended_to_sweep_trace_from_elsewhere() { sweep_of_t; mkdir elsewhere; runsh 'cd elsewhere && "$CB" merge ../S >> ../t.csv'
  expect 2 "a trace of the sweep"; same t.csv t.ref; }
case_sweep_summary_appended_to_trace() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" sweep --traces t.csv --policies lru --capacities 0.1 --output S >> t.csv'
  expect 2 "a trace of the sweep"; same t.csv "$T/lirs-cs.csv"; [ ! -e S ] || fail LOST "S written by a refused sweep"; }
case_sweep_plan_appended_to_trace() { cp "$T/lirs-cs.csv" t.csv; runsh '"$CB" sweep --traces t.csv --policies lru --capacities 0.1 --plan >> t.csv'
  expect 2 "a trace of the sweep"; same t.csv "$T/lirs-cs.csv"; }
case_sweep_plan_appended_to_trace_list() { cp "$T/lirs-cs.csv" t.csv; echo t.csv > list.txt; cp list.txt ref
  runsh '"$CB" sweep --traces @list.txt --policies lru --capacities 0.1 --plan >> list.txt'
  expect 2 "the list of traces"; same list.txt ref; }
case_sweep_fifo_trace_refused_before_writing() { mkfifo ff; run sweep --traces ff --policies lru --capacities 0.1 --output S
  expect 2 "not a regular file"; [ ! -e S ] || fail LOST "S written by a refused sweep"
  run sweep --traces ff --policies lru --capacities 0.1 --plan; expect 2 "not a regular file"
  runsh '"$CB" sweep --traces <(cat "'"$T"'/loop.csv") --policies lru --capacities 0.1 --output S2'
  expect 2 "not a regular file"; [ ! -e S2 ] || fail LOST "S2 written by a refused sweep"; }
case_sweep_list_with_nul_names() { cp "$T/loop.csv" a.csv; cp a.csv b.csv; printf 'a.csv\0b.csv\n' > nul.txt
  run sweep --traces @nul.txt --policies lru --capacities 0.1 --output S; expect 65 "nul.txt:1:"; [ ! -e S ] || fail LOST "S written"; }
case_sweep_output_dash() { run sweep --traces "$T/loop.csv" --policies lru --capacities 0.1 --output -; expect 2 "--output -"
  [ ! -e ./- ] || fail LOST "a folder named - was made"; }
case_chart_named_svgz() { run mrc "$T/lirs-cs.csv" --ignore-size --points 4 --plot m.svgz; expect 2 "charts are SVG"; [ ! -e m.svgz ] || fail LOST "m.svgz written"; }
case_hexadecimal_timestamp() { printf 'timestamp,key,size\n0x10,a,10\n' > h.csv; run replay h.csv --policy lru --capacity 100; expect 65 "h.csv:2:"; }
case_line_feed_in_trace_name() { run replay "$(printf 'evil\nname.csv')" --policy lru --capacity 10; expect 66
  [ "$(wc -l < "$ERR")" = 1 ] || fail FAIL "the message spans $(wc -l < "$ERR") lines: $(head -c 200 "$ERR")"; }
case_convert_to_dev_stdout() { run convert "$T/lirs-cs.csv" --output /dev/stdout; expect 2 "convert writes a file, not standard output"
  run convert "$T/lirs-cs.csv" --output /dev/stderr; expect 2 "convert writes a file"; }
case_sweep_list_line_numbers_count_line_feeds() { cp "$T/loop.csv" a.csv; printf 'a.csv\fz.csv\r\n\0\n' > ff.txt
  run sweep --traces @ff.txt --policies lru --capacities 0.1 --output S; expect 65 "ff.txt:2:"; }
case_signal_in_commit_all_or_none() { echo a > r.txt; echo b > p.svg
  CACHEBENCH_FAULT_SIGNAL_IN_COMMIT=15 run_default_signals compare "$T/lirs-cs.csv" --policies lru,fifo --capacities 100 --ignore-size --output r.txt --plot p.svg
  [ "$RC" = 143 ] || fail FAIL "exit $RC, expected 143 (SIGTERM, acted on once the commit ended)"
  [ "$(cat r.txt)" != a ] && grep -q "<svg" p.svg || fail LOST "a signal during the commit split the outputs: r.txt $(head -c 20 r.txt), p.svg $(head -c 20 p.svg)"
  no_temps; }
case_signal_in_analyze_commit() { CACHEBENCH_FAULT_SIGNAL_IN_COMMIT=2 run_default_signals analyze "$T/lirs-cs.csv" --plot new/plots --output a.txt
  [ "$RC" = 130 ] || fail FAIL "exit $RC, expected 130 (SIGINT, acted on once the commit ended)"
  [ -s a.txt ] && [ -f new/plots/sizes.svg ] || fail LOST "a signal during the commit split the outputs: $(ls -R)"; no_temps; }

CASES=$(declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//')
one() { W=$(mktemp -d "${TMPDIR:-/tmp}/cachebench-hostile.XXXXXX"); ( cd "$W" && "case_$1" ); local rc=$?; rm -rf "$W"; return $rc; }
case "${1:---tally}" in
  --list) echo "$CASES" ;;
  --case) one "$2" ;;
  --tally)
    declare -A count=(); total=0
    for c in $CASES; do
      total=$((total + 1)); line=$(one "$c"); kind=${line%%:*}
      if [ -z "$line" ]; then kind=PASS; fi
      count[$kind]=$(( ${count[$kind]:-0} + 1 ))
      [ "$kind" = PASS ] || echo "$c: $line"
    done
    echo "cases: $total; $(for k in PASS CRASH HANG LOST WRONG FAIL; do printf '%s %s; ' "$k" "${count[$k]:-0}"; done)" ;;
esac
