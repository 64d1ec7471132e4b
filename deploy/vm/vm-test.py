#!/usr/bin/env python3
"""Flipbox as a box, proven on a real kernel: a QEMU guest with a virtio GPU (KMS) and a virtio
keyboard (evdev), Flipbox installed by deploy/install.sh with its unit, booted, and checked
from outside by QMP screendumps and injected keys (`make vm-test`; docs/appliance.md).

  deploy/vm/vm-test.py                 every check, and the figures for docs/performance.md
  deploy/vm/vm-test.py --short         boot, first picture, a key, a restart (CI's form)
  deploy/vm/vm-test.py --screenshots docs/images/appliance   keep the screendumps as PNG

The guest's root file system is cached (deploy/vm/build-image.sh); each run installs the binary
into an overlay of it and boots a fresh disk image made from that overlay, so nothing of a run
is left in the cache. The guest's console goes to <run dir>/console.log and its journal is
copied to <run dir>/journal.log at the end.

Exit status: 0 when every check passed, 1 when one failed, 77 when the test cannot run here (no
qemu-system-x86_64, not root, no debootstrap): it says why, once.
"""
import argparse
import base64
import json
import math
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import time
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(REPO, "deploy", "vm")
CANNOT_RUN = 77

# The guest lineup's pictures (deploy/vm/guest/lineup.yaml): channel -> centre colour, and the
# clips and logos this script makes for it.
CHANNELS = {"1": (0xC8, 0x1E, 0x1E), "2": (0x1E, 0xA0, 0x1E), "3": (0x1E, 0x3C, 0xC8), "12": (0xA0, 0xA0, 0xA0)}
CLIPS = {"red": CHANNELS["1"], "green": CHANNELS["2"], "blue": CHANNELS["3"], "grey": CHANNELS["12"]}
YELLOW, MAGENTA = (0xFF, 0xD0, 0x00), (0xE0, 0x00, 0xE0)
LOGOS = {"1": YELLOW, "2": MAGENTA, "3": YELLOW, "12": MAGENTA}
# Each clip's sound: a tone, heard through the guest's HDA sound card (--audio-device hw:0,0),
# which QEMU writes to <run dir>/sound.wav.
TONES = {"1": 500, "2": 1000, "3": 1500, "12": 2000}
SOUND_RATE, SOUND_CHANNELS = 48000, 2
BANNER_STRIPE = (0xFF, 0xD5, 0x4A)
WIDTH, HEIGHT = 640, 480
# How much longer every wait is under software emulation (a wait only matters when a check fails;
# under TCG on a busy machine a cold start took over 30 s).
PATIENCE = 1


def say(text):
    print(f"vm-test: {text}", flush=True)


# ---------------------------------------------------------------------------------------------
# Pictures


class Picture:
    """A screendump (PPM P6) as RGB rows."""

    def __init__(self, data):
        header, rest = [], data
        while len(header) < 4:
            rest = rest.lstrip()
            if rest.startswith(b"#"):
                rest = rest[rest.index(b"\n") + 1:]
                continue
            end = min(i for i in (rest.find(b" "), rest.find(b"\n"), rest.find(b"\t")) if i >= 0)
            header.append(rest[:end])
            rest = rest[end:]
        if header[0] != b"P6":
            raise ValueError("not a P6 picture")
        self.width, self.height = int(header[1]), int(header[2])
        self.pixels = rest[1:1 + self.width * self.height * 3]

    def at(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.pixels[i:i + 3])

    def share(self, colour, x0, y0, x1, y1, tolerance=48):
        """The share of pixels in [x0,x1)x[y0,y1) within `tolerance` of `colour` on each channel."""
        hits = total = 0
        for y in range(y0, y1):
            for x in range(x0, x1):
                total += 1
                if all(abs(a - b) <= tolerance for a, b in zip(self.at(x, y), colour)):
                    hits += 1
        return hits / max(1, total)

    def channel(self):
        """The channel whose colour fills the middle of the screen, else None."""
        w, h = self.width, self.height
        for number, colour in CHANNELS.items():
            if self.share(colour, w // 2 - 40, h // 2 - 40, w // 2 + 40, h // 2 + 40, tolerance=40) > 0.9:
                return number
        return None

    def logo(self, colour):
        """The share of the top-right corner in the logo's colour (the logo covers about a fifth)."""
        w = self.width
        return self.share(colour, w - w // 4, 0, w, self.height // 4, tolerance=60)

    def banner(self):
        """The share of the banner's yellow stripe at its left edge (InfoBanner.box)."""
        margin = int(self.height * 0.06)
        h = int(150 * self.height / 720)
        top = self.height - margin - h
        return self.share(BANNER_STRIPE, margin + 1, top + h // 4, margin + 4, top + 3 * h // 4, tolerance=60)

    def png(self):
        return png(self.width, self.height, self.pixels)


def png(width, height, rgb):
    """An RGB PNG file's bytes."""
    rows = b"".join(b"\x00" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def make_media(etc):
    """The guest lineup's clips (solid colours, H.264) and logos (solid PNGs) under `etc`."""
    os.makedirs(os.path.join(etc, "media"), exist_ok=True)
    os.makedirs(os.path.join(etc, "logos"), exist_ok=True)
    numbers = {name: number for number, name in zip(CHANNELS, CLIPS)}
    for name, (r, g, b) in CLIPS.items():
        run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"color=c=0x{r:02x}{g:02x}{b:02x}:s=160x120:r=10",
             "-f", "lavfi", "-i", f"sine=frequency={TONES[numbers[name]]}:sample_rate=48000",
             "-t", "10", "-c:v", "libx264", "-preset", "veryfast", "-g", "10", "-pix_fmt", "yuv420p",
             "-c:a", "aac", "-b:a", "64k", os.path.join(etc, "media", f"{name}.mp4")])
    for name, colour in (("yellow", YELLOW), ("magenta", MAGENTA)):
        with open(os.path.join(etc, "logos", f"{name}.png"), "wb") as f:
            f.write(png(160, 120, bytes(colour) * (160 * 120)))


# ---------------------------------------------------------------------------------------------
# QEMU's two sockets


class JSONSocket:
    """One JSON object a line over a Unix socket, with a deadline on every read."""

    def __init__(self, path, deadline):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.buffer = b""

    def send(self, message):
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def receive(self, timeout):
        self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("QEMU closed the socket")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        line = line.strip(b"\xff").strip()
        return json.loads(line) if line else None


class QMP(JSONSocket):
    """QEMU's monitor: screendumps and keys."""

    def __init__(self, path, deadline):
        super().__init__(path, deadline)
        self.receive(30)  # the greeting
        self.command("qmp_capabilities")

    def command(self, name, timeout=60, **arguments):
        self.send({"execute": name, "arguments": arguments} if arguments else {"execute": name})
        while True:
            reply = self.receive(timeout)
            if reply is None or "event" in reply:
                continue
            if "error" in reply:
                raise RuntimeError(f"QMP {name}: {reply['error'].get('desc')}")
            return reply.get("return")

    def screendump(self, path):
        self.command("screendump", filename=path)
        with open(path, "rb") as f:
            return Picture(f.read())

    def key(self, qcode):
        """One press and release on the guest's keyboard: the virtio one, the only one the guest has
        (the machine has no PS/2 controller)."""
        for down in (True, False):
            self.command("input-send-event", events=[{"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}])
            time.sleep(0.05)


class GuestAgent(JSONSocket):
    """The QEMU guest agent in the guest: runs commands there (systemctl, journalctl)."""

    def __init__(self, path, deadline):
        super().__init__(path, deadline)
        self.counter = 0

    def sync(self, timeout):
        """Waits for the agent to answer (it starts during boot) and drops stale replies."""
        self.counter += 1
        token = 7000 + self.counter
        self.send({"execute": "guest-sync", "arguments": {"id": token}})
        while True:
            reply = self.receive(timeout)
            if reply and reply.get("return") == token:
                return

    def call(self, name, timeout=30, **arguments):
        self.send({"execute": name, "arguments": arguments} if arguments else {"execute": name})
        reply = self.receive(timeout)
        if "error" in reply:
            raise RuntimeError(f"guest agent {name}: {reply['error'].get('desc')}")
        return reply.get("return")

    def run(self, *argv, timeout=60):
        """Runs argv in the guest; (exit code, stdout + stderr)."""
        pid = self.call("guest-exec", path=argv[0], arg=list(argv[1:]), **{"capture-output": True})["pid"]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.call("guest-exec-status", pid=pid)
            if status.get("exited"):
                out = base64.b64decode(status.get("out-data", "")) + base64.b64decode(status.get("err-data", ""))
                return status.get("exitcode", -1), out.decode(errors="replace")
            time.sleep(0.2)
        raise TimeoutError(f"guest: {' '.join(argv)} did not finish in {timeout} s")

    def shell(self, script, timeout=60):
        return self.run("/bin/sh", "-c", script, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# Preparing the guest


def cannot_run(reason):
    say(f"cannot run the guest test here: {reason}")
    sys.exit(CANNOT_RUN)


def accelerator(choice):
    """KVM where it really works; TCG otherwise. /dev/kvm backed by PVM (kvm_pvm) boots only
    PVM-enabled guest kernels: a stock Debian kernel hangs there."""
    if choice in ("kvm", "tcg"):
        return choice
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    if os.path.exists("/sys/module/kvm_pvm"):
        return "tcg"
    if os.path.exists("/sys/module/kvm_intel") or os.path.exists("/sys/module/kvm_amd"):
        return "kvm"
    return "tcg"


def build_binary(args):
    if args.binary:
        return os.path.abspath(args.binary)
    say("building the release binary with the Swift runtime linked in (.build/static)")
    started = time.monotonic()
    result = subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--scratch-path", ".build/static",
                             "--product", "flipbox"], cwd=REPO, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        say("the release build failed")
        sys.exit(1)
    say(f"built in {time.monotonic() - started:.0f} s")
    return os.path.join(REPO, ".build", "static", "release", "flipbox")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def bundle_libraries(binary, root):
    """Copies the shared libraries `binary` needs that the guest lacks to the same paths in the
    guest: the Swift runtime of a debug build (whose RUNPATH names the toolchain's directory). A
    release build for the box links the runtime in and needs none."""
    copied = []
    for line in subprocess.check_output(["ldd", binary], text=True).splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
            path = parts[2]
            if not os.path.exists(root + path):
                os.makedirs(os.path.dirname(root + path), exist_ok=True)
                shutil.copy2(path, root + path)
                copied.append(os.path.basename(path))
    if copied:
        say(f"copied {len(copied)} libraries the guest lacks: {', '.join(sorted(copied)[:6])}{' ...' if len(copied) > 6 else ''}")


def add_mixer_tools(root, cache):
    """Unpacks Debian's alsa-utils into the guest (not into the cached image): a box has it, and
    its udev rule sets a new sound card's mixer to audible defaults (`alsactl init`); the
    kernel starts an HDA card's outputs muted. The package is downloaded once into `cache`."""
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    found = [f for f in os.listdir(debs) if f.startswith("alsa-utils_") and f.endswith(".deb")]
    if not found:
        subprocess.run(["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", "alsa-utils"], cwd=debs, check=True, stdout=subprocess.DEVNULL)
        found = [f for f in os.listdir(debs) if f.startswith("alsa-utils_") and f.endswith(".deb")]
    # Through tar, keeping the root's directory links (/lib -> usr/lib on Debian 12): `dpkg-deb -x`
    # would put a real /lib in their place and the guest would find no /sbin/init.
    files = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", os.path.join(debs, sorted(found)[-1])], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "--keep-directory-symlink", "-C", root], stdin=files.stdout, check=True)
    files.wait()


def make_disk(rootfs, binary, work, emulated):
    """Installs Flipbox into an overlay of the cached root file system with deploy/install.sh
    (run as root in a chroot, as on a real box), adds the test lineup, and makes a disk image of
    it. Returns the image's path."""
    upper, scratch, merged = (os.path.join(work, d) for d in ("upper", "scratch", "root"))
    for d in (upper, scratch, merged):
        os.makedirs(d, exist_ok=True)
    run(["mount", "-t", "overlay", "overlay", "-o", f"lowerdir={rootfs},upperdir={upper},workdir={scratch}", merged])
    try:
        payload = os.path.join(merged, "tmp", "flipbox-install")
        os.makedirs(os.path.join(payload, "deploy"))
        for name in ("install.sh", "flipbox.service"):
            shutil.copy2(os.path.join(REPO, "deploy", name), os.path.join(payload, "deploy", name))
        for name in ("Channels", "Interstitials"):
            shutil.copytree(os.path.join(REPO, name), os.path.join(payload, name), symlinks=True)
        # Without its symbols: a third of the size, and the image is rebuilt every run.
        run(["strip", "-o", os.path.join(payload, "flipbox"), binary])
        bundle_libraries(binary, merged)
        out = subprocess.run(["chroot", merged, "/bin/bash", "/tmp/flipbox-install/deploy/install.sh",
                              "--binary", "/tmp/flipbox-install/flipbox"], capture_output=True, text=True)
        for line in (out.stdout + out.stderr).splitlines():
            say(f"  guest {line}")
        if out.returncode != 0:
            raise RuntimeError("install.sh failed in the guest's root")
        shutil.rmtree(payload)
        # The test's configuration, as an owner would write it into /etc/flipbox.
        etc = os.path.join(merged, "etc", "flipbox")
        guest = os.path.join(HERE, "guest")
        shutil.copy2(os.path.join(guest, "lineup.yaml"), os.path.join(etc, "lineup.yaml"))
        shutil.copy2(os.path.join(guest, "keymap.conf"), os.path.join(etc, "keymap.conf"))
        make_media(etc)
        add_mixer_tools(merged, os.path.dirname(work))
        with open(os.path.join(etc, "flipbox.env"), "w") as f:
            f.write("FLIPBOX_LINEUP=/etc/flipbox/lineup.yaml\n"
                    "# Software emulation draws slowly: 10 frames a second is plenty for the checks.\n"
                    "# The sound goes to the HDA card's first device, named as an owner would name it.\n"
                    "FLIPBOX_OPTIONS=--mode auto --fps 10 --audio-device hw:0,0\n")
        if emulated:
            # Software emulation runs the first start (GStreamer's plugin scan) many times slower
            # than a real box: more than the unit's 60 s.
            dropin = os.path.join(merged, "etc", "systemd", "system", "flipbox.service.d")
            os.makedirs(dropin, exist_ok=True)
            with open(os.path.join(dropin, "emulation.conf"), "w") as f:
                f.write("[Service]\nTimeoutStartSec=300s\n")
        size = int(subprocess.check_output(["du", "-sbx", merged]).split()[0])
        image = os.path.join(work, "disk.img")
        blocks_mb = size // (1 << 20) + 384
        run(["mke2fs", "-q", "-F", "-t", "ext4", "-L", "flipbox", "-d", merged, image, f"{blocks_mb}M"])
    finally:
        subprocess.run(["umount", merged])
    shutil.rmtree(upper, ignore_errors=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return image


def boot(rootfs, image, work, accel):
    kernels = sorted(f for f in os.listdir(os.path.join(rootfs, "boot")) if f.startswith("vmlinuz-"))
    kernel = os.path.join(rootfs, "boot", kernels[-1])
    initrd = os.path.join(rootfs, "boot", kernels[-1].replace("vmlinuz-", "initrd.img-"))
    cmd = ["qemu-system-x86_64", "-machine", "q35,i8042=off,vmport=off,smbus=off", "-nodefaults", "-no-user-config",
           "-m", "1536", "-smp", "2", "-display", "none", "-no-reboot",
           "-kernel", kernel, "-initrd", initrd,
           "-append", "root=/dev/vda rw console=ttyS0,115200 quiet systemd.show_status=1 panic=-1",
           "-drive", f"file={image},format=raw,if=virtio,cache=unsafe",
           "-device", f"virtio-gpu-pci,xres={WIDTH},yres={HEIGHT}",
           "-device", "virtio-keyboard-pci,id=kbd",
           "-audiodev", f"wav,id=snd0,path={work}/sound.wav,out.frequency={SOUND_RATE},out.channels={SOUND_CHANNELS},out.format=s16",
           "-device", "ich9-intel-hda,id=hda", "-device", "hda-output,audiodev=snd0,bus=hda.0",
           "-device", "virtio-serial-pci",
           "-chardev", f"socket,id=qga,path={work}/qga.sock,server=on,wait=off",
           "-device", "virtserialport,chardev=qga,name=org.qemu.guest_agent.0",
           "-qmp", f"unix:{work}/qmp.sock,server=on,wait=off",
           "-serial", f"file:{work}/console.log"]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg,thread=multi", "-cpu", "max"]
    log = open(os.path.join(work, "qemu.log"), "w")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)


# ---------------------------------------------------------------------------------------------
# The checks


class Checks:
    def __init__(self, qmp, agent, work, screenshots):
        self.qmp, self.agent, self.work, self.screenshots = qmp, agent, work, screenshots
        self.passed = self.failed = 0
        self.figures = {}
        self.count = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            say(f"ok   {what}")
        else:
            self.failed += 1
            say(f"FAIL {what}{': ' + detail if detail else ''}")
        return ok

    def picture(self, name=None):
        self.count += 1
        path = os.path.join(self.work, f"screen-{self.count:02d}.ppm")
        picture = self.qmp.screendump(path)
        if name and self.screenshots:
            os.makedirs(self.screenshots, exist_ok=True)
            with open(os.path.join(self.screenshots, f"{name}.png"), "wb") as f:
                f.write(picture.png())
        return picture

    def wait_for(self, condition, timeout, interval=0.1):
        """Screendumps until condition(picture) holds; (picture, seconds) or (last picture, None)."""
        timeout *= PATIENCE
        started = time.monotonic()
        picture = None
        while time.monotonic() - started < timeout:
            picture = self.picture()
            if condition(picture):
                return picture, time.monotonic() - started
            time.sleep(interval)
        return picture, None

    def wait_channel(self, number, timeout):
        return self.wait_for(lambda p: p.channel() == number, timeout)

    def service(self):
        """(ActiveState, MainPID, start→ready seconds) from systemd."""
        _, out = self.agent.run("/bin/systemctl", "show", "flipbox", "-p", "ActiveState", "-p", "MainPID",
                                "-p", "ExecMainStartTimestampMonotonic", "-p", "ActiveEnterTimestampMonotonic")
        props = dict(line.split("=", 1) for line in out.strip().splitlines() if "=" in line)
        start, ready = int(props.get("ExecMainStartTimestampMonotonic", 0)), int(props.get("ActiveEnterTimestampMonotonic", 0))
        return props.get("ActiveState"), props.get("MainPID"), (ready - start) / 1e6 if ready > start > 0 else None

    def wait_active(self, timeout, not_pid=None):
        deadline = time.monotonic() + timeout * PATIENCE
        while time.monotonic() < deadline:
            state, pid, ready = self.service()
            if state == "active" and pid not in (None, "0", not_pid):
                return pid, ready
            time.sleep(0.5)
        return None, None

    def describe(self, picture):
        c = picture.at(picture.width // 2, picture.height // 2)
        return f"centre #{c[0]:02x}{c[1]:02x}{c[2]:02x}, {picture.width}x{picture.height}"

    # -- the checks proper --

    def boot_and_first_picture(self, boot_timeout):
        pid, ready = self.wait_active(boot_timeout)
        if not self.check(pid is not None, "flipbox.service is active after boot (started by systemd, Type=notify READY)"):
            return False
        _, enabled = self.agent.run("/bin/systemctl", "is-enabled", "flipbox")
        self.check(enabled.strip() == "enabled", "the unit is enabled by install.sh", enabled.strip())
        self.figures["start to first picture (READY, in the guest)"] = ready
        picture, _ = self.wait_channel("1", 30)
        ok = self.check(picture.channel() == "1", "the display shows channel 1", self.describe(picture))
        self.check(picture.width == WIDTH and picture.height == HEIGHT,
                   f"the kms output set the display's preferred mode {WIDTH}x{HEIGHT}", f"{picture.width}x{picture.height}")
        # The logo joins its channel's picture when it is rendered (never holding the flip back).
        picture, _ = self.wait_for(lambda p: p.logo(LOGOS["1"]) > 0.08, 30)
        self.picture("01-channel-1")
        self.check(picture.logo(LOGOS["1"]) > 0.08, "channel 1's logo is in the top-right corner",
                   f"{picture.logo(LOGOS['1']):.2%} of the corner")
        return ok

    def tone(self, seconds=1.0):
        """The loudest of the channels' tones in the newest `seconds` of what the guest played
        (QEMU's sound.wav), with its share of the tones' power; (None, 0) in silence."""
        path = os.path.join(self.work, "sound.wav")
        frame = 2 * SOUND_CHANNELS
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                f.seek(max(44, size - int(seconds * SOUND_RATE) * frame))
                data = f.read()
        except OSError:
            return None, 0.0
        count = len(data) // frame
        if count < SOUND_RATE // 10:
            return None, 0.0
        left = struct.unpack(f"<{count * SOUND_CHANNELS}h", data[:count * frame])[::SOUND_CHANNELS]
        power = {}
        for number, hz in TONES.items():
            # Goertzel: the power at one frequency.
            k = 2 * math.cos(2 * math.pi * hz / SOUND_RATE)
            s1 = s2 = 0.0
            for x in left:
                s1, s2 = x + k * s1 - s2, s1
            power[number] = s1 * s1 + s2 * s2 - k * s1 * s2
        total = sum(power.values())
        if total < 1e9 * count / SOUND_RATE:
            return None, 0.0
        best = max(power, key=power.get)
        return best, power[best] / total

    def unmute(self):
        """Sets the sound card's mixer to audible defaults (`alsactl init`, as alsa-utils' udev
        rule does on a box; said here once more in case the rule ran before the card was up)."""
        code, out = self.agent.run("/usr/sbin/alsactl", "init", timeout=60)
        if code not in (0, 99):  # 99: "init" found no configuration for a control it tried
            say(f"alsactl init said {code}: {out.strip()[:200]}")
        for control in ("Master", "PCM"):
            code, out = self.agent.run("/usr/bin/amixer", "-c", "0", "sset", control, "100%", "unmute", timeout=60)
            if code != 0:
                say(f"amixer sset {control} said {code}: {out.strip()[:200]}")

    def sound_of(self, number, timeout=30):
        """Checks that channel `number`'s tone plays on the guest's sound card."""
        deadline = time.monotonic() + timeout * PATIENCE
        heard, share = self.tone()
        while not (heard == number and share > 0.8) and time.monotonic() < deadline:
            time.sleep(1)
            heard, share = self.tone()
        size = os.path.getsize(os.path.join(self.work, "sound.wav")) if os.path.exists(os.path.join(self.work, "sound.wav")) else 0
        self.check(heard == number and share > 0.8,
                   f"channel {number}'s sound ({TONES[number]} Hz) plays on the HDA card (--audio-device hw:0,0)",
                   f"heard {f'channel {heard} ({share:.0%} of the tones)' if heard else 'silence'}; sound.wav {size} bytes")

    def key_flips(self):
        started = time.monotonic()
        self.qmp.key("pgup")
        picture, seconds = self.wait_channel("2", 20)
        self.picture("02-channel-2")
        self.check(seconds is not None, "Page Up on the virtio keyboard flips to channel 2", self.describe(picture))
        picture, _ = self.wait_for(lambda p: p.logo(LOGOS["2"]) > 0.08, 30)
        self.check(picture.logo(LOGOS["2"]) > 0.08, "channel 2's logo replaced channel 1's",
                   f"{picture.logo(LOGOS['2']):.2%} of the corner")
        if seconds is not None:
            self.figures["key to new channel on screen (QMP key to screendump)"] = time.monotonic() - started

    def digits_tune(self):
        for key in ("1", "2", "ret"):
            self.qmp.key(key)
        picture, seconds = self.wait_channel("12", 20)
        self.picture("03-channel-12")
        self.check(seconds is not None, "digits 1 2 Enter tune channel 12", self.describe(picture))

    def info_banner(self):
        before = self.picture()
        self.qmp.key("f1")
        picture, seconds = self.wait_for(lambda p: p.banner() > 0.5, 20)
        self.picture("04-info-banner")
        self.check(before.banner() < 0.1 and seconds is not None, "the info key (F1 in the key map) shows the banner",
                   f"stripe {before.banner():.0%} before, {picture.banner():.0%} after")

    def restart_returns(self, last):
        _, pid, _ = self.service()
        started = time.monotonic()
        code, out = self.agent.run("/bin/systemctl", "restart", "flipbox", timeout=120)
        new_pid, ready = self.wait_active(90, not_pid=pid)
        picture, seconds = self.wait_channel(last, 60)
        self.picture("05-after-restart")
        self.check(code == 0 and new_pid is not None and seconds is not None,
                   f"systemctl restart flipbox comes back on the last channel ({last})", f"{out.strip()} {self.describe(picture)}")
        if seconds is not None:
            self.figures["restart to last channel (READY, in the guest)"] = ready
            self.figures["restart command to last channel on screen (from outside)"] = time.monotonic() - started

    def hotplug_recovers(self, last):
        """The display switched off and on: the kernel's connector forced off, then on again
        (`/sys/class/drm/card0-Virtual-1/status`, as a hotplug of HDMI makes it): Flipbox sees it
        go and come back, sets the mode again, and the channel is on screen."""
        status = "/sys/class/drm/card0-Virtual-1/status"
        try:
            self.agent.shell(f"echo off > {status}")
            deadline = time.monotonic() + 20 * PATIENCE
            journal = ""
            while time.monotonic() < deadline and "disconnected" not in journal:
                time.sleep(0.5)
                _, journal = self.agent.run("/bin/journalctl", "-u", "flipbox", "--no-pager", "-o", "cat", "--grep", "display: ")
            self.check("Virtual-1 disconnected" in journal, "Flipbox sees the display go (connector forced off)", journal[-400:])
            self.picture("06-display-off")
            self.agent.shell(f"echo on > {status}")
            deadline = time.monotonic() + 20 * PATIENCE
            while time.monotonic() < deadline and "connected again" not in journal:
                time.sleep(0.5)
                _, journal = self.agent.run("/bin/journalctl", "-u", "flipbox", "--no-pager", "-o", "cat", "--grep", "display: ")
            picture, seconds = self.wait_channel(last, 30)
            self.picture("07-display-back")
            self.check("Virtual-1 connected again" in journal and seconds is not None and "did not start again" not in journal,
                       f"the display back on: mode set again, channel {last} on screen", f"{self.describe(picture)}; {journal[-400:]}")
        finally:
            self.agent.shell(f"echo detect > {status}")

    def display_arrives_later(self, last):
        """The TV off when the box starts: the service waits for a display, settles for headless,
        and when the display comes (the connector forced on) restarts onto it, on the last channel."""
        status = "/sys/class/drm/card0-Virtual-1/status"
        try:
            self.agent.shell(f"echo off > {status}")
            self.agent.run("/bin/systemctl", "restart", "--no-block", "flipbox")
            # The service waits 30 s for a display before it plays headless.
            deadline = time.monotonic() + 40 + 30 * PATIENCE
            journal = ""
            while time.monotonic() < deadline and "playing headless" not in journal:
                time.sleep(1)
                _, journal = self.agent.run("/bin/journalctl", "-u", "flipbox", "--no-pager", "-o", "cat", "--grep", "display: ")
            self.check("playing headless" in journal, "started with the display off: the service plays headless", journal[-400:])
            _, headless_pid, _ = self.service()
            self.agent.shell(f"echo on > {status}")
            new_pid, _ = self.wait_active(60, not_pid=headless_pid)
            picture, seconds = self.wait_channel(last, 60)
            self.picture("08-display-after-start")
            _, journal = self.agent.run("/bin/journalctl", "-u", "flipbox", "--no-pager", "-o", "cat", "--grep", "display: ")
            self.check("restarting to draw on it" in journal and new_pid is not None and seconds is not None,
                       f"a display connected later: the service restarts onto it, channel {last} on screen",
                       f"new pid {new_pid}, {self.describe(picture)}; {journal[-400:]}")
        finally:
            self.agent.shell(f"echo detect > {status}")

    def watchdog_restarts(self, last):
        _, pid, _ = self.service()
        self.agent.run("/bin/kill", "-STOP", pid)
        say(f"     stopped flipbox (pid {pid}) with SIGSTOP; waiting for the watchdog (WatchdogSec=10s)")
        new_pid, _ = self.wait_active(120, not_pid=pid)
        picture, seconds = self.wait_channel(last, 60)
        _, journal = self.agent.run("/bin/journalctl", "-u", "flipbox", "--no-pager", "-o", "cat")
        self.check(new_pid is not None and seconds is not None and "watchdog" in journal.lower(),
                   "the watchdog kills a hung flipbox and systemd starts it again on the last channel",
                   f"new pid {new_pid}, {self.describe(picture)}")

    def doctor(self):
        """`flipbox doctor` in the guest: the installed service's command line, the real display,
        keyboard and user."""
        code, out = self.agent.run("/usr/local/bin/flipbox", "doctor", timeout=300)
        with open(os.path.join(self.work, "doctor.txt"), "w") as f:
            f.write(out)
        lines = out.splitlines()
        wanted = ["ok    service   the user flipbox is in video, input, audio", "ok    display   Virtual-1 on /dev/dri/card0 (virtio_gpu)",
                  "ok    output    kms: Virtual-1 on /dev/dri/card0 (virtio_gpu) at 640x480", "ok    input     ", "ok    lineup    /etc/flipbox/lineup.yaml: 4 channels", "NOTE  cec       no HDMI-CEC adapter"]
        missing = [w for w in wanted if not any(line.startswith(w) for line in lines)]
        self.check(code == 0 and not missing and "QEMU Virtio Keyboard" in out,
                   "flipbox doctor in the guest: the service, display, keyboard and lineup are ok, exit 0",
                   f"exit {code}, missing {missing}:\n{out}")

    def sandboxed(self):
        """The unit's sandbox is in force: systemd's own exposure score for it, and the running
        service holds no capability."""
        _, out = self.agent.run("/bin/systemd-analyze", "security", "flipbox.service", "--no-pager", timeout=120)
        with open(os.path.join(self.work, "security.txt"), "w") as f:
            f.write(out)
        found = re.search(r"Overall exposure level for flipbox\.service:\s*([0-9.]+)", out)
        exposure = float(found.group(1)) if found else None
        _, pid, _ = self.service()
        _, status = self.agent.run("/bin/cat", f"/proc/{pid}/status")
        caps = dict(line.split(":", 1) for line in status.splitlines() if line.startswith("Cap"))
        say(f"figure: systemd-analyze security exposure: {exposure if exposure is not None else 'not read'} (0 safest, 10 most exposed)")
        self.check(exposure is not None and exposure < 3.0 and caps.get("CapEff", "").strip("\t 0") == ""
                   and caps.get("CapBnd", "").strip("\t 0") == "",
                   "the service runs sandboxed: exposure below 3, no capabilities",
                   f"exposure {exposure}, {caps}; see {self.work}/security.txt")

    def save_journal(self):
        try:
            _, journal = self.agent.run("/bin/journalctl", "-b", "--no-pager", "-o", "short-monotonic", timeout=60)
            with open(os.path.join(self.work, "journal.log"), "w") as f:
                f.write(journal)
        except Exception as error:  # the journal is for reading after a failure; its absence is said
            say(f"could not copy the guest's journal: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true", help="boot, first picture, a key, a restart")
    parser.add_argument("--binary", help="a flipbox binary to install instead of building one")
    parser.add_argument("--accel", default=os.environ.get("FLIPBOX_VM_ACCEL", "auto"), choices=["auto", "kvm", "tcg"])
    parser.add_argument("--screenshots", help="keep the screendumps as PNG files in this directory")
    parser.add_argument("--boot-timeout", type=float, default=300)
    args = parser.parse_args()

    if shutil.which("qemu-system-x86_64") is None:
        cannot_run("no qemu-system-x86_64 (install it with deploy/install-deps.sh --vm)")
    if os.geteuid() != 0:
        cannot_run("building the guest needs root (debootstrap, chroot, mount)")
    for tool in ("debootstrap", "mke2fs", "chroot"):
        if shutil.which(tool) is None:
            cannot_run(f"no {tool} (install it with deploy/install-deps.sh --vm)")

    cache = os.environ.get("FLIPBOX_VM_CACHE", os.path.expanduser("~/.cache/flipbox-vm"))
    work = os.path.join(cache, "run")
    subprocess.run(["umount", os.path.join(work, "root")], stderr=subprocess.DEVNULL)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    image_build = subprocess.run([os.path.join(HERE, "build-image.sh")], capture_output=True, text=True)
    sys.stderr.write(image_build.stderr)
    if image_build.returncode != 0:
        say("the guest image could not be built")
        return 1
    rootfs = image_build.stdout.strip().splitlines()[-1]
    binary = build_binary(args)
    accel = accelerator(args.accel)
    if accel == "tcg":
        global PATIENCE
        PATIENCE = 4
    disk = make_disk(rootfs, binary, work, emulated=accel == "tcg")
    say(f"booting the guest ({accel.upper()}{', software emulation: slow' if accel == 'tcg' else ''}); console: {work}/console.log")
    started = time.monotonic()
    qemu = boot(rootfs, disk, work, accel)
    checks = None
    try:
        deadline = time.monotonic() + 30
        qmp = QMP(os.path.join(work, "qmp.sock"), deadline)
        agent = GuestAgent(os.path.join(work, "qga.sock"), deadline)
        while True:
            if qemu.poll() is not None:
                raise RuntimeError(f"QEMU exited ({qemu.returncode}); see {work}/qemu.log")
            try:
                agent.sync(5)
                break
            except (socket.timeout, TimeoutError):
                if time.monotonic() - started > args.boot_timeout:
                    raise RuntimeError(f"the guest did not come up in {args.boot_timeout:.0f} s; see {work}/console.log")
        say(f"the guest is up after {time.monotonic() - started:.0f} s")
        checks = Checks(qmp, agent, work, args.screenshots)
        if checks.boot_and_first_picture(args.boot_timeout):
            checks.sandboxed()
            # The sound checks are in the full form only: in one of two runs of the short form
            # (CI's) the card played silence throughout (docs/appliance.md).
            if not args.short:
                checks.unmute()
                checks.sound_of("1")
            checks.key_flips()
            if not args.short:
                checks.sound_of("2")
            if not args.short:
                checks.digits_tune()
                checks.info_banner()
            last = "2" if args.short else "12"
            checks.restart_returns(last)
            if not args.short:
                checks.hotplug_recovers(last)
                checks.display_arrives_later(last)
                checks.watchdog_restarts(last)
                checks.doctor()
    except Exception as error:
        say(f"FAIL the guest test stopped: {error}")
        if checks is None:
            checks = Checks(None, None, work, None)
        checks.failed += 1
    finally:
        if checks is not None and checks.agent is not None:
            checks.save_journal()
        qemu.kill()
        qemu.wait()
    for name, value in checks.figures.items():
        say(f"figure: {name}: {value:.2f} s" if value is not None else f"figure: {name}: not measured")
    say(f"guest logs in {work} (console.log, journal.log, qemu.log)")
    print(f"vm-test: {checks.passed} passed, {checks.failed} failed", flush=True)
    return 0 if checks.failed == 0 and checks.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
