#!/bin/bash
# Grades both sides of the Nine A/B pair at equal CPU-hours: for each T, the newest
# checkpoint of each run at or below T (its meta.json's cpu_seconds).
# RUNS: the folder holding the runs and nine-db (default runs); YZ: the binary;
# PAIR: the runs' folder names under RUNS (default "a-today b-search-value").
RUNS=${RUNS:-runs}; YZ=${YZ:-yinsh-zero}; PAIR=${PAIR:-a-today b-search-value}; HERE=$(cd "$(dirname "$0")" && pwd)
cd "$RUNS" && mkdir -p grades
for T in "$@"; do
  python3 "$HERE/pick.py" $T $PAIR | while read r g c s n; do
    out=grades/$r-$g.json
    [ -s $out ] || nice -n 5 "$YZ" grade --checkpoint $r/checkpoints/$g --endgame 2000 --games 0 --positions 0 --vs-perfect 0 --db nine-db --json > $out 2>/dev/null
    python3 -c "
import json;d=json.load(open('$out'));t=d['endgame_total'];e=d['endgame']['3:3']
print('T=$T $r gen $g cpu_h=%.3f samples=$s games=$n optimal=%.1f%% critical_kept=%d/%d=%.1f%% 3:3_optimal=%.1f%% value_head=%.1f%%'%($c,100*d['endgame_optimal_share'],t['critical_preserving'],t['critical'],100*t['critical_preserving']/t['critical'],100*e['optimal']/e['decisions'],100*d['endgame_value_head_accuracy']))"
  done
done
