#!/bin/bash
# Copies run c4w's best network at 0.5, 1, 2 and 4 h of running time.
cd "$(dirname "$0")/.."
done=$1; start=$(date +%s)
for mark in 0.5h:1800 1h:3600 2h:7200 4h:14400; do
  name=${mark%%:*}; at=${mark##*:}
  left=$(( at - done - ($(date +%s) - start) ))
  [ "$at" -le "$done" ] && continue
  sleep "$left"
  pgrep -f "run runs/c4w" > /dev/null || { echo "run not running at $name"; exit 0; }
  best=$(cat runs/c4w/checkpoints/best)
  mkdir -p runs/c4w-curve/$name
  cp -r runs/c4w/checkpoints/$best runs/c4w-curve/$name/
  echo "$(date -u +%FT%TZ) $name: generation $best"
done
