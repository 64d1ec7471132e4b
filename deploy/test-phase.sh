#!/usr/bin/env bash
# One phase of `make test`: `swift test ARGS...` with its whole output in LOG, its verdict lines on
# the terminal, and a time limit. A phase that runs past LIMIT seconds is stopped, and the tests it
# started and never ended are named, so a hang in CI says where it is instead of eating the run.
#   deploy/test-phase.sh LOG LIMIT swift test ARGS...
set -uo pipefail
log=$1 limit=$2
shift 2

"$@" > >(grep --line-buffered -v "prohibited flag" > "$log") 2>&1 &
runner=$!
( sleep "$limit"
  echo "== this phase ran past its $limit s: stopping it =="
  # The test process itself (swift test runs it as a child): a hung process shows its backtrace.
  pkill -QUIT -f "PackageTests\.xctest" 2>/dev/null; sleep 20
  pkill -KILL -f "PackageTests\.xctest" 2>/dev/null; kill "$runner" 2>/dev/null
) &
watchdog=$!
tail -n +1 --pid="$runner" -F "$log" 2>/dev/null | grep --line-buffered -E "error:|✘|failed|passed after|Test run with|Executed" &
follower=$!
wait "$runner"; status=$?
kill "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null
wait "$follower" 2>/dev/null

if [ "$status" -ne 0 ] && ! grep -qE "Test run with .* (passed|failed)|Executed .* tests" "$log"; then
    # No summary: the run was stopped or crashed. The tests that started and never ended.
    echo "== tests started and never ended (the phase stopped with status $status) =="
    sed -nE 's/.*◇ Test ([^ (]+).* started\..*/\1/p' "$log" | sort -u > "$log.started"
    sed -nE 's/.*[✔✘] Test ([^ (]+).* (passed|failed) .*/\1/p' "$log" | sort -u > "$log.ended"
    comm -23 "$log.started" "$log.ended" | head -20
fi
exit "$status"
