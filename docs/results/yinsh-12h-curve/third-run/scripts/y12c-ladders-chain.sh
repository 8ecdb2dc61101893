#!/bin/bash
# Runs the given marks' ladders one after another, each with the cores to itself.
cd "$(dirname "$0")/.."
while pgrep -f 'yinsh-zero evaluate' > /dev/null; do sleep 10; done
for mark in "$@"; do runs/y12c-ladder.sh "$mark"; done
