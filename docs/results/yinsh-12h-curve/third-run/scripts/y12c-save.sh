#!/bin/bash
# Copies run y12c's resume state (newest and best checkpoints, the newest's
# replay window, frozen config, logs) and its curve networks into
# checkpoints/yinsh-12h-curve/third-run/, to be committed.
set -e
cd "$(dirname "$0")/.."
run=runs/y12c; out=checkpoints/yinsh-12h-curve/third-run
rm -rf $out/resume; mkdir -p $out/resume/checkpoints
new=$(ls $run/checkpoints | grep -E '^[0-9]{6}$' | tail -1); best=$(cat $run/checkpoints/best)
cp -r $run/checkpoints/$new $out/resume/checkpoints/
[ "$best" != "$new" ] && cp -r $run/checkpoints/$best $out/resume/checkpoints/
cp $run/checkpoints/best $out/resume/checkpoints/
cp $run/config.toml $out/resume/
mkdir -p $out/resume/logs && cp $run/logs/metrics.jsonl $out/resume/logs/
python3 - "$run" "$out/resume" "$new" <<'PY'
import json, os, shutil, sys
run, out, new = sys.argv[1:]
meta = json.load(open(f"{run}/checkpoints/{new}/meta.json"))
for f in meta["replay_files"][meta.get("replay_spent", 0):]:
    os.makedirs(os.path.dirname(f"{out}/{f}"), exist_ok=True)
    if os.path.exists(f"{run}/{f}"):
        shutil.copy2(f"{run}/{f}", f"{out}/{f}")
PY
cp runs/y12c.log $out/resume/train.log; cp runs/y12c-stretches.log $out/resume/
for mark in 1h 2h 4h 8h 12h; do
  [ -d runs/y12c-curve/$mark ] || continue
  g=$(ls runs/y12c-curve/$mark); mkdir -p $out/$mark/$g
  cp runs/y12c-curve/$mark/$g/model.bpk runs/y12c-curve/$mark/$g/meta.json $out/$mark/$g/
done
# Only the newest's replay list is read on resuming; the others' games are not kept.
for m in $(find $out -name meta.json ! -path "$out/resume/checkpoints/$new/*"); do
  python3 -c 'import json,sys; p=sys.argv[1]; m=json.load(open(p)); m["replay_files"]=[]; m.pop("replay_spent",None); open(p,"w").write(json.dumps(m,indent=2)+"\n")' $m
done
echo "newest $new, best $best"; du -sh $out $out/*
