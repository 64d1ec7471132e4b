#!/usr/bin/env bash
# One phase of `make test`: `swift test ARGS...` with its whole output in LOG, its verdict lines on
# the terminal, and a time limit. A phase that runs past LIMIT seconds is stopped (the test process
# gets SIGQUIT first, for its backtrace), the tests it started and never ended are named, and the
# phase runs once more: a hang that comes back fails the phase, a rare one is said loudly (its log
# is kept as LOG.hung) and does not eat the run.
#   deploy/test-phase.sh LOG LIMIT swift test ARGS...
set -uo pipefail
log=$1 limit=$2
shift 2

# Runs the phase once into $log; status in $status, and $hung=1 when the watchdog stopped it.
run_once() {
    rm -f "$log.watchdog"
    : > "$log"
    "$@" > >(grep --line-buffered -v "prohibited flag" >> "$log") 2>&1 &
    local runner=$!
    ( sleep "$limit"
      touch "$log.watchdog"
      echo "== this phase ran past its $limit s: stopping it =="
      # Every thread of the hung test process (and of the flipbox and flipbox-lab processes it
      # started), in files beside the log; the frames in the project's own code are printed.
      for pid in $(pgrep -f "PackageTests\.xctest|debug/flipbox(-lab)? " | head -4); do
          if command -v gdb >/dev/null 2>&1; then
              timeout 90 gdb -p "$pid" -batch -ex "thread apply all bt 16" > "$log.threads-$pid" 2>&1
              echo "== threads of $(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null | cut -c1-120) ($log.threads-$pid) =="
              grep -E "^Thread |/(Sources|Tests)/" "$log.threads-$pid" | grep -B1 -E "/(Sources|Tests)/" | cut -c1-200 | head -60
          fi
      done
      pkill -QUIT -f "PackageTests\.xctest" 2>/dev/null; sleep 20
      pkill -KILL -f "PackageTests\.xctest" 2>/dev/null; kill "$runner" 2>/dev/null
    ) &
    local watchdog=$!
    tail -n +1 --pid="$runner" -f "$log" 2>/dev/null | grep --line-buffered -E "error:|✘|failed|passed after|Test run with|Executed" &
    local follower=$!
    wait "$runner"; status=$?
    kill "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null
    wait "$follower" 2>/dev/null
    hung=0; [ -f "$log.watchdog" ] && hung=1
    rm -f "$log.watchdog"
    if [ "$status" -ne 0 ] && ! grep -qE "Test run with .* (passed|failed)|Executed .* tests" "$log"; then
        # No summary: the run was stopped or crashed. The tests that started and never ended.
        echo "== tests started and never ended (the phase stopped with status $status) =="
        sed -nE 's/.*◇ Test ([^ (]+).* started\..*/\1/p' "$log" | sort -u > "$log.started"
        sed -nE 's/.*[✔✘] Test ([^ (]+).* (passed|failed) .*/\1/p' "$log" | sort -u > "$log.ended"
        comm -23 "$log.started" "$log.ended" | head -20
    fi
}

run_once "$@"
if [ "$hung" -eq 1 ]; then
    cp "$log" "$log.hung"
    echo "== HUNG: the phase is run once more; its first log is $log.hung =="
    run_once "$@"
    [ "$hung" -eq 1 ] && echo "== HUNG again: the same phase stopped twice =="
fi
exit "$status"
