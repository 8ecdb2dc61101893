#!/bin/bash
# Starts (or resumes) sides of issue 80's YINSH pair: each side's run folder
# RUNS/yinsh-SIDE begins as a copy of the shipped network, checkpoints/000173 (its
# weights and Adam state), where it has no checkpoints and no resume point waits for
# it; then `train` goes on at nice 19 with its resume point at resume/SIDE here.
# RUNS: where the runs go (default runs); YZ: the binary. Arguments: the sides (a,
# e-aux, g-pool: the names of the .toml files here).
set -euo pipefail
RUNS=${RUNS:-runs}; YZ=${YZ:-yinsh-zero}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
mkdir -p "$RUNS"
for side in "$@"; do
    [ -f "$HERE/$side.toml" ] || { echo "no side $side: $HERE/$side.toml" >&2; exit 2; }
    run=$RUNS/yinsh-$side; point=$HERE/resume/$side
    if [ ! -d "$run/checkpoints" ] && [ ! -d "$point" ]; then
        mkdir -p "$run/checkpoints"
        cp -r "$ROOT/checkpoints/000173" "$run/checkpoints/"
        echo 000173 > "$run/checkpoints/best"
    fi
    nohup nice -n 19 "$YZ" train --config "$HERE/$side.toml" --run "$run" \
        --resume-point "$point" >> "$RUNS/yinsh-$side.log" 2>&1 &
    echo "$side: $run (log $RUNS/yinsh-$side.log)"
done
