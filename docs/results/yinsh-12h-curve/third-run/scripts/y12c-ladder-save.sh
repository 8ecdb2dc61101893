#!/bin/bash
# Usage: runs/y12c-ladder-save.sh MARK...: copies each mark's ladder as it stands (its game
# records cut at the last whole line, its log and, once done, its JSON) into
# docs/results/yinsh-12h-curve/third-run/ladders/MARK/, to be committed; `--run` resumes from them.
set -e
cd "$(dirname "$0")/.."
for mark in "$@"; do
  src=runs/y12c-ladder/$mark; out=docs/results/yinsh-12h-curve/third-run/ladders/$mark
  [ -d "$src" ] || continue
  rm -rf "$out"; mkdir -p "$out/eval"
  for f in "$src"/eval/*.jsonl; do
    python3 - "$f" "$out/eval/$(basename "$f")" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(data[: data.rfind(b"\n") + 1])
PY
  done
  cp "$src"/ladder.log "$out"/; [ -f "$src"/ladder.json ] && cp "$src"/ladder.json "$out"/
  echo "$mark: $(cat "$out"/eval/*.jsonl | wc -l) games"
done
cp runs/y12c-stretches.log docs/results/yinsh-12h-curve/third-run/logs/
