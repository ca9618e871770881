#!/usr/bin/env python3
"""Checks that every place naming libdag's exported functions agrees.

The places: abi/symbols (each function with the release that added it),
capi/libdag.map (one version node per release), the DAG_API declarations in
include/dag/dag.h with their @since where one is written, the dag_api table in
capi/api_table.cpp, the LIBDAG_1 aliases in capi/libdag1_compat.ld, and the
dynamic symbols of the built library. A function added to the header but not to
the map is exported by no node, so the build alone would not notice it.

Usage: check_symbols.py SOURCE_DIR LIBRARY
"""
import re
import subprocess
import sys
from pathlib import Path

# 1.0.0 and 1.1.0 exported every function as version LIBDAG_1; their
# functions keep an alias under it. Frozen: no later release joins.
LEGACY_NODE = "LIBDAG_1"
LEGACY_RELEASES = ("1.0", "1.1")

errors = []


def fail(message):
    errors.append(message)


def strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def release_key(release):
    return tuple(int(part) for part in release.split("."))


def read_symbols(path):
    """abi/symbols: name -> release, in file order."""
    symbols = {}
    previous = None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 2 or not re.fullmatch(r"\d+\.\d+", fields[1]):
            fail(f"abi/symbols:{number}: expected 'name MAJOR.MINOR', got '{line}'")
            continue
        name, release = fields
        if name in symbols:
            fail(f"abi/symbols:{number}: {name} listed twice")
        if previous and release_key(release) < release_key(previous):
            fail(f"abi/symbols:{number}: {name} {release} after a {previous} line "
                 "(the list is grouped by release, oldest first)")
        previous = release
        symbols[name] = release
    return symbols


def read_map(path):
    """capi/libdag.map: list of (node, parent, globals)."""
    text = strip_c_comments(path.read_text())
    nodes = []
    for match in re.finditer(r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*([\w.]*)\s*;", text, flags=re.S):
        node, body, parent = match.group(1), match.group(2), match.group(3)
        scope = "global"
        names = []
        for entry in (e.strip() for e in body.split(";")):
            label = re.match(r"(global|local)\s*:\s*(.*)", entry, flags=re.S)
            if label:
                scope, entry = label.group(1), label.group(2).strip()
            if not entry or scope != "global":
                continue
            if re.search(r"[*?\[\]]", entry):
                fail(f"capi/libdag.map: node {node} exports the glob '{entry}'; list functions by name")
            names.append(entry)
        nodes.append((node, parent or None, names))
    if not nodes:
        fail("capi/libdag.map: no version node found")
    return nodes


def check_map_nodes(nodes):
    """LIBDAG_1 first and empty, then LIBDAG_1.0, 1.1, ... each inheriting the one before."""
    releases = []
    for node, parent, names in nodes:
        if node == LEGACY_NODE:
            if names:
                fail(f"capi/libdag.map: {LEGACY_NODE} must export nothing by name "
                     f"(its aliases come from capi/libdag1_compat.ld), it lists {', '.join(names)}")
            continue
        match = re.fullmatch(r"LIBDAG_(\d+\.\d+)", node)
        if not match:
            fail(f"capi/libdag.map: node {node} is not named LIBDAG_MAJOR.MINOR")
            continue
        expected_parent = f"LIBDAG_{releases[-1]}" if releases else None
        if parent != expected_parent:
            fail(f"capi/libdag.map: node {node} inherits {parent or 'nothing'}, "
                 f"expected {expected_parent or 'nothing'}")
        if releases and release_key(match.group(1)) <= release_key(releases[-1]):
            fail(f"capi/libdag.map: node {node} comes after LIBDAG_{releases[-1]}")
        releases.append(match.group(1))
    return releases


def read_header(path):
    """include/dag/dag.h: DAG_API function name -> @since in its doc comment (or None)."""
    text = path.read_text()
    comments = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"/\*.*?\*/", text, flags=re.S)]
    declarations = {}
    for match in re.finditer(r"\bDAG_API\s+[^;(){}#]*?\b(dag_\w+)\s*\(", text):
        if any(start <= match.start() < end for start, end, _ in comments):
            continue
        name = match.group(1)
        if name in declarations:
            fail(f"dag.h: {name} declared twice")
        doc = next((c for start, end, c in reversed(comments)
                    if end <= match.start() and not text[end:match.start()].strip()), None)
        since = re.findall(r"@since\s+(\S+)", doc) if doc else []
        if len(since) > 1:
            fail(f"dag.h: {name}'s comment has {len(since)} @since lines")
        declarations[name] = since[0] if since else None
    return declarations


def read_table(path):
    """capi/api_table.cpp: the functions in the table's initializer, in order."""
    text = strip_c_comments(path.read_text())
    match = re.search(r"dag_api_table\s+\w+\s*=\s*\{(.*?)\}\s*;", text, flags=re.S)
    if not match:
        fail("capi/api_table.cpp: the dag_api_table initializer was not found")
        return []
    functions = []
    for entry in (e.strip() for e in match.group(1).split(",")):
        named = re.fullmatch(r"(?:\.\w+\s*=\s*)?(dag_\w+)", entry)
        if named:
            functions.append(named.group(1))
    return functions


def count_table_fields(header_path):
    """How many function pointers the dag_api_table struct in dag.h has."""
    text = strip_c_comments(header_path.read_text())
    match = re.search(r"typedef\s+struct\s+dag_api_table\s*\{(.*?)\}\s*dag_api_table\s*;", text, flags=re.S)
    if not match:
        fail("dag.h: struct dag_api_table not found")
        return None
    return len(re.findall(r"\(\s*\*\s*\w+\s*\)\s*\(", match.group(1)))


def read_compat_script(path):
    """capi/libdag1_compat.ld: the functions aliased under LIBDAG_1."""
    text = strip_c_comments(path.read_text())
    names = []
    for alias, target in re.findall(r'"(\w+)@' + LEGACY_NODE + r'"\s*=\s*(\w+)\s*;', text):
        if alias != target:
            fail(f"capi/libdag1_compat.ld: {alias}@{LEGACY_NODE} aliases {target}")
        names.append(alias)
    return names


def read_library(path, version_nodes):
    """The library's defined dynamic symbols: list of (name, version or None, default?)."""
    output = subprocess.run(["readelf", "--dyn-syms", "--wide", str(path)], check=True,
                            capture_output=True, text=True).stdout
    exported = []
    for line in output.splitlines():
        fields = line.split()
        if len(fields) < 8 or not fields[0].endswith(":") or fields[6] == "UND":
            continue
        kind, bind, full = fields[3], fields[4], fields[7]
        if bind not in ("GLOBAL", "WEAK", "UNIQUE") or kind in ("SECTION", "FILE"):
            continue
        name, sep, version = full.partition("@")
        default = version.startswith("@")
        version = version.lstrip("@") or None
        # A version definition shows as an absolute symbol named after its node.
        if fields[6] == "ABS" and name in version_nodes:
            continue
        exported.append((name, version, default))
    return exported


def compare(what, expected, actual, expected_name, actual_name):
    for name in sorted(set(expected) - set(actual)):
        fail(f"{what}: {name} is in {expected_name} but not in {actual_name}")
    for name in sorted(set(actual) - set(expected)):
        fail(f"{what}: {name} is in {actual_name} but not in {expected_name}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, library = Path(sys.argv[1]), Path(sys.argv[2])
    symbols = read_symbols(source / "abi/symbols")
    nodes = read_map(source / "capi/libdag.map")
    releases = check_map_nodes(nodes)
    header = read_header(source / "include/dag/dag.h")
    table = read_table(source / "capi/api_table.cpp")
    compat = read_compat_script(source / "capi/libdag1_compat.ld")

    # The map: every function once, in the node of the release that added it.
    in_map = {}
    for node, _, names in nodes:
        for name in names:
            if name in in_map:
                fail(f"capi/libdag.map: {name} is in {in_map[name]} and in {node}")
            in_map[name] = node
    for name, release in symbols.items():
        if release not in releases:
            fail(f"abi/symbols: {name} {release}: capi/libdag.map has no node LIBDAG_{release}")
        elif name in in_map and in_map[name] != f"LIBDAG_{release}":
            fail(f"capi/libdag.map: {name} is in {in_map[name]}, abi/symbols says {release}")
    compare("capi/libdag.map", symbols, in_map, "abi/symbols", "the map")

    # The header: the same functions; @since, where written, says the same release.
    compare("dag.h", symbols, header, "abi/symbols", "the DAG_API declarations")
    dated = 0
    for name, since in header.items():
        if since is None:
            continue
        dated += 1
        # "@since 1.2" or "@since 1.2.0": releases add functions, patches do not.
        since = ".".join(since.split(".")[:2])
        if name in symbols and since != symbols[name]:
            fail(f"dag.h: {name} says @since {since}, abi/symbols says {symbols[name]}")

    # The table: every function but dag_api itself, once, in the order of
    # their releases (fields are only appended), one struct field each.
    if "dag_api" in table:
        fail("capi/api_table.cpp: the table lists dag_api, which returns it")
    for name in {n for n in table if table.count(n) > 1}:
        fail(f"capi/api_table.cpp: {name} is in the table {table.count(name)} times")
    compare("capi/api_table.cpp", set(symbols) - {"dag_api"}, table, "abi/symbols", "the table")
    listed = [n for n in table if n in symbols]
    for before, after in zip(listed, listed[1:]):
        if release_key(symbols[after]) < release_key(symbols[before]):
            fail(f"capi/api_table.cpp: {after} ({symbols[after]}) comes after {before} "
                 f"({symbols[before]}); a new function's field goes at the end")
    fields = count_table_fields(source / "include/dag/dag.h")
    if fields is not None and fields != len(table):
        fail(f"dag.h: struct dag_api_table has {fields} function fields, "
             f"capi/api_table.cpp fills {len(table)}")

    # The LIBDAG_1 aliases: exactly the functions of 1.0 and 1.1.
    legacy = {n for n, r in symbols.items() if r in LEGACY_RELEASES}
    for name in {n for n in compat if compat.count(n) > 1}:
        fail(f"capi/libdag1_compat.ld: {name} aliased twice")
    compare("capi/libdag1_compat.ld", legacy, compat, "abi/symbols as 1.0 or 1.1", "the aliases")

    # The built library: each function at its release's node as the default
    # version, the 1.0 and 1.1 ones also at LIBDAG_1, nothing else.
    version_nodes = {node for node, _, _ in nodes}
    defaults, aliases = {}, set()
    for name, version, default in read_library(library, version_nodes):
        if version is None:
            fail(f"{library.name}: {name} is exported in no version node")
        elif default:
            defaults[name] = version
            if name in symbols and version != f"LIBDAG_{symbols[name]}":
                fail(f"{library.name}: {name}@@{version}, abi/symbols says {symbols[name]}")
        elif version == LEGACY_NODE:
            aliases.add(name)
        else:
            fail(f"{library.name}: {name}@{version} is an alias no release had")
    compare(library.name, symbols, defaults, "abi/symbols", "the library's default versions")
    compare(library.name, legacy, aliases, "abi/symbols as 1.0 or 1.1", f"the library's {LEGACY_NODE} aliases")

    if errors:
        print("\n".join(errors))
        print(f"{len(errors)} disagreement(s); see abi/README.md")
        return 1
    print(f"{len(symbols)} functions agree across abi/symbols, capi/libdag.map ({', '.join(releases)}), "
          f"dag.h ({dated} with @since), the dag_api table ({len(table)}) and {library.name} "
          f"({len(aliases)} {LEGACY_NODE} aliases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
