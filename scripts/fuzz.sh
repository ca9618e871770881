#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/, ASan+UBSan, in build-fuzz with
# clang) and runs each on its checked-in corpus and then on new inputs for
# SECONDS (default 600) each, one harness at a time. CI runs it with 60.
#
#   scripts/fuzz.sh [SECONDS] [--merge] [HARNESS...]
#
# --merge adds the new inputs that reach new code (new edges) to
# tests/fuzz/corpus/ (libFuzzer's -merge=1 keeps only those). A crash, a sanitizer report, a
# leak or a broken invariant stops the harness, leaves the input in
# build-fuzz/crashes/ and fails the script; once fixed, the input goes into
# the harness's corpus as a regression input (README, "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600
merge=0
harnesses=()
for arg in "$@"; do
  case "$arg" in
    --merge) merge=1 ;;
    ''|*[!0-9]*) harnesses+=("$arg") ;;
    *) seconds=$arg ;;
  esac
done
[ ${#harnesses[@]} -gt 0 ] ||
  harnesses=(dot_import_fuzzer json_import_fuzzer json_readers_fuzzer capi_program_fuzzer cli_files_fuzzer)

if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDAG_FUZZ=ON -DDAG_BUILD_TESTS=OFF
fi
cmake --build build-fuzz --target "${harnesses[@]}"

declare -A dict=([dot_import_fuzzer]=tests/fuzz/dot.dict [json_import_fuzzer]=tests/fuzz/json.dict
                 [json_readers_fuzzer]=tests/fuzz/json.dict [cli_files_fuzzer]=tests/fuzz/cli_files.dict)
# Each program input reaches tens of thousands of features, and libFuzzer's
# entropic schedule spent 60% of the harness's time updating their frequencies
# (perf, 2026-11-30): without it the harness runs 2.6x the inputs a second and,
# in a 40-second comparison from the same corpus, kept more new ones.
declare -A extra=([capi_program_fuzzer]=-entropic=0)
# The readers' harness shares the JSON import harness's corpus.
declare -A corpus_of=([json_readers_fuzzer]=tests/fuzz/corpus/json_import_fuzzer)
mkdir -p build-fuzz/crashes
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for h in "${harnesses[@]}"; do
  corpus=${corpus_of[$h]:-tests/fuzz/corpus/$h}
  # New inputs go to a scratch corpus first; the checked-in one is only read.
  scratch=build-fuzz/corpus/$h
  mkdir -p "$scratch"
  args=(-max_total_time="$seconds" -timeout=20 -print_final_stats=1
        -artifact_prefix="build-fuzz/crashes/$h-")
  [ -z "${dict[$h]:-}" ] || args+=(-dict="${dict[$h]}")
  [ -z "${extra[$h]:-}" ] || args+=("${extra[$h]}")
  echo "=== $h: corpus $corpus, then ${seconds}s of new inputs"
  log=build-fuzz/$h.log
  if ! "build-fuzz/tests/fuzz/$h" "${args[@]}" "$scratch" "$corpus" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "=== $h FAILED: the input is in build-fuzz/crashes/" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^Done ' "$log" || true
  if [ "$merge" = 1 ]; then
    # By edges only (no hit counts), so that the checked-in corpus stays small.
    "build-fuzz/tests/fuzz/$h" -merge=1 -use_counters=0 "$corpus" "$scratch" > "build-fuzz/$h.merge.log" 2>&1
    grep -E 'MERGE-OUTER: [0-9]+ new files' "build-fuzz/$h.merge.log" || true
  fi
done
