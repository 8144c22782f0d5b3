#!/usr/bin/env python3
"""expr_check.py -- Python evaluates memplan's printed amounts as is.

Runs expr_tool (random canonical amounts, bindings, memplan's value) and
checks that eval() of each text, with only max/min available and the
bindings under their escaped names, gives the same value; division by zero
must agree too (memplan's "overflow" cases are skipped: Python ints do not
overflow). Also checks that every escaped name decodes to a real name.
"""
import subprocess
import sys


def main():
    tool = sys.argv[1]
    out = subprocess.run([tool, "3000"], check=True, capture_output=True, text=True).stdout
    checked = div0 = 0
    for line in out.splitlines():
        text, binds, want = line.split("\t")
        env = {}
        for item in binds.split(","):
            name, value = item.split("=")
            if name.startswith("_0x"):
                bytes.fromhex(name[3:]).decode("utf-8")  # must decode
            env[name] = int(value)
        try:
            got = str(eval(text, {"__builtins__": {}, "max": max, "min": min}, env))
        except ZeroDivisionError:
            got = "div0"
        if want == "overflow":
            continue
        if got != want:
            print(f"MISMATCH: {text!r} with {binds}: python {got}, memplan {want}")
            return 1
        checked += 1
        div0 += got == "div0"
    print(f"expr_check: {checked} amounts agree with Python ({div0} division by zero)")
    return 0 if checked >= 2000 else 1


if __name__ == "__main__":
    sys.exit(main())
