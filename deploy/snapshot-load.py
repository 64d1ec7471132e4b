#!/usr/bin/env python3
"""Flip latency and /status latency while 4 clients loop on snapshot.png?width=7680 (or --width).

Usage: deploy/snapshot-load.py [FLIPBOX_BINARY] [--clients 4] [--flips 20] [--width 7680]
Starts `flipbox play --output headless` (1280x720) on a lineup of four test channels, measures
flips and /status alone, then again while the clients fetch snapshots, and prints the figures
(docs/performance.md, "Snapshots under load").
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, threading, time, urllib.request

LINEUP = """settings:
  banner-seconds: 0
channels:
""" + "".join(f"""  - number: {n}
    name: Test {n}
    source: test://{p}?size=320x180&fps=30&gop=30
""" for n, p in [(1, "smpte"), (2, "ball"), (3, "checkers"), (4, "gradient")])


def request(port, method, path, timeout=60):
    started = time.monotonic()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        body, status = e.read(), e.code
    return status, body, (time.monotonic() - started) * 1000


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def measure(port, flips):
    flip_wall, flip_reported, status_wall = [], [], []
    for i in range(flips):
        s, body, ms = request(port, "POST", "/api/v1/flip/next")
        flip_wall.append(ms)
        if s == 200:
            flip_reported.append(json.loads(body)["latencyMs"])
        _, _, ms = request(port, "GET", "/api/v1/status")
        status_wall.append(ms)
        time.sleep(0.3)
    return flip_wall, flip_reported, status_wall


def line(name, values):
    if not values:
        return f"{name}: none"
    return f"{name}: p50 {pct(values, 50):.0f} ms, p95 {pct(values, 95):.0f} ms, max {max(values):.0f} ms (n={len(values)})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=".build/debug/flipbox")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--flips", type=int, default=20)
    ap.add_argument("--port", type=int, default=18642)
    ap.add_argument("--width", type=int, default=7680)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="flipbox-snapload-")
    lineup = os.path.join(d, "lineup.yaml")
    open(lineup, "w").write(LINEUP)
    box = subprocess.Popen([a.binary, "play", lineup, "--output", "headless", "--no-keys", "--size", "1280x720",
                            "--http", f"127.0.0.1:{a.port}", "--state-dir", d],
                           stdout=open(os.path.join(d, "box.log"), "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                if request(a.port, "GET", "/api/v1/status", 2)[0] == 200:
                    break
            except Exception:
                pass
            time.sleep(0.2)
        for _ in range(4):
            request(a.port, "POST", "/api/v1/flip/next")
        time.sleep(1)
        quiet = measure(a.port, a.flips)
        stop = threading.Event()
        snaps = []

        def client():
            while not stop.is_set():
                s, body, ms = request(a.port, "GET", f"/api/v1/snapshot.png?width={a.width}")
                snaps.append((s, len(body), ms))

        threads = [threading.Thread(target=client) for _ in range(a.clients)]
        for t in threads:
            t.start()
        time.sleep(2)
        loaded = measure(a.port, a.flips)
        stop.set()
        for t in threads:
            t.join()
        print(f"binary: {a.binary}")
        print("alone:")
        print("  " + line("flip (HTTP round trip)", quiet[0]))
        print("  " + line("flip (reported latencyMs)", quiet[1]))
        print("  " + line("/status", quiet[2]))
        print(f"with {a.clients} clients looping on snapshot.png?width={a.width}:")
        print("  " + line("flip (HTTP round trip)", loaded[0]))
        print("  " + line("flip (reported latencyMs)", loaded[1]))
        print("  " + line("/status", loaded[2]))
        ok = [ms for s, n, ms in snaps if s == 200]
        sizes = sorted({n for s, n, ms in snaps if s == 200})
        print("  " + line("snapshot", ok) + f", PNG bytes {sizes[0] if sizes else 0}..{sizes[-1] if sizes else 0}, statuses {sorted({s for s, _, _ in snaps})}")
    finally:
        box.send_signal(2)
        box.wait(10)


if __name__ == "__main__":
    sys.exit(main())
