#!/usr/bin/env bash
# A stop that comes after a vertex's callback began but before its command
# started: the vertex never ran, as the summary, the report and the trace
# say of any vertex that never ran (it was reported as run, with times, an
# attempt and a span, and missing from "never ran").
#
#   never_started_test.sh DAG SPAWN_GATE_LIBRARY
set -uo pipefail
dag=$1
gate_library=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'digraph { a; b }\n' > "$dir/g.dot"

DAG_TEST_SPAWN_GATE="$dir/gate" LD_PRELOAD="$gate_library" "$dag" walk --parallelism 2 --exec true \
    --report "$dir/report.json" --trace "$dir/trace.json" "$dir/g.dot" 2> "$dir/err" &
pid=$!
for _ in $(seq 3000); do
    [ -e "$dir/gate.entered" ] && break
    sleep 0.02
done
[ -e "$dir/gate.entered" ] || { echo "no callback reached the command's start" >&2; exit 1; }
kill -TERM "$pid"
# dag's signal thread marks the stop; the held callbacks then find it.
sleep 1
touch "$dir/gate"
wait "$pid"
status=$?
[ "$status" -eq 143 ] || { echo "exit status $status, not 143" >&2; cat "$dir/err" >&2; exit 1; }
grep -qx 'never ran: a' "$dir/err" && grep -qx 'never ran: b' "$dir/err" ||
    { echo "the summary does not list a and b as never ran:" >&2; cat "$dir/err" >&2; exit 1; }
python3 - "$dir/report.json" "$dir/trace.json" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
for v in report["vertices"]:
    assert v["status"] == "cancelled", v
    assert v["attempts"] == 0, v
    assert v["start_ms"] is None and v["end_ms"] is None, v
    assert v["message"] == "", v
trace = json.load(open(sys.argv[2]))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
spans = [e for e in events if e.get("ph") == "X"]
assert spans == [], spans
PY
