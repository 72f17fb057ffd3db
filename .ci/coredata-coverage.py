#!/usr/bin/env python3
"""How much of Core Data's public Swift API the engine declares under Apple's own names.

Reads the checklist `../shared/reference/coredata-api.tsv` (Apple's symbol graph: one symbol a row, with a
status column where CloudKit, Spotlight, iCloud, deprecated and Objective-C-only symbols are `excluded`) and
the engine's public symbols (its symbol graph, from `swift package objectgraph-symbol-graph`, extensions of
Foundation's and Swift's types included), and counts a checklist symbol as present when the engine declares
the same dotted path (`NSManagedObjectContext.save()`, `NSPredicate.init(format:_:)`, `NSInsertedObjectsKey`).
Same path means same name and argument labels; types, optionality and throwing are not compared here (the
proof tests compile Core Data code against them). Synthesized members (`hashValue`, `!=`) count as present
when their type is.

Usage: python3 .ci/coredata-coverage.py [--tsv PATH] [--symbols DIR] [--missing]
  --missing   also print every missing symbol, grouped by its top-level type
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SYNTHESIZED = {"hashValue", "hash(into:)", "!=(_:_:)", "==(_:_:)", "init(rawValue:)", "rawValue", "RawValue"}
# What an option set has from `OptionSet`/`SetAlgebra`'s default implementations: present when Apple's type is an
# option set (the checklist lists `init(arrayLiteral:)` for it) and the engine declares the type.
SET_ALGEBRA = {
    "init(arrayLiteral:)", "isDisjoint(with:)", "isSuperset(of:)", "subtracting(_:)", "isStrictSubset(of:)",
    "isStrictSuperset(of:)", "isEmpty", "isSubset(of:)", "subtract(_:)", "init(_:)", "insert(_:)", "remove(_:)",
    "update(with:)", "contains(_:)", "intersection(_:)", "symmetricDifference(_:)", "union(_:)",
    "formIntersection(_:)", "formSymmetricDifference(_:)", "formUnion(_:)", "init()",
}


def symbol_dir() -> pathlib.Path:
    """Builds the engine's symbol graph and returns its folder."""
    marker = "ObjectGraph symbol graph: "
    output = subprocess.run(
        ["swift", "package", "objectgraph-symbol-graph"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    for line in output.splitlines():
        if line.startswith(marker):
            return pathlib.Path(line[len(marker):])
    sys.exit("coredata-coverage: the symbol-graph plugin printed no folder")


def engine_paths(folder: pathlib.Path) -> set[str]:
    """Every public symbol's dotted path, the engine's own and those it adds to other modules' types."""
    paths = set()
    for file in folder.glob("*.symbols.json"):
        for symbol in json.loads(file.read_text())["symbols"]:
            paths.add(".".join(symbol["pathComponents"]))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsv", default=str(ROOT.parent / "shared" / "reference" / "coredata-api.tsv"))
    parser.add_argument("--symbols", help="a symbol-graph folder (default: build one)")
    parser.add_argument("--missing", action="store_true")
    arguments = parser.parse_args()

    tsv = pathlib.Path(arguments.tsv)
    if not tsv.exists():
        sys.exit(f"coredata-coverage: no checklist at {tsv}; pass --tsv")
    present_paths = engine_paths(pathlib.Path(arguments.symbols) if arguments.symbols else symbol_dir())

    rows = [line.split("\t") for line in tsv.read_text().splitlines()[1:] if line.strip()]
    counted = [row for row in rows if len(row) > 3 and row[3] != "excluded"]
    option_sets = {row[0].rpartition(".")[0] for row in rows if row[0].endswith(".init(arrayLiteral:)")}
    present, missing = [], []
    for row in counted:
        path = row[0]
        owner, _, last = path.rpartition(".")
        inherited = last in SYNTHESIZED or (last in SET_ALGEBRA and owner in option_sets)
        if path in present_paths or (inherited and owner in present_paths):
            present.append(row)
        else:
            missing.append(row)

    share = 100 * len(present) / len(counted) if counted else 0
    print(f"Core Data's public Swift API (excluded rows left out): {len(present)} of {len(counted)} present ({share:.0f}%)")
    by_type = collections.Counter(row[0].split(".")[0] for row in missing)
    print("missing, by top-level name (most first):")
    for name, count in by_type.most_common(40):
        print(f"  {count:4}  {name}")
    if arguments.missing:
        groups = collections.defaultdict(list)
        for row in missing:
            groups[row[0].split(".")[0]].append(row)
        for name in sorted(groups):
            print(f"\n{name}")
            for row in groups[name]:
                print(f"  {row[0]}    {row[2]}")


if __name__ == "__main__":
    main()
