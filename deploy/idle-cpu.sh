#!/usr/bin/env bash
# CPU of a box idle on one channel (docs/performance.md, "Start-up and the box at rest"): one live
# channel sent by `ffmpeg -re -c copy` to loopback UDP, `flipbox play` headless at SIZE and FPS,
# nothing asked of it; prints the player's CPU (user + system, % of one core) over SECONDS after
# a 20 s settle.
#
#   deploy/idle-cpu.sh BINARY CLIP.ts [SIZE] [FPS] [SECONDS]   e.g. ... clip.ts 1920x1080 60 60
set -euo pipefail
binary=${1:?the flipbox binary}; clip=${2:?an MPEG-TS clip}; size=${3:-1920x1080}; fps=${4:-60}; seconds=${5:-60}
dir=$(mktemp -d /tmp/flipbox-idle-XXXXXX)
port=$((37000 + RANDOM % 1000 * 2)); http=$((8800 + RANDOM % 90))
ffmpeg -loglevel quiet -re -stream_loop -1 -i "$clip" -c copy -f mpegts "udp://127.0.0.1:$port?pkt_size=1316" </dev/null &
sender=$!
printf 'channels:\n  - {number: 1, name: Idle, source: "udp://@127.0.0.1:%s"}\n' "$port" > "$dir/lineup.yaml"
FLIPBOX_STATE_DIR="$dir" "$binary" play "$dir/lineup.yaml" --output headless --no-keys --size "$size" --fps "$fps" \
  --http "127.0.0.1:$http" > "$dir/player.log" 2>&1 &
player=$!
trap 'kill -INT $player 2>/dev/null; kill $sender 2>/dev/null' EXIT
sleep 20
ticks() { awk '{print $14 + $15}' "/proc/$player/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks); s0=$(date +%s.%N)
sleep "$seconds"
t1=$(ticks); s1=$(date +%s.%N)
awk -v t="$((t1 - t0))" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v size="$size" -v fps="$fps" \
  'BEGIN {printf "idle on one channel, %s at %s fps: %.1f %% of a core over %.0f s\n", size, fps, 100 * t / hz / (s1 - s0), s1 - s0}'
curl -s "http://127.0.0.1:$http/api/v1/status" | head -c 300; echo
