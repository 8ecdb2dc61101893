#!/bin/bash
# Play-time tuning keys at c4w 573's three ply-18 slips as second against
# `perfect`: each position searched by a fresh engine at 600 simulations
# with c_PUCT and the priors' temperature varied.
# Usage (from the repository root): c4-tune-probe.sh NETWORK > probe.txt
net=${1:-tests/data/networks/connect4-c4w/000573}
bin=target/release/yinsh-zero
for moves in 44444432655552367 44444456233653366 44444456233663621; do
  echo "== $moves (ply $(( ${#moves} + 1 )))"
  $bin solve-connect4 --moves "$moves" --book data/connect4/book.bin | grep "column scores"
  for temp in 1 1.4 2; do
    for cpuct in 1.25 2.5; do
      cols=$(echo "$moves" | sed 's/./& /g')
      printf 'position startpos moves %s\ngo sims 600\nquit\n' "$cols" |
        $bin engine --game connect4 --threads 1 \
          --player "net-mcts:checkpoint=$net,sims=600,policy_temp=$temp,cpuct=$cpuct" |
        awk -v t="$temp" -v c="$cpuct" '/^info/ {v=$5} /^bestmove/ {print "policy_temp=" t " cpuct=" c ": plays " $2 " (value " v ")"}'
    done
  done
done
