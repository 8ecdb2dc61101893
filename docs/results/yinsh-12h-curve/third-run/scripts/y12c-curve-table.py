#!/usr/bin/env python3
"""Prints issue 32's learning-curve table (docs/strength.md, method 4) from the
ladders of y12c-ladder.sh (`LADDER_DIR/MARK`): one row a mark, each opponent's
score with its 95% interval and W-D-L. A ladder still being played (no
ladder.json yet) is read from its recorded games by `evaluate --history-only`,
and its cells say how many of the 200 games they cover.

Usage: y12c-curve-table.py LADDER_DIR [MARK ...]   (default marks: 1h 2h 4h 8h 12h)
Run from the project root (it calls target/release/yinsh-zero).
"""
import json
import os
import subprocess
import sys
import tempfile

OPPONENTS = [
    "alphabeta:depth=3",
    "mcts-rollout:playouts=10000",
    "mcts-rollout:playouts=30000",
]
GAMES = 200  # y12c-ladder.sh's --games


def ladder(folder):
    """The ladder's JSON: its own when it finished, else the tables of its recorded games."""
    path = os.path.join(folder, "ladder.json")
    if os.path.exists(path):
        return json.load(open(path))
    if not os.path.isdir(os.path.join(folder, "eval")):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "history.json")
        subprocess.run(
            ["target/release/yinsh-zero", "evaluate", "--run", folder, "--history-only", "--json", out],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        return json.load(open(out))


def cell(pairing):
    r = pairing["results"]
    games = r["wins"] + r["draws"] + r["losses"]
    text = (
        f"{100 * pairing['score']:.1f}% [{100 * pairing['score_low']:.1f}, "
        f"{100 * pairing['score_high']:.1f}] ({r['wins']}-{r['draws']}-{r['losses']})"
    )
    return text if games == GAMES else f"{games} of {GAMES} games: {text}"


def main():
    root = sys.argv[1]
    marks = sys.argv[2:] or ["1h", "2h", "4h", "8h", "12h"]
    print("| running time | best network | " + " | ".join(f"vs `{o}`" for o in OPPONENTS) + " |")
    print("|---" * (2 + len(OPPONENTS)) + "|")
    for mark in marks:
        out = ladder(os.path.join(root, mark))
        pairings = {p["second"]: p for p in (out or {}).get("pairings", [])}
        # The network's spec names its checkpoint folder, runs/y12c-curve/MARK/GEN.
        net = next(iter(pairings.values()), {}).get("first", "")
        gen = net.split("checkpoint=")[-1].split(",")[0].rsplit("/", 1)[-1] if net else ""
        cells = [cell(pairings[o]) if o in pairings else "not played" for o in OPPONENTS]
        print(f"| {mark} | {'generation ' + str(int(gen)) if gen.isdigit() else ''} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
