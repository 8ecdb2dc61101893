#!/bin/bash
# Copies run y12d's best network at 1, 2, 4, 8 and 12 h of running time into runs/y12d-curve/
# (started by stretch.sh with the seconds already done; wall time is running time while the
# stretch lasts).
cd "$(dirname "$0")/../../../../.."
done_s=$1; start=$(date +%s)
for mark in 1h:3600 2h:7200 4h:14400 8h:28800 12h:43200; do
  name=${mark%%:*}; at=${mark##*:}
  [ "$at" -le "$done_s" ] && continue
  sleep $(( at - done_s - ($(date +%s) - start) ))
  pgrep -f "run runs/y12d" > /dev/null || { echo "run not running at $name"; exit 0; }
  best=$(cat runs/y12d/checkpoints/best)
  mkdir -p runs/y12d-curve/$name
  cp -r runs/y12d/checkpoints/$best runs/y12d-curve/$name/
  echo "$(date -u +%FT%TZ) $name: generation $best"
done
