#!/bin/bash
# Usage: runs/c4v.sh HOURS DONE_SECONDS — one stretch of run c4v of HOURS,
# DONE_SECONDS of running time already behind it (for the curve marks).
set -e
cd "$(dirname "$0")/.."
sed -i "s/^hours = .*/hours = $1/" runs/c4v.toml
echo "stretch start $(date -u +%FT%TZ) hours=$1 done=$2" >> runs/c4v-stretches.log
setsid nohup target/release/yinsh-zero train --config runs/c4v.toml --run runs/c4v >> runs/c4v.log 2>&1 < /dev/null &
setsid nohup runs/c4v-curve.sh "$2" >> runs/c4v-curve.log 2>&1 < /dev/null &
