#!/bin/bash
# Copies run y12c's best network at 1, 2, 4, 8 and 12 h of running time.
cd "$(dirname "$0")/.."
done=$1; start=$(date +%s)
for mark in 1h:3600 2h:7200 4h:14400 8h:28800 12h:43200; do
  name=${mark%%:*}; at=${mark##*:}
  [ "$at" -le "$done" ] && continue
  left=$(( at - done - ($(date +%s) - start) ))
  sleep "$left"
  pgrep -f "run runs/y12c" > /dev/null || { echo "run not running at $name"; exit 0; }
  best=$(cat runs/y12c/checkpoints/best)
  mkdir -p runs/y12c-curve/$name
  cp -r runs/y12c/checkpoints/$best runs/y12c-curve/$name/
  echo "$(date -u +%FT%TZ) $name: generation $best"
done
