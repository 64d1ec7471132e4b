// Shim for GStreamer/GLib macros and variadic functions that do not import into Swift.
// Only the GStreamer wrapper module includes this.
#ifndef FLIPBOX_CGSTREAMER_SHIM_H
#define FLIPBOX_CGSTREAMER_SHIM_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/video/video-overlay-composition.h>
#include <gst/audio/audio.h>
#include <gst/tag/tag.h>

static const GstClockTime fb_clock_time_none = GST_CLOCK_TIME_NONE;

static inline GstElement *fb_element(gpointer p) { return GST_ELEMENT(p); }
static inline GstBin *fb_bin(gpointer p) { return GST_BIN(p); }
static inline GstPipeline *fb_pipeline(gpointer p) { return GST_PIPELINE(p); }
static inline GstAppSink *fb_appsink(gpointer p) { return GST_APP_SINK(p); }
static inline GstAppSrc *fb_appsrc(gpointer p) { return GST_APP_SRC(p); }
static inline GObject *fb_object(gpointer p) { return G_OBJECT(p); }
static inline gboolean fb_is_bin(gpointer p) { return GST_IS_BIN(p); }

static inline void fb_set_int(gpointer obj, const char *name, gint v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_uint(gpointer obj, const char *name, guint v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_int64(gpointer obj, const char *name, gint64 v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_uint64(gpointer obj, const char *name, guint64 v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_bool(gpointer obj, const char *name, gboolean v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_double(gpointer obj, const char *name, gdouble v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_string(gpointer obj, const char *name, const char *v) { g_object_set(obj, name, v, NULL); }
static inline void fb_set_caps(gpointer obj, const char *name, GstCaps *v) { g_object_set(obj, name, v, NULL); }
static inline gboolean fb_has_property(gpointer obj, const char *name) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(obj), name) != NULL;
}

/// Whether `obj` implements GstVideoOverlay (a video sink that can draw into a given window).
static inline gboolean fb_is_video_overlay(gpointer obj) { return GST_IS_VIDEO_OVERLAY(obj); }

static inline GstMessageType fb_message_type(GstMessage *m) { return GST_MESSAGE_TYPE(m); }
static inline GstObject *fb_message_src(GstMessage *m) { return GST_MESSAGE_SRC(m); }
static inline const char *fb_object_name(GstObject *o) { return o ? GST_OBJECT_NAME(o) : NULL; }

static inline GstClockTime fb_buffer_pts(GstBuffer *b) { return GST_BUFFER_PTS(b); }
static inline GstClockTime fb_buffer_dts(GstBuffer *b) { return GST_BUFFER_DTS(b); }
static inline GstClockTime fb_buffer_duration(GstBuffer *b) { return GST_BUFFER_DURATION(b); }
static inline guint64 fb_buffer_offset(GstBuffer *b) { return GST_BUFFER_OFFSET(b); }
static inline void fb_buffer_set_pts(GstBuffer *b, GstClockTime t) { GST_BUFFER_PTS(b) = t; }
static inline void fb_buffer_set_dts(GstBuffer *b, GstClockTime t) { GST_BUFFER_DTS(b) = t; }
static inline void fb_buffer_set_duration(GstBuffer *b, GstClockTime t) { GST_BUFFER_DURATION(b) = t; }
static inline void fb_buffer_set_offset(GstBuffer *b, guint64 o) { GST_BUFFER_OFFSET(b) = o; }
static inline gboolean fb_buffer_is_delta(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DELTA_UNIT); }
static inline gboolean fb_buffer_is_header(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_HEADER); }
static inline gboolean fb_buffer_is_discont(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DISCONT); }
static inline void fb_buffer_set_discont(GstBuffer *b) { GST_BUFFER_FLAG_SET(b, GST_BUFFER_FLAG_DISCONT); }
static inline void fb_buffer_unset_discont(GstBuffer *b) { GST_BUFFER_FLAG_UNSET(b, GST_BUFFER_FLAG_DISCONT); }
static inline void fb_buffer_set_delta(GstBuffer *b, gboolean delta) { if (delta) GST_BUFFER_FLAG_SET(b, GST_BUFFER_FLAG_DELTA_UNIT); else GST_BUFFER_FLAG_UNSET(b, GST_BUFFER_FLAG_DELTA_UNIT); }
static inline GstBuffer *fb_buffer_make_writable(GstBuffer *b) { return gst_buffer_make_writable(b); }
static inline GstBuffer *fb_buffer_copy_metadata_only(GstBuffer *b) {
    return gst_buffer_copy_region(b, GST_BUFFER_COPY_ALL, 0, -1);
}

/// Registers a pad probe for buffers; GstPadProbeCallback is a typedef Swift can't form from a closure easily.
static inline gulong fb_pad_add_buffer_probe(GstPad *pad, GstPadProbeCallback cb, gpointer data, GDestroyNotify notify) {
    return gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, cb, data, notify);
}
static inline GstBuffer *fb_probe_info_buffer(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER(info); }

/// Registers a pad probe for downstream events (tags, stream start).
static inline gulong fb_pad_add_event_probe(GstPad *pad, GstPadProbeCallback cb, gpointer data, GDestroyNotify notify) {
    return gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, cb, data, notify);
}
/// The tag list of a TAG event passing a probe (owned by the event), or NULL for other events.
static inline GstTagList *fb_probe_info_tags(GstPadProbeInfo *info) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (event == NULL || GST_EVENT_TYPE(event) != GST_EVENT_TAG) return NULL;
    GstTagList *tags = NULL;
    gst_event_parse_tag(event, &tags);
    return tags;
}
static inline gboolean fb_tag_is_string(const gchar *tag) { return gst_tag_get_type(tag) == G_TYPE_STRING; }

static inline gulong fb_signal_connect(gpointer instance, const char *signal, GCallback cb, gpointer data, GClosureNotify notify) {
    return g_signal_connect_data(instance, signal, cb, data, notify, (GConnectFlags)0);
}

/// Calls `fn` for every element inside `bin`, at any depth (an element may come twice when the
/// bin changes during the walk).
typedef void (*fb_element_fn)(GstElement *element, gpointer data);
static inline void fb_bin_foreach_recurse(GstBin *bin, fb_element_fn fn, gpointer data) {
    GstIterator *it = gst_bin_iterate_recurse(bin);
    GValue item = G_VALUE_INIT;
    gboolean done = FALSE;
    while (!done) {
        switch (gst_iterator_next(it, &item)) {
        case GST_ITERATOR_OK:
            fn(GST_ELEMENT(g_value_get_object(&item)), data);
            g_value_reset(&item);
            break;
        case GST_ITERATOR_RESYNC:
            gst_iterator_resync(it);
            break;
        default:
            done = TRUE;
        }
    }
    g_value_unset(&item);
    gst_iterator_free(it);
}

#endif
