#!/bin/bash
# Why 643 answers perfect's opening 4 with 2 (exact scores after 4: 1:-4 2:-2 3:-2 4:-1 5:-2
# 6:-2 7:-4): what the run's networks around it answer, what their searches think of the five
# central replies, what averaged weights and play-time keys answer, and how 643 plays White
# after 4 2 against perfect (where White wins with its 20th stone, score +2).
# Usage (from the repository root): docs/results/connect4-eighth-run/scripts/ply2-why.sh RUN_CHECKPOINTS
# (RUN_CHECKPOINTS: run c4x's checkpoints folder, every generation kept); BIN overrides the binary.
set -eu
run=$1; bin=${BIN:-target/release/yinsh-zero}; shipped=checkpoints/connect-four
gen() { printf '%s/%06d' "$run" "$1"; }
# `go` once on a fresh engine: prints "<bestmove> <root value>"
ask() { # moves sims spec
  printf 'position startpos moves %s\ngo sims %s\nquit\n' "$1" "$2" |
    "$bin" engine --game connect4 --threads 1 --player "$3" 2>/dev/null |
    awk '/^info/ {for (i = 1; i < NF; i++) if ($i == "value") v = $(i + 1)} /^bestmove/ {print $2, v}'
}

echo "# 1. The answer to 4 at 600 simulations, every fourth generation 560-644 (generation: move value)"
for g in $(seq 560 4 644); do echo "$g: $(ask 4 600 "net-mcts:checkpoint=$(gen "$g"),sims=600")"; done

echo "# 2. White's value (search, 200 simulations) after 4 then 2, 3, 4, 5, 6; every second generation 600-646"
for g in $(seq 600 2 646); do
  line="$g:"
  for c in 2 3 4 5 6; do line="$line $(ask "4 $c" 200 "net-mcts:checkpoint=$(gen "$g"),sims=200" | cut -d' ' -f2)"; done
  echo "$line"
done

echo "# 3. Weights averaged over the run's last N generations (ending at 646): the answer to 4 at 600 simulations"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for n in 8 16 32 64; do
  "$bin" average --out "$tmp/last$n" $(for g in $(seq $((647 - n)) 646); do gen "$g"; echo; done) >/dev/null
  echo "last $n: $(ask 4 600 "net-mcts:checkpoint=$tmp/last$n,sims=600")"
done

echo "# 4. 643 (shipped) under play-time keys: the answer to 4"
for keys in score_threshold=0 score_threshold=0,score=2 score_threshold=0,score=4 score_threshold=0.3,score=2 score=3 symmetries=true; do
  for sims in 600 2000; do echo "$keys sims=$sims: $(ask 4 "$sims" "net-mcts:checkpoint=$shipped,sims=$sims,$keys")"; done
done

# How a network plays White against perfect after 4 and each central answer, three games a colour
# (perfect's ties at random); exact: after 4 4 White wins with its 21st stone (41 plies), after
# 4 2, 4 3, 4 5 and 4 6 with its 20th (39).
punish() { # checkpoint label
  printf '42\n43\n44\n45\n46\n' > "$tmp/open.txt"
  rm -rf "$tmp/run"
  "$bin" evaluate --game connect4 --openings "$tmp/open.txt" --games 30 --threads 2 --seed 1 --run "$tmp/run" \
    --players "net-mcts:checkpoint=$1,sims=600" perfect >/dev/null
  cat "$tmp"/run/eval/*.jsonl | python3 <(cat <<'PY'
import json, sys
from collections import defaultdict
plies = defaultdict(list)
for line in sys.stdin:
    g = json.loads(line)
    side = "White" if g["white"].startswith("net") else "Black"
    plies[(side, g["opening"].replace(" ", ""))].append(f"{g['result']} in {g['length']}")
for (side, opening), games in sorted(plies.items(), key=lambda kv: (kv[0][0] != "White", kv[0][1])):
    print(f"after {opening}, the network as {side}: {', '.join(games)} plies")
PY
)
}

echo "# 5. 643 (shipped) at 600 simulations against perfect after 4 and each central answer"
punish "$shipped" 643

seventh=tests/data/networks/connect4-c4w/000573
echo "# 6. Run c4w's 573 (shipped before 643; answers 4 after 4): its answer, White's values after 4 then 2-6 (200 simulations), and its games as in 5"
echo "answer to 4: $(ask 4 600 "net-mcts:checkpoint=$seventh,sims=600")"
line="values:"
for c in 2 3 4 5 6; do line="$line $(ask "4 $c" 200 "net-mcts:checkpoint=$seventh,sims=200" | cut -d' ' -f2)"; done
echo "$line"
punish "$seventh" 573
