#!/usr/bin/env python3
"""Sums run.sh's chunks: per setting (A: defaults, B: policy_temp=1.4) the
W-D-L, score with a 95% normal interval, and evaluations a decision, then the
paired difference over the same openings. Usage: table.py OUTDIR"""
import json, math, sys, glob, os

out = sys.argv[1]
tot = {}
for who in "AB":
    w = d = l = 0
    evals = decisions = 0
    per_opening = {}
    for f in sorted(glob.glob(os.path.join(out, who, "eval", "*.jsonl"))):
        for line in open(f):
            g = json.loads(line)
            net_white = g["white"] == g["first"]
            s = g["score_white"] if net_white else 1 - g["score_white"]
            w += s == 1; d += s == 0.5; l += s == 0
            e = g["effort_white" if net_white else "effort_black"]
            evals += e.get("evaluations", 0); decisions += e["decisions"]
            key = (os.path.basename(f), g["opening"])
            per_opening[g["opening"]] = per_opening.get(g["opening"], 0) + s
    n = w + d + l
    p = (w + d / 2) / n
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    tot[who] = per_opening
    print(f"{who}: {n} games {w}-{d}-{l} score {100*p:.1f}% [{100*(p-half):.1f}, {100*(p+half):.1f}]"
          f" evaluations/decision {evals/decisions:.0f}")
common = sorted(set(tot["A"]) & set(tot["B"]))
if common:
    diffs = [tot["B"][o] - tot["A"][o] for o in common]
    m = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((x - m) ** 2 for x in diffs) / (len(diffs) - 1)) if len(diffs) > 1 else 0
    se = sd / math.sqrt(len(diffs))
    # per opening two games: the score difference per game is m / 2
    print(f"paired over {len(common)} openings: B - A = {100*m/2:+.1f} points a game "
          f"[{100*(m-1.96*se)/2:+.1f}, {100*(m+1.96*se)/2:+.1f}]")
