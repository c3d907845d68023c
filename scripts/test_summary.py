#!/usr/bin/env python3
"""Prints one line, "N passed, N failed, N skipped", counting every GoogleTest case (and
every plain test) in meson's JUnit log, so CI and people see how many tests ran."""
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is not None:
        skipped += 1
    else:
        passed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
