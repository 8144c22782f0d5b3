#!/usr/bin/python3
"""hostile_models.py -- by hand, not in the tests: writes issue 21's hostile
inputs at the issue's sizes, for bench/hostile_bench.sh (native) and
bench/hostile_bench.mjs (the page).

    hostile_models.py DIR

The builders are native-tests/complexity_check.py's (the guard measures the
same families at small n, in instructions); here the sizes are the ones the
issue reports times for. Writes DIR/NAME.onnx (or .csv) and prints one line
per file: name, bytes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "native-tests"))
import complexity_check as cc  # noqa: E402

# name -> (builder, n): the sizes (and the brief's fan-in/fan-out)
MODELS = [
    ("inplace_arity_8000", cc.inplace_arity, 8000),
    ("repeated_input_200k", cc.repeated_input, 200_000),
    ("repeated_graph_400k", cc.repeated_singular, 400_000),
    ("split_200k", cc.split_outputs, 200_000),
    ("split_100k", cc.split_outputs, 100_000),
    ("fan_in_100k", cc.fan_in, 100_000),
    ("fan_out_100k", cc.fan_out, 100_000),
    ("chain_100k", cc.chain_depth, 100_000),
    ("pack_ties_200k", cc.pack_ties, 200_000),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, builder, n in MODELS:
        r = builder(n)
        data, suffix = r if isinstance(r, tuple) else (r, ".onnx")
        path = os.path.join(out, name + suffix)
        with open(path, "wb") as f:
            f.write(data)
        print(f"{name}{suffix} {len(data)}")


if __name__ == "__main__":
    main()
