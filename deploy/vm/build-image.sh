#!/usr/bin/env bash
# Builds (or reuses) the guest root file system for `make vm-test`: Debian bookworm from
# debootstrap with a stock kernel (linux-image-amd64), systemd, udev, GStreamer's runtime
# plugins, libcec and the QEMU guest agent. No Flipbox in it: vm-test.py installs Flipbox into
# a per-run overlay with deploy/install.sh, so this cache stays clean.
#
#   deploy/vm/build-image.sh            prints the cached root file system's directory
#
# Cache: $FLIPBOX_VM_CACHE (default ~/.cache/flipbox-vm), keyed by this script's contents, so a
# change here builds a new one. Needs root (debootstrap, chroot) and the Debian archive; takes
# about 5 minutes the first time and well under a second after.
set -euo pipefail

CACHE="${FLIPBOX_VM_CACHE:-$HOME/.cache/flipbox-vm}"
SELF="$(readlink -f "$0")"
KEY="$(sha256sum "$SELF" | cut -c1-12)"
ROOTFS="$CACHE/rootfs-$KEY"
SUITE=bookworm

# Packages the guest needs besides debootstrap's minimal base. Runtime only: the binary is built
# on the host with the Swift runtime linked in (vm-test.py). gstreamer1.0-x holds Debian's pango
# plugin: every decoder draws subtitles with its `textoverlay` (without it no channel plays).
BASE_PACKAGES=systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,procps
GUEST_PACKAGES=(
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-alsa
  gstreamer1.0-x
  librsvg2-common fonts-dejavu-core libsqlite3-0 libxml2 libcurl4 libdrm2 libcec6
  qemu-guest-agent evtest
)

say() { echo "build-image: $*" >&2; }

if [ -e "$ROOTFS/.complete" ]; then
  echo "$ROOTFS"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  say "building the guest needs root (debootstrap and chroot)"; exit 1
fi
for tool in debootstrap chroot mount; do
  command -v "$tool" >/dev/null || { say "$tool is missing: run deploy/install-deps.sh --vm"; exit 1; }
done

# The archive this machine's apt uses (debootstrap's own default when none is configured).
mirror() {
  local uri
  uri=$(grep -hs -E '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
  [ -z "$uri" ] && uri=$(grep -hs -E '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -1 || true)
  echo "$uri"
}

mkdir -p "$CACHE"
WORK="$CACHE/rootfs-$KEY.partial"
LOG="$CACHE/build-$KEY.log"
cleanup() {
  for m in proc sys dev; do mountpoint -q "$WORK/$m" 2>/dev/null && umount -l "$WORK/$m"; done
  return 0
}
trap cleanup EXIT
rm -rf "$WORK"
say "debootstrap $SUITE into $WORK (log: $LOG)"
if ! debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$WORK" $(mirror) >"$LOG" 2>&1; then
  say "debootstrap failed; the end of $LOG:"; tail -15 "$LOG" >&2; exit 1
fi

mount -t proc proc "$WORK/proc"
mount -t sysfs sys "$WORK/sys"
mount --bind /dev "$WORK/dev"
say "installing GStreamer and the guest agent"
if ! chroot "$WORK" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${GUEST_PACKAGES[@]}" >>"$LOG" 2>&1; then
  say "apt-get in the guest failed; the end of $LOG:"; tail -15 "$LOG" >&2; exit 1
fi

# A small initramfs: only what finds the root disk (the default takes most of the modules).
sed -i 's/^MODULES=.*/MODULES=list/' "$WORK/etc/initramfs-tools/initramfs.conf"
printf '%s\n' virtio_pci virtio_blk ext4 > "$WORK/etc/initramfs-tools/modules"
echo 'RESUME=none' > "$WORK/etc/initramfs-tools/conf.d/resume"

echo flipbox-guest > "$WORK/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$WORK/etc/fstab"
chroot "$WORK" passwd -d root >/dev/null
# The serial console logs in as root at once (the test reads it; nothing is reachable from outside).
mkdir -p "$WORK/etc/systemd/system/serial-getty@ttyS0.service.d"
cat > "$WORK/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 %I $TERM
UNIT
# No time is lost on services a test box does not need.
for unit in apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer; do
  chroot "$WORK" systemctl mask "$unit" >/dev/null 2>&1 || true
done

# Smaller: no package cache, documentation, translations, or drivers a virtual machine lacks.
chroot "$WORK" apt-get clean
rm -rf "$WORK"/usr/share/doc/* "$WORK"/usr/share/man/* "$WORK"/usr/share/info/* "$WORK"/var/lib/apt/lists/*
find "$WORK/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'en*' -exec rm -rf {} + 2>/dev/null || true
for mods in "$WORK"/lib/modules/*; do
  kernel=$(basename "$mods")
  rm -rf "$mods"/kernel/drivers/{net/wireless,net/ethernet,media,infiniband,staging,bluetooth,iio,isdn,scsi,nfc} \
         "$mods"/kernel/drivers/gpu/drm/{amd,nouveau,i915,radeon,xe,gma500,vmwgfx} \
         "$mods"/kernel/sound/soc "$mods"/kernel/net/{wireless,mac80211,bluetooth}
  chroot "$WORK" depmod "$kernel"
  chroot "$WORK" update-initramfs -u -k "$kernel" >>"$LOG" 2>&1
done
cleanup
trap - EXIT
touch "$WORK/.complete"
rm -rf "$ROOTFS"
mv "$WORK" "$ROOTFS"
# Older caches of this image (another version of this script) go.
find "$CACHE" -maxdepth 1 -name 'rootfs-*' ! -name "rootfs-$KEY" -exec rm -rf {} + 2>/dev/null || true
say "guest root file system ready: $ROOTFS ($(du -sh "$ROOTFS" | cut -f1))"
echo "$ROOTFS"
