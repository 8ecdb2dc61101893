#!/usr/bin/env python3
"""The full grade table's rows: c4v's 4 h network beside c4s 503 and c4u 547."""
import json, sys
def load(p):
    r = json.load(open(p))["report"]
    return {k["kind"]: k["tally"] for k in r["testset"]}, r["own_games"]
def pct(t, key): return 100.0 * t[key] / t["decisions"] if t["decisions"] else float("nan")
ours = {s: load(f"runs/c4v-grades/4h-full-{s}.json") for s in ("s600", "s0")}
others = {}
for name, d in (("c4s", "docs/results/connect4-score-run"), ("c4u", "docs/results/connect4-fifth-run")):
    for s in ("s600", "s0"):
        try: others[(name, s)] = load(f"{d}/4h-full-{s}.json")
        except Exception as e: others[(name, s)] = None; print(name, s, e, file=sys.stderr)
kinds = list(ours["s600"][0].keys())
tot = {s: {"decisions": 0, "optimal": 0, "preserving": 0, "unsolved": 0} for s in ours}
for k in kinds:
    row = [f"{k} (1,000)"]
    for s in ("s600", "s0"):
        t = ours[s][0][k]
        for key in tot[s]: tot[s][key] += t[key]
        cell = f"{pct(t,'preserving'):.1f}% / {pct(t,'optimal'):.1f}%"
        if t["unsolved"]: cell += f" ({t['decisions']} graded)"
        row.append(cell)
        for name in ("c4s", "c4u"):
            o = others[(name, s)]
            row.append(f"{pct(o[0][k],'preserving'):.1f}%" if o else "?")
    print("| " + " | ".join(row) + " |")
row = ["**all 6,000**"]
for s in ("s600", "s0"):
    t = tot[s]
    row.append(f"**{pct(t,'preserving'):.1f}% / {pct(t,'optimal'):.1f}%** ({t['preserving']:,} and {t['optimal']:,} of {t['decisions']:,})")
    for name in ("c4s", "c4u"):
        o = others[(name, s)]
        if o:
            d = sum(v["decisions"] for v in o[0].values()); p = sum(v["preserving"] for v in o[0].values())
            row.append(f"{100*p/d:.1f}%")
        else: row.append("?")
print("| " + " | ".join(row) + " |")
row = ["its own games, 20"]
for s in ("s600", "s0"):
    t = ours[s][1]
    row.append(f"{pct(t,'preserving'):.1f}% / {pct(t,'optimal'):.1f}% ({t['decisions']} decisions; {t['unsolved']} more past the solver's budget)")
    for name in ("c4s", "c4u"):
        o = others[(name, s)]
        row.append(f"{pct(o[1],'preserving'):.1f}%" if o else "?")
print("| " + " | ".join(row) + " |")
