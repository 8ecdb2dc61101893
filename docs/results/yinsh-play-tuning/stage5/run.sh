#!/usr/bin/env bash
# Paired confirmation (issue 32, strength.md method 7): the shipped network at
# its defaults (A) and with policy_temp=1.4 (B) against the same opponent on the
# ladder's 100 openings (seed 2032, in four files of 25), in chunks of 50 games
# alternating A B B A A B B A, so a machine that speeds up or slows down
# during the run weighs on both the same. Usage: run.sh OPPONENT OUTDIR
# The rule, fixed before the first game (6 December 07:25 UTC): B becomes
# YINSH's play default if, against mcts-rollout:playouts=10000, its 200 games
# score at least A's 200.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
opp=${1:?opponent spec}; out=${2:?output dir}
bin=${BIN:-target/release/yinsh-zero}
net="net-mcts:checkpoint=checkpoints/000173,time=100,sims=100000"
A="$net"; B="$net,policy_temp=1.4"
mkdir -p "$out"
order=(A B B A A B B A)
for i in 0 1 2 3 4 5 6 7; do
  c=$((i / 2 + 1)); who=${order[$i]}
  spec=$A; [ "$who" = B ] && spec=$B
  echo "== chunk $c $who $(date -u +%H:%M:%S)"
  "$bin" evaluate --gauntlet "$spec" --players "$opp" --games 50 --threads 2 \
    --seed 2032 --openings "$here/openings-$c.txt" --run "$out/$who" --no-history \
    --json "$out/$who-$c.json"
done
echo "== done $(date -u +%H:%M:%S)"
