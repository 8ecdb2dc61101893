#!/bin/bash
# Usage: runs/c4w.sh HOURS DONE_SECONDS — one stretch of run c4w of HOURS,
# DONE_SECONDS of running time already behind it (for the curve marks).
set -e
cd "$(dirname "$0")/.."
sed -i "s/^hours = .*/hours = $1/" runs/c4w.toml
echo "stretch start $(date -u +%FT%TZ) hours=$1 done=$2" >> runs/c4w-stretches.log
setsid nohup target/release/yinsh-zero train --config runs/c4w.toml --run runs/c4w >> runs/c4w.log 2>&1 < /dev/null &
setsid nohup runs/c4w-curve.sh "$2" >> runs/c4w-curve.log 2>&1 < /dev/null &
