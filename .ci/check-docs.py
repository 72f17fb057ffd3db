#!/usr/bin/env python3
"""Every public declaration of the engine has a doc comment (`///`) above it (attributes may sit between).

Members that restate a protocol requirement (`description`, `==`, `hash(into:)`, `init(rawValue:)`,
`rawValue`) are exempt: their meaning is the protocol's.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Stages" / "ObjectGraph"
DECL = re.compile(r"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s+(?!extension)")
EXEMPT = re.compile(
    r"(var description|var debugDescription|static func ==|func hash\(into|init\(rawValue|let rawValue|static func ~=)"
)

missing = []
for path in sorted(ROOT.rglob("*.swift")):
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines):
        if not DECL.match(line) or EXEMPT.search(line):
            continue
        previous = number - 1
        while previous >= 0 and (lines[previous].strip().startswith("@") or lines[previous].strip() == ""):
            if lines[previous].strip() == "":
                break
            previous -= 1
        if previous < 0 or not lines[previous].strip().startswith("///"):
            missing.append(f"{path.relative_to(ROOT.parent.parent)}:{number + 1}: {line.strip()}")

if missing:
    print("Public symbols without a doc comment:")
    print("\n".join(missing))
    sys.exit(1)
print("Every public symbol of ObjectGraph has a doc comment.")
