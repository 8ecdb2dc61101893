#!/bin/bash
# After c4w's last stretch: takes its best network at 4 h and grades it as the
# card's commands do (full test set at 600 and bare, then 100 games a side against
# perfect with and without solver=true, then the curve grade on 100 a kind, by c4w-grade-curve.sh).
cd "$(dirname "$0")/.."
while pgrep -f "run runs/c4w" > /dev/null; do sleep 10; done
echo "$(date -u +%FT%TZ) run ended"
best=$(cat runs/c4w/checkpoints/best)
mkdir -p runs/c4w-curve/4h && cp -r runs/c4w/checkpoints/$best runs/c4w-curve/4h/
echo "$(date -u +%FT%TZ) 4h: generation $best"
net=runs/c4w-curve/4h/$best; g=runs/c4w-grades; bin=target/release/yinsh-zero
mkdir -p $g
$bin grade --game connect4 --checkpoint $net --sims 600 --positions 1000 --games 20 --vs-perfect 0 --solver-nodes 50000000 --bounds runs/c4-bounds-600.bin --json > $g/4h-full-s600.json 2> $g/4h-full-s600.log &
$bin grade --game connect4 --checkpoint $net --sims 0 --positions 1000 --games 20 --vs-perfect 0 --solver-nodes 50000000 --bounds runs/c4-bounds-0.bin --json > $g/4h-full-s0.json 2> $g/4h-full-s0.log &
wait; echo "$(date -u +%FT%TZ) full grades done"
$bin grade --game connect4 --checkpoint $net --sims 600 --positions 0 --games 0 --vs-perfect 100 --solver-nodes 20000000000 --save-book --json > $g/4h-vs-perfect.json 2> $g/4h-vs-perfect.log &
$bin grade --game connect4 --checkpoint $net --player "net-mcts:checkpoint=$net,sims=600,solver=true" --positions 0 --games 0 --vs-perfect 100 --solver-nodes 20000000000 --json > $g/4h-vs-perfect-solver.json 2> $g/4h-vs-perfect-solver.log &
wait; echo "$(date -u +%FT%TZ) games done"
# The curve's grade of the 4 h network, where the other marks' are.
runs/c4w-grade-curve.sh 4h
