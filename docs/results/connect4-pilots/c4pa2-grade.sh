#!/bin/bash
# The pilots' grades (docs/results/connect4-pilots/README.md) for c4pa2's best network.
cd "$(dirname "$0")/.."
bin=runs/bin/yinsh-zero-c847bd5
g=$(cat runs/c4pa2/checkpoints/best); net=runs/c4pa2/checkpoints/$g; out=runs/c4pa2-grades; mkdir -p $out
echo "grading generation $g"
$bin grade --game connect4 --checkpoint $net --sims 600 --positions 100 --games 0 --vs-perfect 0 --solver-nodes 50000000 --json > $out/$g-s600.json 2> $out/$g-s600.log &
$bin grade --game connect4 --checkpoint $net --sims 0 --positions 100 --games 0 --vs-perfect 0 --solver-nodes 50000000 --json > $out/$g-s0.json 2> $out/$g-s0.log
wait
$bin grade --game connect4 --checkpoint $net --player "net-mcts:checkpoint=$net,sims=600,solver=true" --positions 0 --games 0 --vs-perfect 10 --solver-nodes 20000000000 --json > $out/$g-vp-solver.json 2> $out/$g-vp-solver.log
