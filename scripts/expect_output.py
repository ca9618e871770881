#!/usr/bin/env python3
"""Runs a test program and checks its output as well as its exit status.

    expect_output.py REGEX PROGRAM [ARG...]

Passes when PROGRAM exits 0 and REGEX (Python syntax, so `\\n` is a newline
and `.` matches newlines too) is found in what it wrote to standard output
and standard error together. Shared by the CMake and Meson builds
(tests/CMakeLists.txt, tests/meson.build), so both check the same output.
"""
import re
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect_output.py REGEX PROGRAM [ARG...]")
pattern, command = sys.argv[1], sys.argv[2:]
run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
output = run.stdout.decode("utf-8", "replace")
sys.stdout.write(output)
if run.returncode != 0:
    sys.exit(f"expect_output.py: {command[0]} exited with status {run.returncode}")
if not re.search(pattern, output, flags=re.S):
    sys.exit(f"expect_output.py: the output of {command[0]} does not match {pattern!r}")
