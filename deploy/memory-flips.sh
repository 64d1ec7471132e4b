#!/usr/bin/env bash
# Resident memory of a box flipping six live UDP channels for a while (docs/reliability.md,
# "Allocator arenas"). Sends six ffmpeg-made clips with `ffmpeg -re -c copy` to loopback, plays
# them with `flipbox play` (headless, 1280x720, under 1,024 open files), sends a request every
# 0.1-0.5 s (next 40 %, previous 20 %, tune 20 %, snapshot 10 %, banner 10 %) and prints the
# player's resident memory every 30 s, then its warm flip times.
#
#   deploy/memory-flips.sh BINARY MINUTES [VAR=VALUE...]   e.g. MALLOC_ARENA_MAX=16 for glibc's default
set -euo pipefail
binary=${1:?the flipbox binary}; minutes=${2:-20}; shift 2 || true
dir=$(mktemp -d /tmp/flipbox-memory-XXXXXX)
base=$((36000 + RANDOM % 200 * 10)); http=$((8900 + RANDOM % 90))
cleanup() { kill "${pids[@]}" 2>/dev/null || true; [ -n "${player:-}" ] && kill -INT "$player" 2>/dev/null || true; }
trap cleanup EXIT
pids=()
echo "channels:" > "$dir/lineup.yaml"
for i in 0 1 2 3 4 5; do
  [ -f "$dir/c$i.ts" ] || ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=25 \
    -f lavfi -i "sine=frequency=$((300 + i * 50)):sample_rate=48000" -t 20 -vf "hue=h=$((i * 60))" \
    -c:v libx264 -preset veryfast -g 25 -b:v 1000k -pix_fmt yuv420p -c:a aac -b:a 96k -f mpegts "$dir/c$i.ts"
  ffmpeg -loglevel quiet -re -stream_loop -1 -i "$dir/c$i.ts" -c copy -f mpegts "udp://127.0.0.1:$((base + i))?pkt_size=1316" </dev/null &
  pids+=($!)
  echo "  - {number: $((i + 1)), name: C$i, source: \"udp://@127.0.0.1:$((base + i))\"}" >> "$dir/lineup.yaml"
done
env "$@" FLIPBOX_STATE_DIR="$dir" prlimit --nofile=1024:1024 -- "$binary" play "$dir/lineup.yaml" --output headless \
  --no-keys --size 1280x720 --http "127.0.0.1:$http" > "$dir/player.log" 2>&1 &
player=$!
sleep 10
start=$(date +%s); end=$((start + minutes * 60)); next=$start; requests=0
while [ "$(date +%s)" -lt "$end" ]; do
  if [ "$(date +%s)" -ge "$next" ]; then
    pid=$(pgrep -P "$player" -f "play $dir" || echo "$player")
    echo "$(( ($(date +%s) - start) / 60 )) min $(( $(grep VmRSS "/proc/$pid/status" | awk '{print $2}') / 1024 )) MB"
    next=$((next + 30))
  fi
  r=$((RANDOM % 10)); api="http://127.0.0.1:$http/api/v1"
  case $r in
    0|1|2|3) curl -s -o /dev/null -m 10 -X POST "$api/flip/next" ;;
    4|5) curl -s -o /dev/null -m 10 -X POST "$api/flip/previous" ;;
    6|7) curl -s -o /dev/null -m 10 -X POST "$api/tune/$((RANDOM % 6 + 1))" ;;
    8) curl -s -o /dev/null -m 10 "$api/snapshot.png?width=320" ;;
    *) curl -s -o /dev/null -m 10 -X POST "$api/overlay/banner" ;;
  esac
  requests=$((requests + 1)); sleep "0.$((RANDOM % 5 + 1))"
done
echo "$requests requests"
grep -o "in [0-9.]* ms (warm)" "$dir/player.log" | awk '{print $2}' | sort -n |
  awk '{a[NR] = $1} END {printf "warm flips: %d, p50 %.1f ms, p95 %.1f ms, max %.1f ms\n", NR, a[int(NR * 0.5)], a[int(NR * 0.95)], a[NR]}'
