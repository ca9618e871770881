#!/usr/bin/env python3
"""Every exported function in dag.h says in its doc comment which release
added it (`@since MAJOR.MINOR`), and no release is later than the header's.
Doxygen's warnings cover parameters and return values, not this."""
import re
import sys

header = open(sys.argv[1], encoding="utf-8").read()
major = int(re.search(r"#define DAG_VERSION_MAJOR (\d+)", header).group(1))
minor = int(re.search(r"#define DAG_VERSION_MINOR (\d+)", header).group(1))
# The release being prepared may be one minor ahead of the header's number.
newest = (major, minor + 1)

problems = []
decl = re.compile(r"/\*\*((?:(?!\*/).)*)\*/\s*DAG_API\s[^;(]*?\b(dag_\w+)\s*\(", re.S)
documented = set()
for m in decl.finditer(header):
    doc, name = m.group(1), m.group(2)
    documented.add(name)
    since = re.findall(r"@since\s+(\d+)\.(\d+)", doc)
    if len(since) != 1:
        problems.append(f"{name}: {len(since)} @since tags, want 1")
    elif (int(since[0][0]), int(since[0][1])) > newest:
        problems.append(f"{name}: @since {'.'.join(since[0])} is after {newest[0]}.{newest[1]}")

declared = set(re.findall(r"^DAG_API\s[^;(]*?\b(dag_\w+)\s*\(", header, re.M))
for name in sorted(declared - documented):
    problems.append(f"{name}: no doc comment right before its declaration")

for p in problems:
    print(p)
print(f"{len(declared)} functions, {len(problems)} problems")
sys.exit(1 if problems or not declared else 0)
