#!/usr/bin/env python3
"""Where a vs-perfect grade's second-player games fall short: for each game the
plies at which the network's move scored below the best (solve-connect4 with the
book). Usage: c4-slips.py GRADE.json [first|second]"""
import collections, json, subprocess, sys
d = json.load(open(sys.argv[1]))
side = sys.argv[2] if len(sys.argv) > 2 else "second"
games = d["report"]["as_" + side]["records"]
cache = {}
def solve(moves):
    if moves not in cache:
        out = subprocess.run(["target/release/yinsh-zero", "solve-connect4", "--moves", moves,
                              "--json", "--book", "data/connect4/book.bin"],
                             capture_output=True, text=True, check=True).stdout
        cache[moves] = json.loads(out)
    return cache[moves]
first_slip = collections.Counter(); any_slip = collections.Counter(); lengths = collections.Counter()
slipped = 0
for g in games:
    lengths[len(g)] += 1
    plies = [i for i in range(0 if side == "first" else 1, len(g), 2)]
    found = []
    for i in plies:
        s = solve(g[:i])
        col = int(g[i]); cols = s["columns"]
        best = max(c for c in cols if c is not None)
        if cols[col - 1] != best:
            found.append(i + 1)  # 1-based ply number of the network's move
    if found:
        slipped += 1; first_slip[found[0]] += 1
        for p in found: any_slip[p] += 1
print(f"{len(games)} games, {slipped} with a slip")
print("lengths:", dict(sorted(lengths.items())))
print("first slip at ply:", dict(sorted(first_slip.items())))
print("games slipping at ply:", dict(sorted(any_slip.items())))
