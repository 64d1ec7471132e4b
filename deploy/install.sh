#!/usr/bin/env bash
# Installs Flipbox as a box: the release binary, the systemd unit, the demo lineup and the
# interstitial card templates, and a first configuration in /etc/flipbox (a lineup, the service
# settings, a key map: each written only when absent, never overwritten).
# Idempotent: running it again updates the binary, unit and assets and keeps the configuration.
#
#   deploy/install.sh                  build (release) and install into /, enable the service
#   deploy/install.sh --prefix DIR     install under DIR instead of / (DIR/usr/local/bin/flipbox,
#                                      DIR/etc/...); no user, no systemctl (for tests and images)
#   deploy/install.sh --binary PATH    install PATH instead of building
#   deploy/install.sh --uninstall      stop and disable the service, remove binary, unit and
#                                      assets; keeps /etc/flipbox, /var/lib/flipbox and the user
set -euo pipefail

ROOT=/
BINARY=""
UNINSTALL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) ROOT="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) ROOT="${1#--prefix=}"; shift ;;
    --binary) BINARY="${2:?--binary needs a path}"; shift 2 ;;
    --binary=*) BINARY="${1#--binary=}"; shift ;;
    --uninstall) UNINSTALL=1; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

SOURCE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="${ROOT%/}"
BIN_DIR="$ROOT/usr/local/bin"
SHARE_DIR="$ROOT/usr/local/share/flipbox"
UNIT_DIR="$ROOT/etc/systemd/system"
CONFIG_DIR="$ROOT/etc/flipbox"
SYSTEM=0
[ -z "$ROOT" ] && SYSTEM=1

say() { echo "install.sh: $*"; }

if [ "$SYSTEM" = 1 ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: installing into / needs root: run it with sudo (or use --prefix DIR)" >&2
  exit 1
fi

if [ "$UNINSTALL" = 1 ]; then
  if [ "$SYSTEM" = 1 ] && command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now flipbox.service >/dev/null 2>&1 || true
  fi
  rm -f "$BIN_DIR/flipbox" "$UNIT_DIR/flipbox.service"
  rm -rf "$SHARE_DIR"
  [ "$SYSTEM" = 1 ] && command -v systemctl >/dev/null 2>&1 && systemctl daemon-reload || true
  say "removed the binary, the unit and $SHARE_DIR"
  if [ "$SYSTEM" = 1 ]; then
    say "kept the configuration in $CONFIG_DIR (lineup, settings, key map), the state in /var/lib/flipbox and the user flipbox:" \
        "a reinstall uses them again; if they are not wanted: sudo rm -r $CONFIG_DIR /var/lib/flipbox; sudo userdel flipbox"
  else
    say "kept the configuration in $CONFIG_DIR (lineup, settings, key map) and the state in $ROOT/var/lib/flipbox"
  fi
  exit 0
fi

if [ -z "$BINARY" ]; then
  # The checkout's owner builds (its .build stays theirs, and a package's build plugins never
  # run as root); root only installs.
  owner="$(stat -c %U "$SOURCE")"
  # Only the product: the harness (flipbox-lab: bench, soak) is not needed on a box.
  build=(bash -c 'cd "$1" && swift build -c release --product flipbox' build "$SOURCE")
  if [ "$(id -u)" -eq 0 ] && [ "$owner" != root ] && command -v runuser >/dev/null 2>&1; then
    home="$(getent passwd "$owner" | cut -d: -f6)"
    build=(runuser -u "$owner" -- env HOME="${home:-/tmp}" PATH="$PATH" "${build[@]}")
    say "building the release binary as $owner, the checkout's owner (a few minutes the first time)"
  else
    say "building the release binary (a few minutes the first time)"
  fi
  ("${build[@]}" 2>&1 | grep -E "error|Compiling flipbox|Build complete" || true)
  BINARY="$SOURCE/.build/release/flipbox"
fi
if [ ! -x "$BINARY" ]; then
  echo "install.sh: no flipbox binary at $BINARY (the build failed?)" >&2
  exit 1
fi

install -d "$BIN_DIR" "$SHARE_DIR" "$UNIT_DIR" "$CONFIG_DIR"
install -m 0755 "$BINARY" "$BIN_DIR/flipbox.new" && mv -f "$BIN_DIR/flipbox.new" "$BIN_DIR/flipbox"
install -m 0644 "$SOURCE/deploy/flipbox.service" "$UNIT_DIR/flipbox.service"
# Assets: replaced as a whole so files removed from the source go away too.
rm -rf "$SHARE_DIR/Channels" "$SHARE_DIR/Interstitials"
cp -R "$SOURCE/Channels" "$SOURCE/Interstitials" "$SHARE_DIR/"
chmod -R a+rX "$SHARE_DIR"

# The configuration is the owner's: written once, never overwritten.
# The lineup the unit plays: the demo lineup, its relative logo and file paths made absolute (to the
# installed assets) so it plays from /etc/flipbox; the owner replaces it with their channels.
if [ ! -e "$CONFIG_DIR/lineup.yaml" ]; then
  {
    echo "# The box's lineup (docs/lineup.md), written by install.sh from the demo lineup"
    echo "# /usr/local/share/flipbox/Channels/demo.yaml. Replace it with your channels, then"
    echo "# sudo systemctl restart flipbox. install.sh never overwrites this file."
    sed -E 's#^([[:space:]]*(logo|source):[[:space:]]*)([^/~[:space:]][^:]*)$#\1/usr/local/share/flipbox/Channels/\3#' \
      "$SOURCE/Channels/demo.yaml"
  } > "$CONFIG_DIR/lineup.yaml"
  chmod 0644 "$CONFIG_DIR/lineup.yaml"
  say "wrote $CONFIG_DIR/lineup.yaml (the demo lineup; replace it with your channels)"
fi
if [ ! -e "$CONFIG_DIR/flipbox.env" ]; then
  # It may hold tokens and passwords: root's only (systemd reads it as root for the unit).
  (umask 077; cat > "$CONFIG_DIR/flipbox.env" <<'ENV'
# Flipbox service settings (read by flipbox.service; restart the service after a change).
# Readable by root only: tokens go here, never in FLIPBOX_OPTIONS (every user sees those in ps).
# The lineup to play (.yaml or .m3u, a playlist URL, hdhomerun://auto):
FLIPBOX_LINEUP=/etc/flipbox/lineup.yaml
# The control API's token, needed when it listens beyond loopback (openssl rand -hex 16):
# FLIPBOX_TOKEN=
# With --serve: the token of TVs and players watching the served streams (not the control token):
# FLIPBOX_SERVE_TOKEN=
# More options for `flipbox play`, e.g. --size 1920x1080 --fps 60 --http 0.0.0.0:8642
FLIPBOX_OPTIONS=
ENV
  )
elif grep -qx 'FLIPBOX_LINEUP=/usr/local/share/flipbox/Channels/demo.yaml' "$CONFIG_DIR/flipbox.env"; then
  # Written by an earlier install.sh; the owner's file, so it is only said.
  say "$CONFIG_DIR/flipbox.env plays the demo lineup in /usr/local/share/flipbox; to play $CONFIG_DIR/lineup.yaml," \
      "set FLIPBOX_LINEUP=/etc/flipbox/lineup.yaml there and restart the service"
fi
if [ "$(stat -c %a "$CONFIG_DIR/flipbox.env")" != 600 ]; then
  # An earlier install.sh wrote it world-readable.
  chmod 0600 "$CONFIG_DIR/flipbox.env"
  say "made $CONFIG_DIR/flipbox.env readable by root only (it may hold tokens)"
fi
if [ ! -e "$CONFIG_DIR/keymap.conf" ]; then
  cat > "$CONFIG_DIR/keymap.conf" <<'KEYS'
# Remote key map: a Linux key code name (as `evtest` shows it), then the key it means.
# Entries replace or add to the default map (docs/box.md); `none` makes a key do nothing.
# KEY_F1: info
# KEY_HOMEPAGE: guide
KEYS
fi

if [ "$SYSTEM" = 1 ]; then
  if ! id flipbox >/dev/null 2>&1; then
    useradd --system --user-group --home-dir /var/lib/flipbox --no-create-home --shell /usr/sbin/nologin flipbox
    say "created the system user flipbox"
  fi
  # The unit names these groups (SupplementaryGroups=); systemd does not start it when one is missing.
  for group in video render input audio; do
    if ! getent group "$group" >/dev/null; then
      groupadd --system "$group"
      say "created the group $group (the unit needs it)"
    fi
    usermod -aG "$group" flipbox
  done
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable flipbox.service >/dev/null
    say "enabled flipbox.service; start it now with: sudo systemctl start flipbox"
  elif command -v systemctl >/dev/null 2>&1; then
    # An image being built (a chroot): enabling only makes links, so the service starts at its first boot.
    systemctl enable flipbox.service >/dev/null 2>&1 && say "enabled flipbox.service (systemd is not running here: it starts at the next boot)" \
      || say "systemd is not running here and the unit could not be enabled: run 'systemctl enable flipbox' on the box"
  else
    say "systemd is not installed here: the unit is installed but not enabled"
  fi
fi
say "installed $BIN_DIR/flipbox, $UNIT_DIR/flipbox.service, $SHARE_DIR/{Channels,Interstitials}, config in $CONFIG_DIR"
