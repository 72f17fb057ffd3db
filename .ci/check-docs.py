#!/usr/bin/env python3
"""Every public declaration of the engine has a doc comment (`///`) above it (attributes may sit between),
and every public type is named in Docs/ObjectGraph.md's section "The public API".

Members that restate a protocol requirement (`description`, `==`, `hash(into:)`, `init(rawValue:)`,
`rawValue`) are exempt: their meaning is the protocol's.

A type counts as named when it appears in a code span of that section (`NSFetchRequest`, or
`NSFetchRequest<Result>`); a nested type needs its full name (`NSManagedObjectContext.ConcurrencyType`).
Nesting is read from the indentation, which `swift format` keeps exact.
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

TYPE = re.compile(
    r"^(?P<indent> *)(@\w+(\([^)]*\))?\s+)*(public|open)\s+((final|indirect)\s+)*"
    r"(class|struct|enum|protocol|actor|typealias)\s+(?!(func|var|let|subscript|init)\b)(?P<name>\w+)"
)
# A line that opens a scope a nested type can sit in: a type or an extension, at any access level.
SCOPE = re.compile(
    r"^(?P<indent> *)(@\w+(\([^)]*\))?\s+)*((public|open|internal|package|fileprivate|private|final|indirect)\s+)*"
    r"(?P<kind>class|struct|enum|protocol|actor|extension)\s+(?!(func|var|let|subscript|init)\b)(?P<name>[\w.]+)"
)


def public_types() -> dict[str, str]:
    """Every public type of the engine, by its full name (`Outer.Inner`), with where it is declared."""
    found: dict[str, str] = {}
    for path in sorted(ROOT.rglob("*.swift")):
        scopes: list[tuple[int, str]] = []
        for number, line in enumerate(path.read_text().splitlines()):
            if not line.strip() or line.strip().startswith("//"):
                continue
            indent = len(line) - len(line.lstrip(" "))
            while scopes and scopes[-1][0] >= indent:
                scopes.pop()
            outer = scopes[-1][1] + "." if scopes else ""
            if match := TYPE.match(line):
                found[outer + match.group("name")] = f"{path.relative_to(ROOT.parent.parent)}:{number + 1}"
            if (match := SCOPE.match(line)) and not line.rstrip().endswith("}"):
                name = match.group("name")
                scopes.append((indent, name if match.group("kind") == "extension" else outer + name))
    return found


def api_section() -> str:
    text = (ROOT.parent.parent / "Docs" / "ObjectGraph.md").read_text()
    start = text.find("\n## The public API\n")
    if start < 0:
        sys.exit('Docs/ObjectGraph.md has no section "## The public API": it lists every public type of the engine.')
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


spans = re.findall(r"`([^`]+)`", api_section())
named = {name for span in spans for name in re.findall(r"[A-Za-z_][\w.]*", span)}
unnamed = [f"{where}: {name}" for name, where in sorted(public_types().items()) if name not in named]

if missing:
    print("Public symbols without a doc comment:")
    print("\n".join(missing))
if unnamed:
    print('Public types that Docs/ObjectGraph.md\'s "The public API" does not name (add each, by area, with Core')
    print("Data's name beside it; a nested type by its full name, `Outer.Inner`):")
    print("\n".join(unnamed))
if missing or unnamed:
    sys.exit(1)
print(f'Every public symbol of ObjectGraph has a doc comment, and "The public API" names all {len(public_types())} public types.')
