#!/usr/bin/env bash
# Time from `flipbox play URL` to its first flip completed (docs/performance.md, "Start-up and
# the box at rest"): with the provider up, refused (stopped) and silent (accepts, never answers),
# the last two from the copy the first start kept. Needs a built flipbox (FLIPBOX, default the debug build).
set -uo pipefail
BIN=${FLIPBOX:-$(cd "$(dirname "$0")/.." && pwd)/.build/debug/flipbox}
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/www" "$WORK/state"
cat > "$WORK/www/lineup.m3u" <<'M3U'
#EXTM3U
#EXTINF:-1 tvg-chno="1",Red One
test://color/ff0000?size=320x180&fps=30&gop=30
#EXTINF:-1 tvg-chno="2",Green Two
test://color/00ff00?size=320x180&fps=30&gop=30
M3U
WEB=$((20000 + RANDOM % 20000)); API=$((WEB + 1))
first_picture() {
  local start end pid outcome
  start=$(date +%s.%N)
  "$BIN" play "http://127.0.0.1:$WEB/lineup.m3u" --output headless --no-keys --size 320x180 \
    --http "127.0.0.1:$API" --state-dir "$WORK/state" > "$WORK/box.log" 2>&1 &
  pid=$!
  for _ in $(seq 800); do
    outcome=$(curl -s -m 1 "http://127.0.0.1:$API/api/v1/status" \
      | python3 -c 'import sys,json; print((json.load(sys.stdin).get("lastFlip") or {}).get("outcome",""))' 2>/dev/null)
    [ "$outcome" = completed ] && break
    sleep 0.05
  done
  end=$(date +%s.%N)
  kill -INT "$pid"; wait "$pid" 2>/dev/null
  python3 -c "print(f'{($end - $start):.1f} s')"
}
said() { grep -o "lineup.m3u: .*" "$WORK/box.log" | head -1; }
(cd "$WORK/www" && exec python3 -m http.server "$WEB" --bind 127.0.0.1 >/dev/null 2>&1) & server=$!
sleep 1
echo "up: $(first_picture)"
kill "$server"; wait "$server" 2>/dev/null
echo "refused, kept copy: $(first_picture) $(first_picture) $(first_picture)  ($(said))"
python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16); held = []
while True: held.append(s.accept()[0])' "$WEB" & silent=$!
sleep 0.5
echo "silent, kept copy: $(first_picture) $(first_picture)  ($(said))"
kill "$silent"
