#!/bin/bash
# Puts run y12d's committed resume state (fourth-run/resume/, written by save.sh) back as
# runs/y12d, its logs as runs/y12d.log and runs/y12d-stretches.log, and the curve networks
# taken so far as runs/y12d-curve/, so that stretch.sh resumes the run where it stood.
set -e
cd "$(dirname "$0")/../../../../.."
src=checkpoints/yinsh-12h-curve/fourth-run
[ -e runs/y12d ] && { echo "runs/y12d exists: not overwritten"; exit 1; }
mkdir -p runs/y12d/logs
cp -r $src/resume/checkpoints $src/resume/config.toml runs/y12d/
cp $src/resume/logs/metrics.jsonl runs/y12d/logs/
[ -d $src/resume/data ] && cp -r $src/resume/data runs/y12d/
cp $src/resume/train.log runs/y12d.log; cp $src/resume/y12d-stretches.log runs/y12d-stretches.log
for mark in 1h 2h 4h 8h 12h; do
  [ -d $src/$mark ] && { mkdir -p runs/y12d-curve/$mark; cp -r $src/$mark/* runs/y12d-curve/$mark/; }
done
echo "restored: newest $(ls runs/y12d/checkpoints | grep -E '^[0-9]{6}$' | tail -1), best $(cat runs/y12d/checkpoints/best)"
tail -2 runs/y12d-stretches.log
