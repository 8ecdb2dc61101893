#!/bin/bash
# Waits for c4v's third stretch (started 2026-11-30T16:20:20Z, 2,490 s done before it) to
# stop, logs its end, starts the last stretch with the hours left to 4 h (14,400 s), then
# c4v-final.sh (the 4 h network and the card's grades).
cd "$(dirname "$0")/.."
while pgrep -f "run runs/c4v" > /dev/null; do sleep 2; done
end=$(date +%s); start=$(date -d 2026-11-30T16:20:20Z +%s)
last=$(tail -1 runs/c4v.log)
gen=$(ls runs/c4v/checkpoints | grep -E '^[0-9]{6}$' | tail -1); best=$(cat runs/c4v/checkpoints/best)
done=$(( 2490 + end - start ))
echo "stretch end $(date -u +%FT%TZ) generations 79-$gen best $best; done=$done (last line: $last)" >> runs/c4v-stretches.log
hours=$(python3 -c "print(round((14400 - $done) / 3600, 4))")
sed -i "s/^hours = .*/hours = $hours/" runs/c4v.toml
echo "stretch start $(date -u +%FT%TZ) hours=$hours done=$done" >> runs/c4v-stretches.log
setsid nohup target/release/yinsh-zero train --config runs/c4v.toml --run runs/c4v >> runs/c4v.log 2>&1 < /dev/null &
sleep 5
exec runs/c4v-final.sh
