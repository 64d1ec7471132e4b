// Linux input (evdev) records, the EVIOCGRAB/EVIOCGNAME ioctls and inotify, for the one
// Swift file that reads input devices (Sources/Control/Box/EvdevSyscalls.swift).
// The ioctl request macros do not import into Swift, hence these small functions.
#ifndef FLIPBOX_CEVDEV_SHIM_H
#define FLIPBOX_CEVDEV_SHIM_H

#include <linux/input.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <stddef.h>
#include <string.h>

/// The size of one `struct input_event` as this kernel's ABI lays it out (24 bytes on 64-bit).
static inline int cevdev_event_size(void) { return (int)sizeof(struct input_event); }

/// `ioctl(fd, EVIOCGRAB, on)`: 0 on success, -1 with errno set.
static inline int cevdev_grab(int fd, int on) { return ioctl(fd, EVIOCGRAB, (void *)(long)on); }

/// `ioctl(fd, EVIOCGNAME(len), name)`: the device's name, NUL-terminated; -1 with errno set.
static inline int cevdev_name(int fd, char *name, int len) {
    int n = ioctl(fd, EVIOCGNAME(len), name);
    if (n >= 0 && len > 0) name[n < len ? n : len - 1] = 0;
    return n;
}

/// Decodes one record at `bytes` (at least `cevdev_event_size()` bytes, any alignment).
static inline void cevdev_decode(const void *bytes, unsigned short *type, unsigned short *code, int *value) {
    struct input_event event;
    memcpy(&event, bytes, sizeof event);
    *type = event.type;
    *code = event.code;
    *value = event.value;
}

#endif
