#!/usr/bin/env bash
# CI: the concurrency tests under ThreadSanitizer. Fails when a test fails, and when TSan reports anything
# even if every test passed (a race report does not fail a test by itself). Builds into its own scratch
# path, .build-tsan, so the normal .build stays valid. Run from anywhere; it works from the repo root.
#
# Covers the suites whose type names match the filter: Concurrency (ConcurrencyTests, ConcurrencyDebugTests),
# Nested (NestedContextTests) and RelationshipResolution (reads of a relationship's entities racing the
# release of their model). Exit tests run their child processes under TSan too, but a child's
# output is not in this log: a race there only shows when it changes the child's exit status.
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${TSAN_FILTER:-Concurrency|Nested|RelationshipResolution}
log=.build-ci-tsan.log
start=$(date +%s)

status=0
swift test --sanitize=thread --scratch-path .build-tsan --filter "$filter" 2>&1 | tee "$log" || status=$?

if grep -q "WARNING: ThreadSanitizer" "$log"; then
  echo "CI: ThreadSanitizer reported $(grep -c "WARNING: ThreadSanitizer" "$log") problem(s); the first one:" >&2
  sed -n '/WARNING: ThreadSanitizer/,/^SUMMARY: ThreadSanitizer/p' "$log" | head -60 >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "CI: the tests failed under ThreadSanitizer (exit status $status)" >&2
  exit "$status"
fi
if ! grep -q "Test run with .* passed" "$log"; then
  echo "CI: no Swift Testing run was found in the output; is the filter '$filter' right?" >&2
  exit 1
fi
echo "TSan: clean ($(( $(date +%s) - start ))s)"
