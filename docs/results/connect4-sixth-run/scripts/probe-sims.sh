#!/bin/bash
# More search where c4v's generation 438 slips as second against `perfect`: each
# position searched by a fresh engine (no tree carried over) at several budgets,
# with and without the search's solver, beside the exact column scores.
# Usage (from the repository root): probe-sims.sh NETWORK > probe.txt
net=${1:-tests/data/networks/connect4-c4v/000438}
bin=target/release/yinsh-zero
for moves in 4 444 44444 4444443 44444456233336521; do
  echo "== $moves (ply $(( ${#moves} + 1 )))"
  $bin solve-connect4 --moves "$moves" --book data/connect4/book.bin | grep "column scores"
  for solver in false true; do
    for sims in 600 2000 5000 20000; do
      cols=$(echo "$moves" | sed 's/./& /g')
      printf 'position startpos moves %s\ngo sims %s\nquit\n' "$cols" "$sims" |
        $bin engine --game connect4 --threads 1 \
          --player "net-mcts:checkpoint=$net,sims=$sims,solver=$solver" |
        awk -v s="$sims" -v t="$solver" '/^info/ {v=$5} /^bestmove/ {print "solver=" t " sims=" s ": plays " $2 " (value " v ")"}'
    done
  done
done
