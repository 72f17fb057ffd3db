#!/usr/bin/env python3
"""Checks the engine's layering: each folder of Stages/ObjectGraph uses only the types of the folders
its row in Docs/ObjectGraph.md's layer table allows, and imports only the modules that row names.

The table sits between `<!-- layers:begin -->` and `<!-- layers:end -->`. Each row reads
  | `Folder/` | what it owns | `Other/`, `Third/` (only `TypeA`, `member`, `TypeB(label:)`: why) | `GRDB` |
A folder named alone may be used wholly; one followed by "(only ...)" may be used for the backquoted
type, member and initialiser names in the parentheses only (those before the first colon outside backquotes;
what follows it says why). The last column lists the modules the folder may import besides Foundation,
Dispatch, Synchronization and the C library ("—" for none).

A type belongs to the folder whose file declares it at the top level (struct, class, enum, protocol,
typealias, actor). Uses are the identifiers of a file once comments and string literals (interpolations
too) are removed; a name the using folder itself declares, at any depth (`SQLiteSchema.NSEntityMapping` in
Store/), is taken to mean its own type.
Members count too: a function or property that a folder declares in an extension of another folder's type (or
of a type from outside the engine), and a top-level function, belong to the declaring folder. A use of one of
them (`.mappingModels(`, or the function's name) from another folder is a use of the declaring folder, which
that folder's row must allow; where its row allows a folder for named types only, it must name the member too.
Only members whose name the engine declares once are followed, so that a common name (`name`, `count`) makes no
edge.
Initialisers count too: an `init` (`init?`, `convenience init`, `required init`, ...) that a folder declares in
an extension of another folder's type (or of a type from outside the engine) belongs to the declaring folder. It
is known by its type and argument labels, written as Swift's documentation writes them:
`NSManagedObjectModel(loadingContentsOf:)`, `FetchPredicate(_:)` (`_` for an unlabeled argument); a row that
allows the declaring folder for named types only names the initialiser so. A call `Type(label: ...)` (or
`Type.init(label: ...)`, or `Type.init(label:)` as a function) is a use of the initialiser whose parameters its
labels fit (a defaulted parameter may be left out; a variadic one takes unlabeled arguments after its first); in a
type's own body or extensions, `self.init(...)` calls one of that type's. A call is followed only when exactly one
initialiser the engine declares for the type (in its body or any extension) fits it, so an initialiser declared
twice, or overloaded by argument types only (`init(_ x: Int)` and `init(_ x: String)`), makes no edge.
Not followed: a call with no arguments (`Type()`: implicit and inherited initialisers, which the check does not
see, answer it too); on a type from outside the engine, a call whose first argument is unlabeled (Foundation's
`init(_:)`s are unknown to the check); `.init(...)` with the type left to inference; an initialiser of a protocol
extension (it is called through a conforming type); an initialiser whose closure argument is written as a trailing
closure (the labels in the parentheses fit none); types and extensions inside `#if` (indented), as for types and
members.
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
INIT = re.compile(
    r"^\s*(?:(?:public|open|internal|package|private|fileprivate|final|convenience|required|override|nonisolated"
    r"|@\w+(?:\([^)]*\))?)\s+)*init[?!]?\s*(?:<[^>]*>)?\s*\("
)
# A line that opens a type's body (its `{` may come on a later line): group 1 is the type's name.
TYPE_OPENING = re.compile(
    r"^\s*(?:(?:public|open|internal|package|private|fileprivate|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:struct|class|enum|protocol|actor|extension)\s+([A-Za-z_][\w.]*)"
)
NOT_A_TYPE_NAME = {"func", "var", "let", "init", "subscript"}  # `class func f()`, `class var x`
# An initialiser's name in the layer table: `Type(label:label:)`.
TABLE_NAME = r"`([A-Za-z_][\w.]*(?:\((?:\w+:)*\))?)`"
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?import\s+(\w+)", re.M)


COMMENT_OR_STRING = re.compile(r'//|/\*|#*"')


def strip_comments_and_strings(source):
    """`source` without its comments, and with each string literal, interpolations included, as `""`."""
    kept, index = [], 0
    while True:
        found = COMMENT_OR_STRING.search(source, index)
        if not found:
            return "".join(kept + [source[index:]])
        kept.append(source[index : found.start()])
        if found.group() == "//":
            index = source.find("\n", found.start())  # the comment ends at its line's end (kept), or the file's
            if index < 0:
                index = len(source)
        elif found.group() == "/*":
            index = end_of_comment(source, found.start())
        else:
            index = end_of_string(source, found.start())
            kept.append('""')


def end_of_comment(source, index):
    """The index just past the block comment that starts at `index` (Swift's block comments nest)."""
    depth = 0
    for found in re.compile(r"/\*|\*/").finditer(source, index):
        depth += 1 if found.group() == "/*" else -1
        if depth == 0:
            return found.end()
    return len(source)


def end_of_string(source, index):
    """The index just past the string literal that starts at `index` (one quote, three, or a raw `#"`), reading
    its interpolations as code, so that a string literal inside one does not end the outer literal."""
    hashes = len(source[index:]) - len(source[index:].lstrip("#"))
    index += hashes
    quotes = '"""' if source.startswith('"""', index) else '"'
    index += len(quotes)
    closing_quotes, escape = quotes + "#" * hashes, "\\" + "#" * hashes
    # Where the literal may end (its closing quotes, or the end of the line for one quote) or an escape starts.
    landmark = re.compile(re.escape(closing_quotes) + "|" + re.escape(escape) + ("|\n" if quotes == '"' else ""))
    while True:
        found = landmark.search(source, index)
        if not found:
            return len(source)
        if found.group() == closing_quotes:
            return found.end()
        if found.group() == "\n":
            return found.start()  # an unterminated literal ends at its line
        index = found.end()
        if not source.startswith("(", index):
            index += 1  # an escaped character
            continue
        depth = 0  # an interpolation: code up to its closing parenthesis, string literals included
        for code in re.compile(r'[()]|#*"').finditer(source, index):
            if code.start() < index:
                continue  # inside a string literal just skipped
            if code.group() in "()":
                depth += 1 if code.group() == "(" else -1
                index = code.end()
                if depth == 0:
                    break
            else:
                index = end_of_string(source, code.start())


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


def closing(text, start, angles=False):
    """The index of the bracket that closes the one at `text[start]` (`(`, `[` or `{`; `<` too when `angles`)."""
    depth = 0
    for index in range(start, len(text)):
        character = text[index]
        if character in "([{" or (angles and character == "<"):
            depth += 1
        elif character in ")]}" or (angles and character == ">" and text[index - 1] != "-"):
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def split_top_level(text, angles=False):
    """`text` split at the commas outside brackets (and outside `<...>` when `angles`, for parameter types)."""
    pieces, depth, start = [], 0, 0
    for index, character in enumerate(text):
        if character in "([{" or (angles and character == "<"):
            depth += 1
        elif character in ")]}" or (angles and character == ">" and text[index - 1] != "-"):
            depth -= 1
        elif character == "," and depth == 0:
            pieces.append(text[start:index])
            start = index + 1
    pieces.append(text[start:])
    return [piece for piece in pieces if piece.strip()]


def parameters(text):
    """An initialiser's parameter list (the text between its parentheses) as (label, has a default, is variadic)
    per parameter; the label of `_ x: Int` is `_`."""
    found = []
    for piece in split_top_level(text, angles=True):
        head, _, kind = piece.partition(":")
        names = re.findall(r"`?([A-Za-z_]\w*)`?", re.sub(r"@\w+(?:\([^)]*\))?", "", head))  # no `@MainActor`
        if not names:
            return None  # not a parameter list this check understands
        default = re.search(r"(?<![=!<>])=(?!=)", kind) is not None
        variadic = re.search(r"\.\.\.\s*(?:=|$)", kind.strip()) is not None
        found.append((names[0], default, variadic))
    return found


def argument_labels(text):
    """A call's argument labels (`None` for an unlabeled argument), from the text between its parentheses;
    `label:other:` (an initialiser named as a function) gives its labels."""
    if re.fullmatch(r"\s*(?:\w+:)+\s*", text):
        return [label for label in re.findall(r"(\w+):", text)]
    labels = []
    for argument in split_top_level(text):
        label = re.match(r"\s*`?([A-Za-z_]\w*)`?\s*:(?!:)", argument)
        labels.append(label.group(1) if label else None)
    return labels


def fits(params, labels):
    """Whether a call with argument `labels` fits the parameters `params` (see `parameters`)."""
    if not params:
        return not labels
    (label, default, variadic), rest = params[0], params[1:]
    wanted = None if label == "_" else label
    if variadic:  # no argument, or the first with the label and any unlabeled ones after it
        if fits(rest, labels):
            return True
        taken = 1 if labels and labels[0] == wanted else 0
        while taken:
            if fits(rest, labels[taken:]):
                return True
            taken = taken + 1 if taken < len(labels) and labels[taken] is None else 0
        return False
    if labels and labels[0] == wanted and fits(rest, labels[1:]):
        return True
    return default and fits(rest, labels)


def signature(type_name, params):
    return f"{type_name}(" + "".join(f"{label}:" for label, _, _ in params) + ")"


def scan_initialisers(source):
    """The initialisers `source` declares in a type's body or extension, as (type, parameters), and the
    `self.init(...)` calls it makes in one, as (type, labels); `source` has its comments and strings removed.
    A nested type is named with its outer types (`ConcurrencyDebug.Watch`). A type or extension indented at the
    top level (inside `#if`) is skipped, as the type and member checks skip it."""
    declared, delegations, stack, pending, offset = [], [], [], None, 0
    for line in source.split("\n"):
        named = []
        for entry in stack:
            if entry is None:
                break
            named.append(entry)
        enclosing = ".".join(named) if named else None
        if stack and None not in stack and INIT.match(line):
            start = offset + INIT.match(line).end() - 1
            params = parameters(source[start + 1 : closing(source, start, angles=True)])
            if params is not None:
                declared.append((enclosing, params))
        if enclosing:
            for call in re.finditer(r"(?<![\w.])self\.init\(", line):
                start = offset + call.end() - 1
                delegations.append((enclosing, argument_labels(source[start + 1 : closing(source, start)])))
        opening = TYPE_OPENING.match(line)
        if opening and opening.group(1) not in NOT_A_TYPE_NAME and (stack or not line[:1].isspace()):
            pending = opening.group(1)  # at the top level, only at the line's start, as DECLARATION and EXTENSION
        for character in line:
            if character == "{":
                stack.append(pending)
                pending = None
            elif character == "}" and stack:
                stack.pop()
        offset += len(line) + 1
    return declared, delegations


def allowed_folders(cell):
    """A row's "may use" cell as {folder: None (wholly) or the set of names its "(only ...)" allows}."""
    allowed, position = {}, 0
    while True:
        match = re.compile(r"`(\w+)/`").search(cell, position)
        if not match:
            return allowed
        allowed[match.group(1)], position = None, match.end()
        parenthesis = re.compile(r"\s*\(").match(cell, position)
        if parenthesis:
            start = parenthesis.end() - 1
            end = closing(cell, start)
            inner, position = cell[start + 1 : end], end + 1
            if inner.startswith("only "):
                names = re.sub(r"`[^`]*`", lambda quoted: quoted.group(0).replace(":", "\0"), inner).split(":")[0]
                allowed[match.group(1)] = set(re.findall(TABLE_NAME, names.replace("\0", ":")))


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
        allowed = allowed_folders(cells[2])
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
    # Initialisers: type -> every (declaring folder, parameters) the engine declares for it, and the calls of
    # `self.init(...)` per file; a call is followed when exactly one of its type's initialisers fits it.
    initialisers, delegations = {}, {}
    for folder, paths in files.items():
        for path in paths:
            declared, delegations[path] = scan_initialisers(stripped_sources[path])
            for type_name, params in declared:
                initialisers.setdefault(type_name, []).append((folder, params))
    followed = sorted(  # the types with an initialiser another folder than the type's declares in an extension
        type_name
        for type_name, inits in initialisers.items()
        if any(folder != owner.get(type_name.split(".")[0]) for folder, _ in inits)
    )
    member_edges = 0
    initialiser_edges = 0
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
            calls = list(delegations[path])
            for type_name in followed:
                root = type_name.split(".")[0]
                if root in local.get(folder, set()) and owner.get(root) != folder:
                    continue  # the folder's own (nested) type of that name
                call = re.compile(r"(?<![\w.])" + re.escape(type_name) + r"(?:<[^<>()\n]*>)?(?:\.init)?\(")
                for match in call.finditer(stripped):
                    start = match.end() - 1
                    calls.append((type_name, argument_labels(stripped[start + 1 : closing(stripped, start)])))
            used_initialisers = set()
            for type_name, labels in calls:
                if not labels or (labels[0] is None and type_name.split(".")[0] not in owner):
                    continue  # `Type()`, or `Type(x)` of a type from outside the engine: see the docstring
                fitting = [(used, params) for used, params in initialisers.get(type_name, []) if fits(params, labels)]
                if len(fitting) == 1 and fitting[0][0] not in (folder, owner.get(type_name.split(".")[0])):
                    used_initialisers.add((signature(type_name, fitting[0][1]), fitting[0][0], type_name))
            for name, used, type_name in sorted(used_initialisers):
                initialiser_edges += 1
                what = f"{name} (an initialiser declared in {used}/ on {type_name})"
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
        f"layers: {len(folders)} folders, {len(owner)} types, {edges} cross-folder uses of types, {member_edges} of"
        + f" members and {initialiser_edges} of initialisers, all allowed by {DOC};"
        + f" the table has no loop" + (f" (apart from the mutual pair {pair[0]}/ ↔ {pair[1]}/)" if pair else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
