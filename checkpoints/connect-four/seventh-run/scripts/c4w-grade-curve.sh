#!/bin/bash
# Usage: runs/c4w-grade-curve.sh MARK... — waits for each curve network of run c4w
# (runs/c4w-curve/MARK/GEN, copied by c4w-curve.sh) and grades it as the 0.5 h one was
# (the first 100 test positions of each kind, search at 600 simulations and bare), into
# docs/results/connect4-seventh-run/MARK-s600|s0.json and .log. Meant to run at the lowest
# priority beside the run (its autogroup's nice set to 19).
cd "$(dirname "$0")/.."
bin=target/release/yinsh-zero; out=docs/results/connect4-seventh-run
for mark in "$@"; do
  until [ -d runs/c4w-curve/$mark ] && [ -n "$(ls runs/c4w-curve/$mark)" ]; do sleep 30; done
  sleep 5
  g=$(ls runs/c4w-curve/$mark); net=runs/c4w-curve/$mark/$g
  echo "$(date -u +%FT%TZ) $mark: grading generation $g"
  for s in 600 0; do
    $bin grade --game connect4 --checkpoint $net --sims $s --positions 100 --games 0 --vs-perfect 0 --solver-nodes 50000000 --bounds runs/c4-bounds-$s.bin --json > $out/$mark-s$s.json 2> $out/$mark-s$s.log
  done
  echo "$(date -u +%FT%TZ) $mark: graded"
done
