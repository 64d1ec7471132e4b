#!/bin/bash
# The relay comparison of docs/performance.md: 8 bench clips sent by ffmpeg -re to UDP on
# loopback; bench on the direct lineup, then on a `flipbox serve` head-end's /lineup.m3u.
# Run from the repository after `swift build -c release` and one `flipbox bench` (which makes
# the clips in ~/.cache/flipbox/bench). FB=path picks another build.
set -u
FB=$(realpath "${FB:-.build/release/flipbox}")
OUT=${OUT:-$(mktemp -d)}; cd "$OUT"; echo "relay bench: results in $OUT"
pids=()
{
  echo "channels:"
  for i in 0 1 2 3 4 5 6 7; do
    ffmpeg -nostdin -loglevel error -re -stream_loop -1 -i ~/.cache/flipbox/bench/clip-1280x720-30-g2-$i.mkv -c copy -f mpegts "udp://127.0.0.1:3410$i?pkt_size=1316" &
    pids+=($!)
    echo "  - {number: $((i+1)), name: Clip $((i+1)), source: \"udp://127.0.0.1:3410$i\"}"
  done
} > direct.yaml
sleep 3
$FB bench direct.yaml --flips 80 > direct.txt 2>&1
$FB serve direct.yaml --serve-listen 127.0.0.1:5099 --no-hdhomerun > serve.log 2>&1 &
spid=$!
for i in $(seq 60); do curl -sf -o via.m3u http://127.0.0.1:5099/lineup.m3u && break; sleep 0.5; done
$FB bench via.m3u --flips 80 > via.txt 2>&1
kill -INT $spid; wait $spid
kill ${pids[@]}
for f in direct via; do echo "$f: $(grep -E '^warm' $f.txt)"; done
