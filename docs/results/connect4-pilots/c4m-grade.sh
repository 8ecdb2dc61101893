#!/bin/bash
# Usage: runs/c4m-grade.sh GEN — the pilots' grades (docs/results/connect4-pilots/README.md)
# for pilot M's generation GEN (6 digits), or its best when GEN is "best".
cd "$(dirname "$0")/.."
bin=runs/bin/yinsh-zero-70d8539
g=$1; [ "$g" = best ] && g=$(cat runs/c4m/checkpoints/best)
net=runs/c4m/checkpoints/$g; out=runs/c4m-grades; mkdir -p $out
echo "$(date -u +%FT%TZ) grading c4m generation $g" >> runs/machine-notes.log
$bin grade --game connect4 --checkpoint $net --sims 600 --positions 100 --games 0 --vs-perfect 0 --solver-nodes 50000000 --json > $out/$g-s600.json 2> $out/$g-s600.log &
$bin grade --game connect4 --checkpoint $net --sims 0 --positions 100 --games 0 --vs-perfect 0 --solver-nodes 50000000 --json > $out/$g-s0.json 2> $out/$g-s0.log
wait
$bin grade --game connect4 --checkpoint $net --player "net-mcts:checkpoint=$net,sims=600,solver=true" --positions 0 --games 0 --vs-perfect 10 --solver-nodes 20000000000 --json > $out/$g-vp-solver.json 2> $out/$g-vp-solver.log
echo "$(date -u +%FT%TZ) graded c4m generation $g" >> runs/machine-notes.log
