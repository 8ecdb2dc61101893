#!/bin/bash
# Stretch 5 of c4v: the machine was reset during stretch 4 after checkpoint 000391
# (written 19:11:18, 12,748 s of running time); runs the 1,652 s left to 4 h, then c4v-final.sh.
cd "$(dirname "$0")/.."
sed -i "s/^hours = .*/hours = 0.4589/" runs/c4v.toml
echo "stretch 4 ended by the machine's reset after checkpoint 000391 (written 19:11:18Z): done=12748" >> runs/c4v-stretches.log
echo "stretch start $(date -u +%FT%TZ) hours=0.4589 done=12748" >> runs/c4v-stretches.log
target/release/yinsh-zero train --config runs/c4v.toml --run runs/c4v >> runs/c4v.log 2>&1 < /dev/null
gen=$(ls runs/c4v/checkpoints | grep -E '^[0-9]{6}$' | tail -1); best=$(cat runs/c4v/checkpoints/best)
echo "stretch end $(date -u +%FT%TZ) generations 392-$gen best $best (last line: $(tail -1 runs/c4v.log))" >> runs/c4v-stretches.log
exec runs/c4v-final.sh
