#!/usr/bin/env bash
# Build times, as a report every change can compare (Benchmarks/BUILD-TIMES.md):
#   - the debug build of the engine alone (ObjectGraph with GRDB and SHA256), from an empty build folder;
#   - the rest of the debug build with the tests (`swift build --build-tests` after it), and the sum;
#   - the function bodies that took longest to type-check (top 10 at or over the threshold);
#   - the debug build's modules by the CPU their compiler jobs took (-stats-output-dir), with when each
#     was compiled: SwiftPM starts a module once the modules it imports are wholly compiled;
#   - the release build of the engine, and its whole-module step (the frontend job that compiles
#     ObjectGraph with -O), split into the compiler's phases.
# It builds in .build-times/ (removed first), so the workspace's .build is left alone. About five to eight
# minutes on two idle cores; --no-release leaves out the release half (about half of that).
#
#   .ci/build-times.sh [--no-release] [--threshold MS] [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
release=1
threshold=100
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-release) release=0 ;;
    --threshold) threshold=$2; shift ;;
    --keep) keep=1 ;;
    *) echo "build-times: unknown option $1 (use --no-release, --threshold MS, --keep)" >&2; exit 2 ;;
  esac
  shift
done

scratch="$root/.build-times"
rm -rf "$scratch"
mkdir -p "$scratch/stats" "$scratch/debug-stats"
[ "$keep" = 1 ] || trap 'rm -rf "$scratch"' EXIT

load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
# Runs a build, its output to a log; prints the seconds it took.
timed() {
  local log=$1
  shift
  local start end
  start=$(date +%s.%N)
  if ! "$@" >"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "build-times: FAILED: $*" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}

echo "build-times: $(swift --version 2>/dev/null | head -1)"
echo "build-times: $(nproc) cores; load average $(load) before the first build (figures move with the load)"
swift package --scratch-path "$scratch/debug" resolve >/dev/null 2>&1

# The type-checking times and each compiler job's CPU come from the same builds: both cost little.
typecheck=(-Xswiftc -Xfrontend -Xswiftc -debug-time-function-bodies -Xswiftc -stats-output-dir -Xswiftc "$scratch/debug-stats")
echo
engine=$(timed "$scratch/engine.log" swift build --scratch-path "$scratch/debug" --target ObjectGraph "${typecheck[@]}")
engine_load=$(load)
rest=$(timed "$scratch/all.log" swift build --scratch-path "$scratch/debug" --build-tests "${typecheck[@]}")
rest_load=$(load)
total=$(python3 -c "print(f'{$engine + $rest:.1f}')")
printf '%-66s %7s s   (load %s)\n' "debug, the engine alone (swift build --target ObjectGraph)" "$engine" "$engine_load"
printf '%-66s %7s s   (load %s)\n' "debug, the rest with the tests (swift build --build-tests after it)" "$rest" "$rest_load"
printf '%-66s %7s s\n' "debug, everything" "$total"

echo
echo "slowest function bodies to type-check (at least $threshold ms, top 10; all modules of the workspace):"
# Lines are `123.45ms<TAB>/path/File.swift:12:8<TAB>description`; a body compiled in several jobs is counted once.
cat "$scratch/engine.log" "$scratch/all.log" | python3 -c '
import sys
root, threshold = sys.argv[1] + "/", float(sys.argv[2])
best = {}
for line in sys.stdin:
    parts = line.rstrip("\n").split("\t")
    if len(parts) < 3 or not parts[0].endswith("ms") or not parts[1].startswith(root):
        continue
    try:
        ms = float(parts[0][:-2])
    except ValueError:
        continue
    place = parts[1][len(root):]
    # The packages SwiftPM checked out (GRDB, ArgumentParser) sit in the hidden build folder: not ours.
    if place.startswith(".") or "/." in place:
        continue
    name = parts[2].split("@")[0]
    best[place] = max(best.get(place, (0, ""))[0], ms), name
slow = sorted(((ms, place, name) for place, (ms, name) in best.items() if ms >= threshold), reverse=True)
for ms, place, name in slow[:10]:
    print(f"  {ms:8.0f} ms  {place}  {name[:90]}")
total = sum(ms for ms, _ in best.values())
print(f"  ({len(slow)} bodies at or over {threshold:.0f} ms; all {len(best)} bodies together: {total / 1000:.1f} s of type-checking)")
' "$root" "$threshold"

echo
echo "debug build, the modules by the CPU of their compiler jobs (user + system; linking not included):"
# One JSON file per frontend job (-stats-output-dir), named stats-<start in microseconds>-swift-frontend-<module>-...
python3 - "$scratch/debug-stats" "$scratch/debug" <<'PY'
import collections, glob, json, os, re, sys
modules = collections.defaultdict(lambda: {"cpu": 0.0, "jobs": 0, "start": float("inf"), "end": 0.0})
for path in glob.glob(f"{sys.argv[1]}/*.json"):
    found = re.match(r"stats-(\d+)-swift-frontend-([^-]+)-", os.path.basename(path))
    if not found:
        continue
    stats = json.load(open(path))
    wall = next((k for k in stats if k.startswith("time.swift-frontend.") and k.endswith(".wall")), None)
    if wall is None:
        continue
    start = int(found.group(1)) / 1e6
    module = modules[found.group(2)]
    module["cpu"] += stats[wall[:-5] + ".user"] + stats[wall[:-5] + ".sys"]
    module["jobs"] += 1
    module["start"] = min(module["start"], start)
    module["end"] = max(module["end"], start + stats[wall])
if modules:
    first = min(m["start"] for m in modules.values())
    total = sum(m["cpu"] for m in modules.values())
    for name, m in sorted(modules.items(), key=lambda item: -item[1]["cpu"])[:12]:
        print(f"  {m['cpu']:7.1f} s CPU  {m['cpu'] / total:4.0%}  {m['jobs']:3} jobs  compiled {m['start'] - first:5.0f}-{m['end'] - first:5.0f} s  {name}")
    print(f"  ({len(modules)} modules, {total:.1f} s of CPU in compiler jobs: on {os.cpu_count()} cores no build is shorter than {total / os.cpu_count():.0f} s)")
PY

if [ "$release" = 1 ]; then
  echo
  seconds=$(timed "$scratch/release.log" swift build -c release --scratch-path "$scratch/release" --target ObjectGraph \
    -Xswiftc -stats-output-dir -Xswiftc "$scratch/stats")
  printf '%-66s %7s s   (load %s)\n' "release, the engine (swift build -c release --target ObjectGraph)" "$seconds" "$(load)"
  # The frontend's own statistics (-stats-output-dir): one JSON file per job, wall-clock seconds per phase.
  python3 - "$scratch/stats" <<'PY'
import glob, json, sys
for module in ["ObjectGraph", "GRDB"]:
    files = glob.glob(f"{sys.argv[1]}/*-swift-frontend-{module}-*.json")
    if not files:
        continue
    stats = json.load(open(files[0]))
    total = next((v for k, v in stats.items() if k.startswith("time.swift-frontend.") and k.endswith(".wall")), 0)
    phases = {
        "type checking": stats.get("time.swift.Type checking and Semantic analysis.wall", 0),
        "SIL optimization": stats.get("time.swift.SIL optimization.wall", 0),
        "IRGen": stats.get("time.swift.IRGen.wall", 0),
        "LLVM": stats.get("time.swift.LLVM pipeline.wall", 0),
    }
    split = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in phases.items())
    print(f"  whole-module step of {module}: {total:.1f} s ({split}); "
          f"{stats.get('AST.NumSourceLines', 0):,} source lines, {stats.get('IRModule.NumIRInsts', 0):,} LLVM instructions")
PY
fi
