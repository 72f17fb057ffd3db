#!/usr/bin/env bash
# Proves the exercises' checks are real. Run from anywhere; works from the repository root.
#   (c) every exercise has a README.md and a HINTS.md with at least three "## Hint" sections;
#   (d) Exercises/exercises.json lists exactly the exercise folders, with matching paths and test targets;
#   (a) with WORKSHOP_SOLUTIONS=1, every check passes against the reference solutions;
#   (b) against the untouched starters, each exercise's test target fails, every one of its checks fails,
#       and the output says the exercise "is not done yet", quoting the starter's own line to start from.
#   (c) against each wrong attempt kept in Exercises/Support/Proofs/WrongAttempts/, the exercise's checks fail and say
#       what its expect.txt lists: the mistake, in the learner's terms.
# The Exercises package builds with no warnings in its own sources, and passes `swift format lint --strict`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

fail() {
  echo "check-exercises: FAILED: $*" >&2
  exit 1
}
step() { printf '\n== check-exercises: %s\n' "$1"; }

step "files and exercises.json"
mapfile -t folders < <(cd Exercises && find . -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]-*' -printf '%f\n' | sort)
[ "${#folders[@]}" -gt 0 ] || fail "no exercise folders (Exercises/NN-name) found"
for id in "${folders[@]}"; do
  dir="Exercises/$id"
  [ -s "$dir/README.md" ] || fail "$dir has no README.md (the task)"
  [ -s "$dir/HINTS.md" ] || fail "$dir has no HINTS.md, or it is empty"
  hints=$(grep -c '^## Hint' "$dir/HINTS.md" || true)
  [ "$hints" -ge 3 ] || fail "$dir/HINTS.md has $hints '## Hint' sections; write at least 3, gentlest first"
  [ -d "$dir/Sources" ] || fail "$dir has no Sources/ folder (the starter)"
  [ -d "Exercises/Support/Proofs/Solutions/$id" ] || fail "exercise $id has no reference solution in Exercises/Support/Proofs/Solutions/$id"
  [ -d "Exercises/Tests/$id" ] || fail "exercise $id has no checks in Exercises/Tests/$id"
  grep -rq "throw ExerciseNotDone(\"$id\")" "$dir/Sources" ||
    fail "$dir/Sources has no 'throw ExerciseNotDone(\"$id\")': this script runs on the untouched starters (a fresh clone)"
  if grep -rn 'ExerciseNotDone("' "$dir/Sources" | grep -v "ExerciseNotDone(\"$id\")"; then
    fail "$dir/Sources throws another exercise's ExerciseNotDone (above); each starter names its own exercise"
  fi
done
# exercises.json: exactly the folders, in order, each with its sources and its test target.
python3 - "${folders[@]}" <<'PY' || fail "Exercises/exercises.json does not match the exercise folders (see above)"
import json, os, sys
folders = sys.argv[1:]
with open("Exercises/exercises.json") as f:
    entries = json.load(f)
ids = [entry.get("id") for entry in entries]
problems = []
if ids != folders:
    problems.append(f"exercises.json lists {ids}, the folders are {folders}")
for entry in entries:
    missing = [key for key in ("id", "stage", "title", "testTarget", "sources") if key not in entry]
    if missing:
        problems.append(f"{entry.get('id')}: missing {missing}")
        continue
    number = entry["id"][:2]
    if entry["testTarget"] != f"Exercise{number}Tests":
        problems.append(f"{entry['id']}: testTarget is {entry['testTarget']}, expected Exercise{number}Tests")
    if entry["sources"] != [f"Exercises/{entry['id']}/Sources"]:
        problems.append(f"{entry['id']}: sources is {entry['sources']}, expected ['Exercises/{entry['id']}/Sources']")
    if not isinstance(entry["stage"], int) or not entry["title"].strip():
        problems.append(f"{entry['id']}: stage must be a number and title non-empty")
for problem in problems:
    print("  " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
echo "${#folders[@]} exercises: ${folders[*]}"

step "build (no warnings in the Exercises sources)"
# --manifest-cache local, after removing that cache: the manifest reads exercises.json, which no manifest
# cache watches, so this script's first build compiles it afresh and its later runs reuse that one, as
# `workshop check` does (SwiftPM's shared cache could serve a stale list of exercises to a clone at a path
# used before).
# --scratch-path: the workspace's own build folder, as `workshop check` uses, so that the engine and the test
# scaffolding the root build compiled are reused rather than compiled again in Exercises/.build.
rm -f "$root/.build/manifest.db"
package=(--package-path Exercises --scratch-path "$root/.build" --manifest-cache local)
swift build "${package[@]}" --build-tests 2>&1 | tee "$logs/build.log"
# Once, in a build folder the workspace's package had just used, SwiftPM ran without "Planning build" and
# built none of the exercises: a build that leaves no ExerciseKit module is run again, so that the warnings
# below are looked for in a build that compiled the exercises.
if [ ! -e "$root/.build/debug/Modules/ExerciseKit.swiftmodule" ]; then
  echo "check-exercises: the build left no ExerciseKit module; building again"
  swift build "${package[@]}" --build-tests 2>&1 | tee "$logs/build.log"
fi
[ -e "$root/.build/debug/Modules/ExerciseKit.swiftmodule" ] ||
  fail "the Exercises package built, but no ExerciseKit module is in $root/.build (see above)"
if grep -E "^$root/Exercises/[^.].*(warning|error):" "$logs/build.log"; then
  fail "the Exercises package has warnings or errors in its own sources (above)"
fi

step "swift format lint"
# (swift-format skips hidden folders, so Exercises/.build is not linted.)
swift format lint --strict --configuration .swift-format -r Exercises

step "(a) the checks pass against the reference solutions (WORKSHOP_SOLUTIONS=1)"
if ! WORKSHOP_SOLUTIONS=1 swift test "${package[@]}" 2>&1 | tee "$logs/solutions.log"; then
  fail "with WORKSHOP_SOLUTIONS=1 some checks fail against the reference solutions (see above)"
fi
solution_tests=$(sed -nE 's/^✔ Test run with ([0-9]+) tests? .*passed.*/\1/p' "$logs/solutions.log" | tail -1)
[ -n "$solution_tests" ] && [ "$solution_tests" -gt 0 ] || fail "no checks ran against the reference solutions"

step "(b) every check fails against the untouched starters, saying the exercise is not done"
starter_failures=0
for id in "${folders[@]}"; do
  target="Exercise${id:0:2}Tests"
  log="$logs/starter-$id.log"
  if env -u WORKSHOP_SOLUTIONS swift test "${package[@]}" --filter "$target" >"$log" 2>&1; then
    cat "$log"
    fail "$target passed against the untouched starter of $id: its checks prove nothing"
  fi
  grep -q "Exercise $id is not done yet" "$log" || {
    cat "$log"
    fail "$target failed against the starter of $id, but without the message 'Exercise $id is not done yet'"
  }
  # Each exercise says its own way to start: the message quotes the starter's line that holds the error
  # (`throw ExerciseNotDone(...)`, or `completion(Result { throw ExerciseNotDone(...) })`…).
  starter_line=$(grep -rh "ExerciseNotDone(\"$id\")" "Exercises/$id/Sources" | head -1 | sed -E 's/^[[:space:]]+//')
  grep -qF -- "$starter_line" "$log" || {
    cat "$log"
    fail "against the starter of $id, the 'not done yet' message does not quote the starter's line: $starter_line"
  }
  failed=$(grep -E '^✘ Test ' "$log" | grep -vE '^✘ Test run ' | grep -cE ' failed after ' || true)
  not_done=$(grep -c "Exercise $id is not done yet" "$log" || true)
  passed=$(grep -E '^✔ Test ' "$log" | grep -vE '^✔ Test run ' || true)
  [ -z "$passed" ] || {
    echo "$passed"
    fail "against the untouched starter of $id these checks passed; every check must call the exercise's code"
  }
  [ "$failed" -gt 0 ] || {
    cat "$log"
    fail "$target ran no checks against the starter of $id"
  }
  [ "$not_done" -ge "$failed" ] || {
    cat "$log"
    fail "against the starter of $id, $failed checks failed but only $not_done said the exercise is not done yet"
  }
  echo "  $id: $target failed as it should ($failed of its checks failed, each saying it is not done yet)"
  starter_failures=$((starter_failures + failed))
done

step "(c) plausible wrong attempts fail with a message that names their mistake"
# Exercises/Support/Proofs/WrongAttempts/<exercise>/<attempt>/ holds files that replace the starter's files of the same
# name, and expect.txt: lines the check's output must contain. The starter is put back afterwards.
attempts=0
saved_id=""
put_back() {
  [ -n "$saved_id" ] || return 0
  rm -rf "Exercises/$saved_id/Sources" && cp -R "$logs/saved-sources" "Exercises/$saved_id/Sources" && rm -rf "$logs/saved-sources"
  saved_id=""
}
trap 'put_back; rm -rf "$logs"' EXIT
for dir in Exercises/Support/Proofs/WrongAttempts/*/*/; do
  [ -d "$dir" ] || continue
  dir=${dir%/}
  attempt=${dir#Exercises/Support/Proofs/WrongAttempts/}
  id=${attempt%%/*}
  [ -d "Exercises/$id/Sources" ] || fail "$dir: there is no exercise $id"
  [ -s "$dir/expect.txt" ] || fail "$dir has no expect.txt (the lines its check must print)"
  cp -R "Exercises/$id/Sources" "$logs/saved-sources"
  saved_id=$id
  for file in "$dir"/*.swift; do
    [ -f "Exercises/$id/Sources/$(basename "$file")" ] || fail "$file replaces no file of Exercises/$id/Sources"
    cp "$file" "Exercises/$id/Sources/"
  done
  log="$logs/attempt.log"
  target="Exercise${id:0:2}Tests"
  if env -u WORKSHOP_SOLUTIONS swift test "${package[@]}" --filter "$target" >"$log" 2>&1; then
    cat "$log"
    fail "$target passed against the wrong attempt $attempt"
  fi
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    grep -qF -- "$line" "$log" || { cat "$log"; fail "against the wrong attempt $attempt, $target did not say: $line"; }
  done <"$dir/expect.txt"
  put_back
  attempts=$((attempts + 1))
  echo "  $attempt: $target failed, naming the mistake"
done

echo
echo "check-exercises: OK: ${#folders[@]} exercises; $solution_tests checks pass against the reference solutions;" \
  "$starter_failures checks fail against the untouched starters with 'not done yet'; $attempts wrong attempts are told" \
  "their mistake; READMEs, hints and exercises.json in order."
