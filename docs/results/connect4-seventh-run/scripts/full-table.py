#!/usr/bin/env python3
"""The full grade table's rows: a four-hour network's grades on all 6,000 test
positions (DIR/4h-full-s600.json and -s0.json) beside other runs' (NAME=DIR ...).

Usage: full-table.py DIR [NAME=DIR ...]
"""
import json
import sys


def load(d, s):
    r = json.load(open(f"{d}/4h-full-{s}.json"))["report"]
    return {k["kind"]: k["tally"] for k in r["testset"]}, r["own_games"]


def pct(t, key):
    return 100.0 * t[key] / t["decisions"] if t["decisions"] else float("nan")


def cell(t):
    c = f"{pct(t, 'preserving'):.1f}% / {pct(t, 'optimal'):.1f}%"
    return c + (f" ({t['decisions']} graded)" if t["unsolved"] else "")


sides = ("s600", "s0")
ours = {s: load(sys.argv[1], s) for s in sides}
others = [(n, {s: load(d, s) for s in sides}) for n, d in (a.split("=", 1) for a in sys.argv[2:])]
kinds = list(ours["s600"][0])
keys = ("decisions", "optimal", "preserving", "unsolved")
total = {s: {k: 0 for k in keys} for s in sides}
other_total = {(n, s): {k: 0 for k in keys} for n, _ in others for s in sides}
for kind in kinds:
    row = [f"{kind} (1,000)"]
    for s in sides:
        t = ours[s][0][kind]
        for k in keys:
            total[s][k] += t[k]
        row.append(cell(t))
        for n, o in others:
            for k in keys:
                other_total[(n, s)][k] += o[s][0][kind][k]
            row.append(f"{pct(o[s][0][kind], 'preserving'):.1f}%")
    print("| " + " | ".join(row) + " |")
row = ["**all 6,000**"]
for s in sides:
    t = total[s]
    row.append(
        f"**{pct(t, 'preserving'):.1f}% / {pct(t, 'optimal'):.1f}%** "
        f"({t['preserving']:,} and {t['optimal']:,} of {t['decisions']:,})"
    )
    row += [f"{pct(other_total[(n, s)], 'preserving'):.1f}%" for n, _ in others]
print("| " + " | ".join(row) + " |")
row = ["its own games, 20"]
for s in sides:
    g = ours[s][1]
    row.append(
        f"{pct(g, 'preserving'):.1f}% / {pct(g, 'optimal'):.1f}% ({g['decisions']} decisions; "
        f"{g['unsolved']} more past the solver's budget)"
    )
    row += [f"{pct(o[s][1], 'preserving'):.1f}%" for _, o in others]
print("| " + " | ".join(row) + " |")
