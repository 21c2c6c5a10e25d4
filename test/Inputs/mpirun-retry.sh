#!/usr/bin/env bash
# Runs an MPI launcher command line, and runs it again (at most three
# times in all) when Open MPI 4.1 could not create its session directory
# because another launcher of the same suite created it at the same
# moment ("A call to mkdir was unable to create the desired directory ...
# File exists", then orte_session_dir failed). lit runs tests in parallel;
# that race is Open MPI's, not the program's. Standard output and error
# stay apart, and the exit status is the last run's.
set -u
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
for attempt in 1 2 3; do
  "$@" >"$out" 2>"$err"
  status=$?
  if [ "$status" -ne 0 ] && grep -q "orte_session_dir failed" "$out" "$err"; then
    sleep "$attempt"
    continue
  fi
  break
done
cat "$out"
cat "$err" >&2
exit "$status"
