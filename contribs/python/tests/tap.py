"""Run the unittest tests beside this file and report them as TAP.

Standard library only.  A skipped test is reported as a failure: these
tests must run everywhere the module is installed.
"""

import os
import sys
import traceback
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0
        self.bad = 0

    def _report(self, test, ok, detail=None, note=""):
        self.n += 1
        if not ok:
            self.bad += 1
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, test.id(), note))
        if detail:
            for line in detail.rstrip("\n").split("\n"):
                print("# " + line)
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._report(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._report(test, False, "".join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._report(test, False, "".join(traceback.format_exception(*err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._report(test, False, "skipped (not allowed): %s" % reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._report(test, True, note=" # expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._report(test, False, "unexpected success")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py",
                                                top_level_dir=here)
    planned = suite.countTestCases()
    print("1..%d" % planned)
    result = TapResult()
    suite.run(result)
    # Errors outside a test (a failing import, setUpClass) have no test id.
    if result.n != planned:
        print("# ran %d of %d planned tests" % (result.n, planned))
        return 1
    return 1 if result.bad else 0


if __name__ == "__main__":
    sys.exit(main())
