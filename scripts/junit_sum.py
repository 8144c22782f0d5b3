#!/usr/bin/python3
"""junit_sum.py FILE.junit.xml... -- the test counts a runner reported.

Prints "PASSED FAILED SKIPPED" summed over the files' <testcase> elements (a
case with a <failure> or <error> child failed, one with <skipped> was skipped,
any other passed; see outcome() for ctest's status attribute), so scripts/test.sh takes its totals from ctest's
--output-junit, Vitest's junit reporter and the browser runner rather than
from their logs. Exit 1, printing nothing, when a file is missing, is not
JUnit XML or holds no test case: the caller then counts the phase by its exit
status.
"""
import sys
import xml.etree.ElementTree as ET


def outcome(case):
    """passed, failed or skipped. ctest adds status="run|fail|notrun|disabled":
    a test it did not run counts as skipped only when the test asked for it
    (SKIP_RETURN_CODE, SKIP_REGULAR_EXPRESSION) or is disabled; a missing
    executable or a failed fixture setup is a failure, as in ctest's own count."""
    kinds = {child.tag: child for child in case}
    if "failure" in kinds or "error" in kinds:
        return "failed"
    status = case.get("status")
    if status == "disabled":
        return "skipped"
    if "skipped" in kinds:
        if status == "notrun" and not kinds["skipped"].get("message", "").startswith("SKIP_"):
            return "failed"
        return "skipped"
    return "passed"


def counts(path):
    root = ET.parse(path).getroot()
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError("%s: root element <%s> is not JUnit's" % (path, root.tag))
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        kind = outcome(case)
        passed += kind == "passed"
        failed += kind == "failed"
        skipped += kind == "skipped"
    if passed + failed + skipped == 0:
        raise ValueError("%s: no test case" % path)
    return passed, failed, skipped


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    total = [0, 0, 0]
    for p in paths:
        try:
            c = counts(p)
        except (OSError, ET.ParseError, ValueError) as e:
            print("junit_sum: %s" % e, file=sys.stderr)
            return 1
        total = [a + b for a, b in zip(total, c)]
    print("%d %d %d" % tuple(total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
