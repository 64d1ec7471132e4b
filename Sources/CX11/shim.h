// A full-screen X11 window with no cursor, for the window output's --fullscreen (only
// Sources/Output/X11Syscalls.swift imports it). libX11 is loaded with dlopen when a window is
// asked for, so the binary does not need libX11 on a box that draws through KMS.
#ifndef FLIPBOX_CX11_SHIM_H
#define FLIPBOX_CX11_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <dlfcn.h>
#include <string.h>

/// An open display connection and the window made on it.
typedef struct {
    void *display;
    unsigned long window;
    int width;
    int height;
} cx11_window;

typedef struct {
    Display *(*open_display)(const char *);
    int (*close_display)(Display *);
    Window (*create_simple_window)(Display *, Window, int, int, unsigned int, unsigned int, unsigned int, unsigned long, unsigned long);
    int (*destroy_window)(Display *, Window);
    Atom (*intern_atom)(Display *, const char *, Bool);
    int (*change_property)(Display *, Window, Atom, Atom, int, int, const unsigned char *, int);
    Pixmap (*create_bitmap)(Display *, Drawable, const char *, unsigned int, unsigned int);
    Cursor (*create_pixmap_cursor)(Display *, Pixmap, Pixmap, XColor *, XColor *, unsigned int, unsigned int);
    int (*define_cursor)(Display *, Window, Cursor);
    int (*free_pixmap)(Display *, Pixmap);
    int (*free_cursor)(Display *, Cursor);
    int (*store_name)(Display *, Window, const char *);
    int (*map_raised)(Display *, Window);
    int (*sync)(Display *, Bool);
} cx11_api;

/// Loads libX11's functions; 0 on success, -1 when libX11 is not installed.
static inline int cx11_load(cx11_api *api) {
    void *lib = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return -1;
#define CX11_SYM(field, name) if (!(*(void **)&api->field = dlsym(lib, name))) return -1;
    CX11_SYM(open_display, "XOpenDisplay")
    CX11_SYM(close_display, "XCloseDisplay")
    CX11_SYM(create_simple_window, "XCreateSimpleWindow")
    CX11_SYM(destroy_window, "XDestroyWindow")
    CX11_SYM(intern_atom, "XInternAtom")
    CX11_SYM(change_property, "XChangeProperty")
    CX11_SYM(create_bitmap, "XCreateBitmapFromData")
    CX11_SYM(create_pixmap_cursor, "XCreatePixmapCursor")
    CX11_SYM(define_cursor, "XDefineCursor")
    CX11_SYM(free_pixmap, "XFreePixmap")
    CX11_SYM(free_cursor, "XFreeCursor")
    CX11_SYM(store_name, "XStoreName")
    CX11_SYM(map_raised, "XMapRaised")
    CX11_SYM(sync, "XSync")
#undef CX11_SYM
    return 0;
}

/// The size of the default screen of `display_name` (NULL: $DISPLAY). 0 on success; -1 no libX11;
/// -2 the display cannot be opened.
static inline int cx11_screen_size(const char *display_name, int *width, int *height) {
    cx11_api api;
    if (cx11_load(&api) != 0) return -1;
    Display *display = api.open_display(display_name);
    if (!display) return -2;
    *width = DisplayWidth(display, DefaultScreen(display));
    *height = DisplayHeight(display, DefaultScreen(display));
    api.close_display(display);
    return 0;
}

/// Opens `display_name` (NULL: $DISPLAY) and maps a window covering its default screen: black,
/// asking the window manager for full screen (_NET_WM_STATE_FULLSCREEN) and at 0,0 with the
/// screen's size where there is none, with an empty cursor so the pointer is not seen over it.
/// 0 on success (`out` filled; close with `cx11_close`); -1 no libX11; -2 the display cannot be opened.
static inline int cx11_open_fullscreen(const char *display_name, const char *title, cx11_window *out) {
    cx11_api api;
    if (cx11_load(&api) != 0) return -1;
    Display *display = api.open_display(display_name);
    if (!display) return -2;
    int screen = DefaultScreen(display);
    Window root = RootWindow(display, screen);
    int width = DisplayWidth(display, screen), height = DisplayHeight(display, screen);
    unsigned long black = BlackPixel(display, screen);
    Window window = api.create_simple_window(display, root, 0, 0, (unsigned)width, (unsigned)height, 0, black, black);
    api.store_name(display, window, title);
    Atom state = api.intern_atom(display, "_NET_WM_STATE", False);
    Atom fullscreen = api.intern_atom(display, "_NET_WM_STATE_FULLSCREEN", False);
    api.change_property(display, window, state, XA_ATOM, 32, PropModeReplace, (const unsigned char *)&fullscreen, 1);
    static const char empty[1] = {0};
    Pixmap blank = api.create_bitmap(display, window, empty, 1, 1);
    XColor none;
    memset(&none, 0, sizeof none);
    Cursor cursor = api.create_pixmap_cursor(display, blank, blank, &none, &none, 0, 0);
    api.define_cursor(display, window, cursor);
    api.free_cursor(display, cursor);
    api.free_pixmap(display, blank);
    api.map_raised(display, window);
    api.sync(display, False);
    out->display = display;
    out->window = window;
    out->width = width;
    out->height = height;
    return 0;
}

/// Destroys the window and closes its display connection.
static inline void cx11_close(cx11_window *window) {
    cx11_api api;
    if (!window->display || cx11_load(&api) != 0) return;
    api.destroy_window((Display *)window->display, window->window);
    api.close_display((Display *)window->display);
    window->display = NULL;
}

#endif
