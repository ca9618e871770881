#!/usr/bin/env python3
"""Prepares two abidw files for abidiff, so that it compares what matters.

Usage: abi_normalize.py BASELINE.abi CURRENT.abi OUT_BASELINE OUT_CURRENT

Symbol versions. abidiff pairs functions by symbol and version: 1.1.0's
dag_walk@@LIBDAG_1 and today's dag_walk@@LIBDAG_1.0 pair with nothing, and
because the new library still has an alias dag_walk@LIBDAG_1 neither counts as
removed, so abidiff compared no function at all and passed a changed return
type. Versions are dropped on both sides (with the LIBDAG_1 aliases):
functions pair by name. Which node each function is in, and that the aliases
exist, is tests/abi/check_symbols.py's job.

Structs that grow. A struct whose first member is `size` is read by the
library only as far as the caller's size says (DESIGN.md section 4), so
members appended after the baseline's layout are compatible. The current
struct is cut back to the baseline's size before the comparison, so abidiff
still sees every change to the members the baseline had, and nothing else.
"""
import sys
import xml.etree.ElementTree as ET


def drop_versions(root):
    for parent in root.iter():
        for child in list(parent):
            if child.tag != "elf-symbol":
                continue
            if child.get("version") and child.get("is-default-version") == "no":
                parent.remove(child)
                continue
            for attribute in ("version", "is-default-version", "alias"):
                child.attrib.pop(attribute, None)
    for element in root.iter():
        symbol = element.get("elf-symbol-id")
        if symbol:
            element.set("elf-symbol-id", symbol.split("@")[0])


def sized_structs(root):
    """Each complete struct whose first member is `size` (a name may recur, once per unit)."""
    for decl in root.iter("class-decl"):
        if decl.get("is-declaration-only") == "yes" or not decl.get("size-in-bits"):
            continue
        first = decl.find("data-member/var-decl")
        if first is not None and first.get("name") == "size":
            yield decl


def cut_to_baseline(baseline, current):
    old_sizes = {decl.get("name"): int(decl.get("size-in-bits")) for decl in sized_structs(baseline)}
    for decl in sized_structs(current):
        old_size = old_sizes.get(decl.get("name"))
        if old_size is None or int(decl.get("size-in-bits")) <= old_size:
            continue
        for member in decl.findall("data-member"):
            if int(member.get("layout-offset-in-bits", "0")) >= old_size:
                decl.remove(member)
        decl.set("size-in-bits", str(old_size))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    baseline = ET.parse(sys.argv[1])
    current = ET.parse(sys.argv[2])
    for tree in (baseline, current):
        drop_versions(tree.getroot())
    cut_to_baseline(baseline.getroot(), current.getroot())
    baseline.write(sys.argv[3])
    current.write(sys.argv[4])


if __name__ == "__main__":
    main()
