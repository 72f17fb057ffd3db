#!/usr/bin/env python3
"""Checks the engine's layering: each folder of Stages/ObjectGraph uses only the types of the folders
its row in Docs/ObjectGraph.md's layer table allows, and imports only the modules that row names.

The table sits between `<!-- layers:begin -->` and `<!-- layers:end -->`. Each row reads
  | `Folder/` | what it owns | `Other/`, `Third/` (only `TypeA`, `TypeB`: why) | `GRDB` |
A folder named alone may be used wholly; one followed by "(only ...)" may be used for the backquoted
type names in the parentheses only. The last column lists the modules the folder may import besides
Foundation, Dispatch, Synchronization and the C library ("—" for none).

A type belongs to the folder whose file declares it at the top level (struct, class, enum, protocol,
typealias, actor). Uses are the identifiers of a file once comments and string literals are removed; a
name the using folder itself declares, at any depth (`SQLiteSchema.NSEntityMapping` in Store/), is taken
to mean its own type.
Members count too: a function or property that a folder declares in an extension of another folder's type (or
of a type from outside the engine), and a top-level function, belong to the declaring folder. A use of one of
them (`.mappingModels(`, or the function's name) from another folder is a use of the declaring folder, which
that folder's row must allow; where its row allows a folder for named types only, it must name the member too.
Only members whose name the engine declares once are followed, so that a common name (`name`, `count`) makes no
edge.
The table must also describe layers: read as a graph (a folder to each folder its row may use), it has
no loop, apart from the one pair of folders the line `Allowed mutual pair: `A/` ↔ `B/`` below the table
names (they may use each other, and are taken as one folder when loops are looked for). A loop is named
folder by folder.
Run from the repository root: `python3 .ci/check-layers.py`. Exits 1 and names each forbidden use.
"""
import os
import re
import sys

ENGINE = "Stages/ObjectGraph"
DOC = "Docs/ObjectGraph.md"
ALWAYS_IMPORTABLE = {"Foundation", "Dispatch", "Synchronization", "Glibc", "Musl", "Darwin"}

DECLARATION = re.compile(
    r"^(?:(?:public|open|internal|package|private|fileprivate|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:struct|class|enum|protocol|typealias|actor)\s+([A-Za-z_]\w*)",
    re.M,
)
ANY_DECLARATION = re.compile(
    r"^\s*(?:(?:public|open|internal|package|private|fileprivate|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:struct|class|enum|protocol|typealias|actor)\s+([A-Za-z_]\w*)",
    re.M,
)
EXTENSION = re.compile(
    r"^(?:(?:public|internal|package|private|fileprivate|@\w+(?:\([^)]*\))?)\s+)*extension\s+([A-Za-z_][\w.]*)"
)
TOP_LEVEL_FUNCTION = re.compile(
    r"^(?:(?:public|internal|package|private|fileprivate|@\w+(?:\([^)]*\))?)\s+)*func\s+([A-Za-z_]\w*)"
)
MEMBER = re.compile(
    r"^\s*(?:(?:public|open|internal|package|private|fileprivate|final|static|class|override|nonisolated|mutating"
    r"|@\w+(?:\([^)]*\))?)\s+)*(?:func|var|let)\s+([A-Za-z_]\w*)",
    re.M,
)
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?import\s+(\w+)", re.M)


def strip_comments_and_strings(source):
    source = re.sub(r'#*"""[\s\S]*?"""#*', '""', source)
    source = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)
    source = re.sub(r"/\*[\s\S]*?\*/", "", source)
    return re.sub(r"//[^\n]*", "", source)


def declared_members(source):
    """The members `source` declares in its top-level extensions, as (name, extended type), and its top-level
    functions, as (name, None); `source` has its comments and strings removed."""
    found, depth, extended = [], 0, None
    for line in source.split("\n"):
        if depth == 0:
            match = EXTENSION.match(line)
            extended = match.group(1) if match else None
            function = TOP_LEVEL_FUNCTION.match(line)
            if function:
                found.append((function.group(1), None))
        elif depth == 1 and extended:
            member = MEMBER.match(line)
            if member:
                found.append((member.group(1), extended))
        depth += line.count("{") - line.count("}")
    return found


def read_rules():
    text = open(DOC, encoding="utf-8").read()
    match = re.search(r"<!-- layers:begin -->([\s\S]*?)<!-- layers:end -->", text)
    if not match:
        sys.exit(f"check-layers: {DOC} has no <!-- layers:begin --> ... <!-- layers:end --> table")
    rules = {}
    pair = re.search(r"Allowed mutual pair: `(\w+)/` ↔ `(\w+)/`", match.group(1))
    for line in match.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        folder = cells[0].strip("`").rstrip("/")
        allowed = {}
        # `Folder/` or `Folder/` (only `A`, `B`: reason)
        for used, restriction in re.findall(r"`(\w+)/`(?:\s*\(only ([^)]*)\))?", cells[2]):
            allowed[used] = set(re.findall(r"`(\w+)`", restriction.split(":")[0])) if restriction else None
        imports = set(re.findall(r"`(\w+)`", cells[3]))
        rules[folder] = (allowed, imports)
    return rules, (pair.group(1), pair.group(2)) if pair else None


def find_loop(rules, pair):
    """A loop of the table's graph as a list of folders (first == last), or None. The folders of `pair`
    count as one node, so their mutual use is no loop but a loop through either of them is."""
    merged = {}
    if pair:
        merged = {pair[0]: f"{pair[0]}+{pair[1]}", pair[1]: f"{pair[0]}+{pair[1]}"}
    node = lambda folder: merged.get(folder, folder)
    graph = {}
    for folder, (allowed, _) in rules.items():
        targets = graph.setdefault(node(folder), set())
        targets.update(node(used) for used in allowed if node(used) != node(folder))
    state, stack = {}, []

    def visit(current):
        state[current] = "open"
        stack.append(current)
        for target in sorted(graph.get(current, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                loop = visit(target)
                if loop:
                    return loop
        stack.pop()
        state[current] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            loop = visit(start)
            if loop:
                return loop
    return None


def main():
    rules, pair = read_rules()
    folders = sorted(f for f in os.listdir(ENGINE) if os.path.isdir(os.path.join(ENGINE, f)))
    problems = [f"{ENGINE}/{f}/ has no row in the layer table of {DOC}: add one" for f in folders if f not in rules]
    problems += [f"{DOC}'s layer table names {f}/, which is not a folder of {ENGINE}" for f in rules if f not in folders]
    loop = find_loop(rules, pair)
    if loop:
        shown = " -> ".join(f"{folder.replace('+', '/ + ')}/" for folder in loop)
        problems.append(
            f"{DOC}'s layer table has a loop: {shown} (each may use the next). Layers use only the layers below "
            + (f"them; only {pair[0]}/ and {pair[1]}/ may use each other. " if pair else "them. ")
            + "Move the type that closes the loop down, or pass what the lower folder needs as a value or a protocol."
        )
    owner, files, local = {}, {}, {}
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(ENGINE, folder)):
            for name in sorted(names):
                if name.endswith(".swift"):
                    path = os.path.join(directory, name)
                    files.setdefault(folder, []).append(path)
                    text = open(path, encoding="utf-8").read()
                    for declared in DECLARATION.findall(text):
                        owner[declared] = folder
                    local.setdefault(folder, set()).update(ANY_DECLARATION.findall(text))
    # Members declared across folders: name -> declaring folder, for names the engine declares once.
    declarations, candidates, stripped_sources = {}, [], {}
    for folder, paths in files.items():
        for path in paths:
            source = stripped_sources[path] = strip_comments_and_strings(open(path, encoding="utf-8").read())
            for name in MEMBER.findall(source):
                declarations[name] = declarations.get(name, 0) + 1
            candidates += [(name, extended, folder) for name, extended in declared_members(source)]
    member_owner = {}
    for name, extended, folder in candidates:
        if declarations.get(name) != 1 or (extended and owner.get(extended.split(".")[0]) == folder):
            continue  # a common name, or a member of the folder's own type (the type's use is the edge)
        member_owner[name] = (folder, extended)
    member_edges = 0
    edges = 0
    for folder, paths in files.items():
        allowed, imports = rules.get(folder, ({}, set()))
        for path in paths:
            source = open(path, encoding="utf-8").read()
            for module in IMPORT.findall(source):
                if module not in ALWAYS_IMPORTABLE and module not in imports:
                    problems.append(f"{path}: imports {module}, which {folder}/ may not (its row allows: {sorted(imports) or 'none'})")
            stripped = stripped_sources[path]
            for name in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", stripped))):
                used = owner.get(name)
                if used is None or used == folder or name in local.get(folder, set()):
                    continue
                edges += 1
                if used not in allowed:
                    problems.append(f"{path}: uses {name} from {used}/, and {folder}/ may not use {used}/")
                elif allowed[used] is not None and name not in allowed[used]:
                    problems.append(f"{path}: uses {name} from {used}/, and {folder}/ may use only {sorted(allowed[used])} from it")
            for name, (used, extended) in sorted(member_owner.items()):
                if used == folder:
                    continue
                pattern = r"\b" + re.escape(name) + r"\b" if extended is None else r"\." + re.escape(name) + r"\b"
                if not re.search(pattern, stripped):
                    continue
                member_edges += 1
                what = f"{name}" + (f" (declared in {used}/ on {extended})" if extended else f" (a function of {used}/)")
                if used not in allowed:
                    problems.append(f"{path}: uses {what}, and {folder}/ may not use {used}/")
                elif allowed[used] is not None and name not in allowed[used]:
                    problems.append(
                        f"{path}: uses {what}, and {folder}/ may use only {sorted(allowed[used])} from {used}/: name it there"
                    )
    if problems:
        print("The engine's layering is broken (rules: the layer table in Docs/ObjectGraph.md):")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(
        f"layers: {len(folders)} folders, {len(owner)} types, {edges} cross-folder uses of types and {member_edges} of"
        + f" members, all allowed by {DOC};"
        + f" the table has no loop" + (f" (apart from the mutual pair {pair[0]}/ ↔ {pair[1]}/)" if pair else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
