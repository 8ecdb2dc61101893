#!/bin/bash
# The three ply-18 positions where c4w's 573 slips as second against `perfect`,
# each searched by a fresh engine at 600 and 2,000 simulations, beside the exact scores.
# Usage (from the repository root): docs/results/connect4-eighth-run/scripts/probe.sh NETWORK
net=$1; bin=target/release/yinsh-zero
for moves in 44444432655552367 44444456233653366 44444456233663621; do
  scores=$($bin solve-connect4 --moves "$moves" --book data/connect4/book.bin | grep "column scores")
  cols=$(echo "$moves" | sed 's/./& /g')
  for sims in 600 2000; do
    printf 'position startpos moves %s\ngo sims %s\nquit\n' "$cols" "$sims" |
      $bin engine --game connect4 --threads 1 --player "net-mcts:checkpoint=$net,sims=$sims" |
      awk -v s="$sims" -v m="$moves" -v sc="$scores" '/^info/ {for (i = 1; i < NF; i++) if ($i == "value") v = $(i + 1)} /^bestmove/ {print m " sims=" s ": plays " $2 " (value " v ")   " sc}'
  done
done
