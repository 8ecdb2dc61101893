#!/usr/bin/env python3
"""The c4w curve rows: keeps (optimal) and per-kind keeps for each graded mark."""
import json, os
out = "docs/results/connect4-seventh-run"
for m in ["0.5h", "1h", "2h", "4h"]:
    row = [m]
    for s in ["600", "0"]:
        p = f"{out}/{m}-s{s}.json"
        if not os.path.exists(p):
            row = None; break
        t = json.load(open(p))["report"]["testset"]
        n = sum(k["tally"]["decisions"] for k in t)
        keep = sum(k["tally"]["preserving"] for k in t); opt = sum(k["tally"]["optimal"] for k in t)
        row += [f"{100*keep/n:.1f}% ({100*opt/n:.1f}%)", ", ".join(str(k["tally"]["preserving"]) for k in t)]
    if row: print(" | ".join(row))
