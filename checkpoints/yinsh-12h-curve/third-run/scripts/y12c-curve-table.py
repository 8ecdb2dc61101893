#!/usr/bin/env python3
"""Prints issue 32's learning-curve table (docs/strength.md, method 4) from the
ladders' JSON (`runs/y12c-ladder/MARK/ladder.json`, written by y12c-ladder.sh):
one row a mark, each opponent's score with its 95% interval and W-D-L. A mark
whose ladder is missing or unfinished says so rather than printing a partial score.

Usage: y12c-curve-table.py LADDER_DIR [MARK ...]   (default marks: 1h 2h 4h 8h 12h)
"""
import json
import os
import sys

OPPONENTS = [
    "alphabeta:depth=3",
    "mcts-rollout:playouts=10000",
    "mcts-rollout:playouts=30000",
]


def cell(pairing):
    r = pairing["results"]
    games = r["wins"] + r["draws"] + r["losses"]
    return (
        f"{100 * pairing['score']:.1f}% [{100 * pairing['score_low']:.1f}, "
        f"{100 * pairing['score_high']:.1f}] ({r['wins']}-{r['draws']}-{r['losses']})",
        games,
    )


def recorded(folder, opponent):
    """An unfinished ladder's games so far against `opponent`, from its records."""
    w = d = l = 0
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        for line in open(os.path.join(folder, name)):
            if not line.endswith("\n"):
                continue  # a line still being written
            g = json.loads(line)
            if g["second"] != opponent:
                continue
            s = g["score_white"] if g["first_white"] else 1 - g["score_white"]
            w, d, l = w + (s == 1), d + (s == 0.5), l + (s == 0)
    if w + d + l == 0:
        return "not played"
    return f"unfinished: {w}-{d}-{l} in {w + d + l} games ({100 * (w + d / 2) / (w + d + l):.1f}%)"


def main():
    root = sys.argv[1]
    marks = sys.argv[2:] or ["1h", "2h", "4h", "8h", "12h"]
    print("| running time | best network | " + " | ".join(f"vs `{o}`" for o in OPPONENTS) + " |")
    print("|---" * (2 + len(OPPONENTS)) + "|")
    for mark in marks:
        path = os.path.join(root, mark, "ladder.json")
        if not os.path.exists(path):
            print(f"| {mark} | | " + " | ".join(recorded(os.path.join(root, mark, "eval"), o) for o in OPPONENTS) + " |")
            continue
        out = json.load(open(path))
        by_opponent = {p["second"]: p for p in out["pairings"]}
        net = out["pairings"][0]["first"] if out["pairings"] else ""
        gen = next((part for part in net.replace(",", "/").split("/") if part.isdigit()), "?")
        cells = []
        for o in OPPONENTS:
            p = by_opponent.get(o)
            if p is None:
                cells.append("not played")
                continue
            text, games = cell(p)
            want = out["games_per_pairing"]
            cells.append(text if games == want else f"{games} of {want} games: {text}")
        print(f"| {mark} | generation {int(gen) if gen != '?' else gen} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
