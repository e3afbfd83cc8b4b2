#!/usr/bin/env python3
"""Checks that a CSV file with columns appended projects onto an older file's columns byte for
byte: every line of NEW is the matching line of OLD followed by "," and the new fields, and
parsing NEW and keeping OLD's columns gives OLD's records exactly.

Usage: column-projection.py OLD NEW [OLD NEW ...]   (exit 1 on the first difference)
"""
import csv
import io
import sys


def check(old_path, new_path):
    old = open(old_path, "rb").read()
    new = open(new_path, "rb").read()
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    if len(old_lines) != len(new_lines):
        return f"{len(old_lines)} vs {len(new_lines)} lines"
    for i, (o, n) in enumerate(zip(old_lines, new_lines), 1):
        if o == n == b"":
            continue
        if not n.startswith(o + b","):
            return f"line {i}: the old line is not a prefix of the new one"
    old_rows = list(csv.reader(io.StringIO(old.decode())))
    new_rows = list(csv.reader(io.StringIO(new.decode())))
    width = len(old_rows[0])
    if new_rows[0][:width] != old_rows[0]:
        return "the old header is not the new header's beginning"
    for i, (o, n) in enumerate(zip(old_rows, new_rows), 1):
        if n[:width] != o:
            return f"record {i}: projected fields differ"
    return None


def main(args):
    if len(args) % 2 or not args:
        sys.exit(__doc__)
    for old, new in zip(args[::2], args[1::2]):
        why = check(old, new)
        if why:
            print(f"DIFFERENT {new}: {why}")
            sys.exit(1)
        with open(old) as f:
            rows = sum(1 for _ in f) - 1
        with open(new) as f:
            header = f.readline().rstrip("\n").split(",")
        print(f"identical projection: {new} ({rows} rows; {len(header)} columns, old columns first)")


if __name__ == "__main__":
    main(sys.argv[1:])
