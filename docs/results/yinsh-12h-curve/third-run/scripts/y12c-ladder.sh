#!/bin/bash
# Usage: runs/y12c-ladder.sh MARK (1h, 2h, 4h, 8h): issue 32's ladder for run y12c's best
# network at that mark (docs/strength.md method 4's command), 200 games an opponent at 100 ms,
# two games at a time (THREADS=1: one at a time); resumable (--run: games already recorded are
# not played again).
cd "$(dirname "$0")/.."
mark=$1; g=$(ls runs/y12c-curve/$mark); net=runs/y12c-curve/$mark/$g
mkdir -p runs/y12c-ladder/$mark
echo "$(date -u +%FT%TZ) ladder $mark (generation $g) start" >> runs/y12c-stretches.log
target/release/yinsh-zero evaluate --gauntlet "net-mcts:checkpoint=$net,time=100,sims=100000" \
  --players alphabeta:depth=3,mcts-rollout:playouts=10000,mcts-rollout:playouts=30000 \
  --games 200 --threads "${THREADS:-2}" --seed 2032 --run runs/y12c-ladder/$mark \
  --json runs/y12c-ladder/$mark/ladder.json >> runs/y12c-ladder/$mark/ladder.log 2>&1 < /dev/null
echo "$(date -u +%FT%TZ) ladder $mark (generation $g) end" >> runs/y12c-stretches.log
