#!/bin/bash
# Pilot A2: c4pa's frozen config (c4s's + [search] solver = true) to generation 100, with the
# fixed search (backup floored at proved bounds, b71afb5; completed Q within bounds, c847bd5).
cd "$(dirname "$0")/.."
bin=runs/bin/yinsh-zero-c847bd5
echo "$(date -u +%FT%TZ) c4pa2 stretch start" >> runs/machine-notes.log
$bin train --config runs/c4pa2.toml --run runs/c4pa2 >> runs/c4pa2.log 2>&1 < /dev/null
echo "$(date -u +%FT%TZ) c4pa2 stretch end: $(tail -1 runs/c4pa2.log)" >> runs/machine-notes.log
