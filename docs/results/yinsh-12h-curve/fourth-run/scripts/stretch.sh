#!/bin/bash
# Usage (from the repository root, under setsid nohup):
#   docs/results/yinsh-12h-curve/fourth-run/scripts/stretch.sh HOURS DONE_SECONDS
# One stretch of run y12d: configs/yinsh-12h.toml from an empty run directory, as run y12c
# (third-run/) but with the network pass of e77e5eb (Winograd F(4x4, 3x3), 1.38x self-play).
# At most HOURS, with DONE_SECONDS of running time already behind it (for the curve's marks).
# The trainer runs at the lowest priority, its session's autogroup at nice 19 too, so builds
# and tests beside it take the cores first. Each stretch's start, end and the trainer's CPU
# time go to runs/y12d-stretches.log; stop it with SIGINT to the trainer (it finishes its
# step and writes its state), never SIGKILL. BIN names the binary (default: a copy made here,
# so that a rebuild during the stretch does not change it).
set -u
cd "$(dirname "$0")/../../../../.."
hours=${1:?hours}; done_s=${2:?seconds of running time already done}
mkdir -p runs
if [ -z "${BIN:-}" ]; then cp -p target/release/yinsh-zero runs/yz-y12d; BIN=runs/yz-y12d; fi
sed "s/^hours = .*/hours = $hours/" configs/yinsh-12h.toml > runs/y12d.toml
echo 19 > /proc/self/autogroup 2>/dev/null || true
start=$(date +%s)
echo "stretch start $(date -u +%FT%TZ) hours=$hours done=$done_s binary built $(date -u -r "$BIN" +%FT%TZ), work tree at $(git rev-parse --short HEAD)" >> runs/y12d-stretches.log
"$(dirname "$0")/curve.sh" "$done_s" >> runs/y12d-curve.log 2>&1 < /dev/null &
curve=$!
TIMEFORMAT="trainer CPU: user %U s, system %S s, over %R s"
{ time nice -n 19 "$BIN" train --config runs/y12d.toml --run runs/y12d >> runs/y12d.log 2>&1 < /dev/null ; } 2>> runs/y12d-stretches.log
end=$(date +%s); kill $curve 2>/dev/null
gen=$(ls runs/y12d/checkpoints | grep -E '^[0-9]{6}$' | tail -1); best=$(cat runs/y12d/checkpoints/best)
echo "stretch end $(date -u +%FT%TZ) newest $gen best $best; done=$(( done_s + end - start )) (last line: $(tail -1 runs/y12d.log))" >> runs/y12d-stretches.log
