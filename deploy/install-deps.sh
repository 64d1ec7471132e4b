#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Flipbox needs to build, test and run the demo.
# Idempotent and quiet: only packages that are missing are installed.
set -euo pipefail

PACKAGES=(
  pkg-config
  libgstreamer1.0-dev
  libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools
  gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly
  gstreamer1.0-libav
  gstreamer1.0-x
  gstreamer1.0-gl
  gstreamer1.0-alsa
  gstreamer1.0-pulseaudio
  libavformat-dev
  libavcodec-dev
  libavutil-dev
  ffmpeg
  librsvg2-common
  fonts-dejavu-core
  xvfb
  # A Wayland compositor for the window output's tests (headless backend).
  weston
  systemd
  x11-apps
  imagemagick
  python3
  curl
  mpv
  hdhomerun-config
  # nginx as an HLS cache in front of the head-end (deploy/nginx/, Tests/ServeTests/NginxCacheTests.swift).
  nginx
  iproute2
  libsqlite3-dev
  libxml2-dev
  zlib1g-dev
  libdrm-dev
  chromium
  libcec-dev
  libx11-dev
  x11-utils
  libxfixes3
  # A hung process's threads: make test's watchdog and the tests of the box print them.
  gdb
)

# `--vm`: what `make vm-test` needs besides: QEMU, debootstrap and ext4 tools for the guest,
# and libcurl's headers for the release build with the Swift runtime linked in.
VM_PACKAGES=(
  qemu-system-x86
  debootstrap
  e2fsprogs
  libcurl4-openssl-dev
)
if [ "${1:-}" = "--vm" ]; then
  PACKAGES=("${VM_PACKAGES[@]}")
fi

# Python modules the tests use: prometheus_client parses /metrics as Prometheus would
# (Tests/FlipboxTests/MetricsTests.swift).
PYTHON_MODULES=(prometheus_client)

install_python_modules() {
  local absent=()
  for m in "${PYTHON_MODULES[@]}"; do
    python3 -c "import $m" >/dev/null 2>&1 || absent+=("$m")
  done
  [ ${#absent[@]} -eq 0 ] && return 0
  echo "install-deps: pip installing ${absent[*]}"
  if ! python3 -m pip install -q --disable-pip-version-check "${absent[@]}" >/tmp/flipbox-pip.log 2>&1; then
    echo "install-deps: pip failed; see /tmp/flipbox-pip.log" >&2
    tail -20 /tmp/flipbox-pip.log >&2
    exit 1
  fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  install_python_modules
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/flipbox-apt.log 2>&1; then
  $SUDO apt-get update -qq >>/tmp/flipbox-apt.log 2>&1
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/flipbox-apt.log 2>&1; then
    echo "install-deps: apt-get failed; see /tmp/flipbox-apt.log" >&2
    tail -20 /tmp/flipbox-apt.log >&2
    exit 1
  fi
fi

install_python_modules
