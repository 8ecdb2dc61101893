#!/bin/bash
# Pilot M (issue 34's second player): c4pb's frozen config (c4s's + search margin target) with
# an undiscounted value (value_discount 1.0), no resignation, and a margin weight of 1.0 gated
# at |win - loss| 0.75 ([search] score_threshold, commit 70d8539), to generation 150.
cd "$(dirname "$0")/.."
bin=runs/bin/yinsh-zero-70d8539
echo "$(date -u +%FT%TZ) c4m stretch start" >> runs/machine-notes.log
$bin train --config runs/c4m.toml --run runs/c4m >> runs/c4m.log 2>&1 < /dev/null
echo "$(date -u +%FT%TZ) c4m stretch end: $(tail -1 runs/c4m.log)" >> runs/machine-notes.log
