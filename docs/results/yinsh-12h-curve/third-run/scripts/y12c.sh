#!/bin/bash
# Usage: runs/y12c.sh HOURS DONE_SECONDS — one stretch of run y12c (configs/yinsh-12h.toml
# from an empty run directory, issue 32's learning curve) of at most HOURS, DONE_SECONDS of
# running time already behind it (for the curve marks). Meant to have the cores to itself.
# Logs the stretch's start and end in runs/y12c-stretches.log; run it under setsid nohup.
cd "$(dirname "$0")/.."
sed "s/^hours = .*/hours = $1/" configs/yinsh-12h.toml > runs/y12c.toml
start=$(date +%s)
echo "stretch start $(date -u +%FT%TZ) hours=$1 done=$2 binary built $(date -u -r target/release/yinsh-zero +%FT%TZ), work tree at $(git rev-parse --short HEAD)" >> runs/y12c-stretches.log
runs/y12c-curve.sh "$2" >> runs/y12c-curve.log 2>&1 < /dev/null &
curve=$!
target/release/yinsh-zero train --config runs/y12c.toml --run runs/y12c >> runs/y12c.log 2>&1 < /dev/null
end=$(date +%s); kill $curve 2>/dev/null
gen=$(ls runs/y12c/checkpoints | grep -E '^[0-9]{6}$' | tail -1); best=$(cat runs/y12c/checkpoints/best)
echo "stretch end $(date -u +%FT%TZ) newest $gen best $best; done=$(( $2 + end - start )) (last line: $(tail -1 runs/y12c.log))" >> runs/y12c-stretches.log
