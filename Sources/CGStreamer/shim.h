// Shim for GStreamer/GLib macros and variadic functions that do not import into Swift.
// Only the GStreamer wrapper module includes this.
#ifndef FLIPBOX_CGSTREAMER_SHIM_H
#define FLIPBOX_CGSTREAMER_SHIM_H

#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/video/video-overlay-composition.h>
#include <gst/audio/audio.h>
#include <gst/tag/tag.h>
#define GST_USE_UNSTABLE_API 1
#include <gst/mpegts/mpegts.h>

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
/// Whether `b` carries closed captions (CEA-608/708 that a parser found in the video, e.g. H.264 SEI).
static inline gboolean fb_buffer_has_captions(GstBuffer *b) { return gst_buffer_get_video_caption_meta(b) != NULL; }
/// The CEA-708 `cc_data` triplets the buffer's caption meta holds (copied into `out`, at most
/// `capacity` bytes); the number of bytes, 0 when it holds none of that type.
static inline gsize fb_buffer_cc_data(GstBuffer *b, guint8 *out, gsize capacity) {
    GstVideoCaptionMeta *m = gst_buffer_get_video_caption_meta(b);
    if (m == NULL || m->caption_type != GST_VIDEO_CAPTION_TYPE_CEA708_RAW) return 0;
    gsize n = m->size < capacity ? m->size : capacity;
    memcpy(out, m->data, n);
    return n;
}
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

/// The factory name of `element` (`tsdemux`, `h264parse`), or NULL.
static inline const char *fb_element_factory_name(GstElement *element) {
    GstElementFactory *factory = gst_element_get_factory(element);
    return factory ? GST_OBJECT_NAME(factory) : NULL;
}

// ---- SCTE-35 splice cues (tsdemux `send-scte35-events`, mpegtsmux `scte-35-pid`) ----

/// One splice_insert of an SCTE-35 splice_info_section, with its splice time as the
/// pipeline's running time (tsdemux's `running-time-map`).
typedef struct {
    guint32 event_id;
    gboolean cancel;
    gboolean out_of_network;
    gboolean immediate;
    gboolean has_time;
    GstClockTime running_time;
    gboolean has_duration;
    GstClockTime duration;
    gboolean auto_return;
} fb_splice_insert;

typedef enum {
    FB_SPLICE_NOT_A_CUE = 0,
    FB_SPLICE_INSERT,
    /// splice_null or bandwidth_reservation: carries no splice.
    FB_SPLICE_EMPTY,
    /// A command Flipbox does not read (`command` says which), an encrypted section, or a
    /// component splice (`command` 0x105).
    FB_SPLICE_UNSUPPORTED,
    FB_SPLICE_MALFORMED,
} fb_splice_kind;

/// Reads the SCTE-35 section carried by a custom downstream event passing a probe.
static inline fb_splice_kind fb_probe_info_splice(GstPadProbeInfo *info, fb_splice_insert *out, guint *command) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    *command = 0;
    memset(out, 0, sizeof *out);
    if (event == NULL || GST_EVENT_TYPE(event) != GST_EVENT_CUSTOM_DOWNSTREAM) return FB_SPLICE_NOT_A_CUE;
    const GstStructure *fields = gst_event_get_structure(event);
    if (fields == NULL || !gst_structure_has_field(fields, "section")) return FB_SPLICE_NOT_A_CUE;
    GstMpegtsSection *section = gst_event_parse_mpegts_section(event);
    if (section == NULL) return FB_SPLICE_NOT_A_CUE;
    fb_splice_kind kind = FB_SPLICE_MALFORMED;
    const GstMpegtsSCTESIT *sit = NULL;
    GstMpegtsSCTESpliceEvent *splice = NULL;
    if (section->section_type != GST_MPEGTS_SECTION_SCTE_SIT) { kind = FB_SPLICE_NOT_A_CUE; goto done; }
    sit = gst_mpegts_section_get_scte_sit(section);
    if (sit == NULL) goto done;
    *command = sit->splice_command_type;
    if (sit->encrypted_packet || !sit->fully_parsed || sit->splices == NULL) { kind = FB_SPLICE_UNSUPPORTED; goto done; }
    switch (sit->splice_command_type) {
    case GST_MTS_SCTE_SPLICE_COMMAND_NULL:
    case GST_MTS_SCTE_SPLICE_COMMAND_BANDWIDTH:
        kind = FB_SPLICE_EMPTY;
        goto done;
    case GST_MTS_SCTE_SPLICE_COMMAND_INSERT:
        break;
    default:
        kind = FB_SPLICE_UNSUPPORTED;
        goto done;
    }
    if (sit->splices->len != 1) goto done;
    splice = g_ptr_array_index(sit->splices, 0);
    out->event_id = splice->splice_event_id;
    out->cancel = splice->splice_event_cancel_indicator;
    if (!out->cancel) {
        if (!splice->program_splice_flag) { *command = 0x105; kind = FB_SPLICE_UNSUPPORTED; goto done; }
        out->out_of_network = splice->out_of_network_indicator;
        out->immediate = splice->splice_immediate_flag || !splice->program_splice_time_specified;
        if (!out->immediate) {
            const GstStructure *s = gst_event_get_structure(event);
            const GValue *v = s ? gst_structure_get_value(s, "running-time-map") : NULL;
            const GstStructure *map = (v && GST_VALUE_HOLDS_STRUCTURE(v)) ? gst_value_get_structure(v) : NULL;
            gchar name[48];
            guint64 time = GST_CLOCK_TIME_NONE;
            g_snprintf(name, sizeof name, "event-%u-splice-time", splice->splice_event_id);
            if (map && gst_structure_get_uint64(map, name, &time) && GST_CLOCK_TIME_IS_VALID(time)) {
                out->has_time = TRUE;
                out->running_time = time;
            }
        }
        if (splice->duration_flag) {
            out->has_duration = TRUE;
            out->duration = gst_util_uint64_scale(splice->break_duration, 100000, 9);
            out->auto_return = splice->break_duration_auto_return;
        }
    }
    kind = FB_SPLICE_INSERT;
done:
    gst_mpegts_section_unref(section);
    return kind;
}

/// Whether `section` (`length` bytes, table 0xFC) has the structure of a splice_info_section
/// as GStreamer 1.22's parser reads it: fields within bounds, the command's length, the
/// descriptor loop ending exactly before the CRC. Checked before the library parses it, so a
/// broken section is turned away without GLib's warnings.
static inline gboolean fb_splice_section_is_well_formed(const guint8 *section, guint length) {
    if (length < 20 || section[3] != 0) return FALSE;
    if (section[4] & 0x80) return TRUE; /* encrypted: read in part, reported as unsupported */
    const guint8 *data = section + 13, *end = section + length;
    guint command_length = ((section[11] & 0x0F) << 8) | section[12];
    if (command_length != 0xFFF && command_length != 0 && data + command_length > end - 5) return FALSE;
    guint8 type = *data++;
    switch (type) {
    case 0x00: case 0x07:
        break;
    case 0x06:
        data += (*data & 0x80) ? 5 : 1;
        break;
    case 0x05: case 0x04: {
        guint count = 1;
        gboolean insert = type == 0x05;
        if (!insert) count = *data++;
        for (guint i = 0; i < count; i++) {
            if (data + 5 + 6 > end) return FALSE;
            gboolean cancel = data[4] >> 7;
            data += 5;
            if (cancel) continue;
            if (data + 5 + 6 > end) return FALSE;
            guint8 flags = *data++;
            gboolean program = (flags >> 6) & 1, duration = (flags >> 5) & 1, immediate = insert && ((flags >> 4) & 1);
            if (!program) {
                guint components = *data++;
                for (guint c = 0; c < components; c++) {
                    if (data + 1 + 6 > end) return FALSE;
                    data += 1;
                    if (insert && !immediate) data += (*data & 0x80) ? 5 : 1;
                    else if (!insert) data += 4;
                }
            } else if (insert && !immediate) {
                data += (*data & 0x80) ? 5 : 1;
            } else if (!insert) {
                data += 4;
            }
            if (duration) data += 5;
            data += 4;
            if (data > end) return FALSE;
        }
        break;
    }
    case 0xFF:
        data += command_length == 0xFFF ? 0 : command_length;
        break;
    default:
        return FALSE;
    }
    if (data + 2 + 4 > end) return FALSE;
    guint descriptors = (data[0] << 8) | data[1];
    data += 2;
    const guint8 *loop_end = data + descriptors;
    if (loop_end != end - 4) return FALSE;
    while (data < loop_end) {
        if (data + 2 > loop_end || data + 2 + data[1] > loop_end) return FALSE;
        data += 2 + data[1];
    }
    return TRUE;
}

/// Whether the SCTE-35 sections starting in TS packet `p` (188 bytes) parse; TRUE for packets
/// that start none. GStreamer 1.22's tsdemux dereferences a NULL table when a splice section it
/// forwards does not parse, so such packets must never reach it. A section longer than the
/// packet cannot be checked here and counts as bad.
static inline gboolean fb_ts_packet_splices_parse(const guint8 *p) {
    if (!(p[1] & 0x40)) return TRUE;
    guint control = (p[3] >> 4) & 0x3, off = 4;
    if (!(control & 0x1)) return TRUE;
    if (control == 0x3) off += 1 + p[4];
    if (off >= 188) return TRUE;
    off += 1 + p[off];
    guint16 pid = ((p[1] & 0x1F) << 8) | p[2];
    while (off < 188 && p[off] != 0xFF) {
        if (p[off] != GST_MTS_TABLE_ID_SCTE_SPLICE) return TRUE;
        if (off + 3 > 188) return FALSE;
        guint length = 3 + (((p[off + 1] & 0x0F) << 8) | p[off + 2]);
        if (off + length > 188 || !fb_splice_section_is_well_formed(p + off, length)) return FALSE;
        GstMpegtsSection *section = gst_mpegts_section_new(pid, g_memdup2(p + off, length), length);
        if (section == NULL) return FALSE;
        gboolean parses = section->section_type == GST_MPEGTS_SECTION_SCTE_SIT && gst_mpegts_section_get_scte_sit(section) != NULL;
        gst_mpegts_section_unref(section);
        if (!parses) return FALSE;
        off += length;
    }
    return TRUE;
}

typedef enum { FB_TS_CLEAN = 0, FB_TS_BAD_SPLICE, FB_TS_UNALIGNED } fb_ts_check;

/// Checks the packets of `buffer` (read only); `*bad` is the offset of the first bad one.
static inline fb_ts_check fb_ts_buffer_check(GstBuffer *buffer, gsize *bad) {
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) return FB_TS_CLEAN;
    fb_ts_check result = map.size % 188 != 0 ? FB_TS_UNALIGNED : FB_TS_CLEAN;
    for (gsize at = 0; result == FB_TS_CLEAN && at < map.size; at += 188) {
        if (map.data[at] != 0x47) result = FB_TS_UNALIGNED;
        else if (!fb_ts_packet_splices_parse(map.data + at)) { result = FB_TS_BAD_SPLICE; *bad = at; }
    }
    gst_buffer_unmap(buffer, &map);
    return result;
}

/// Turns the packets of writable `buffer` from `from` on that start a bad splice section into
/// null packets (PID 0x1FFF).
static inline void fb_ts_buffer_null_bad_splices(GstBuffer *buffer, gsize from) {
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READWRITE)) return;
    for (gsize at = from; at + 188 <= map.size; at += 188) {
        if (map.data[at] == 0x47 && !fb_ts_packet_splices_parse(map.data + at)) {
            map.data[at + 1] = (map.data[at + 1] & 0xE0) | 0x1F;
            map.data[at + 2] = 0xFF;
        }
    }
    gst_buffer_unmap(buffer, &map);
}

/// Turns the TS packets of a buffer (or buffer list) passing a probe whose SCTE-35 sections do
/// not parse into null packets. Data that is not whole 188-byte packets cannot be checked:
/// FB_TS_UNALIGNED, and the demuxer owning `pad` stops forwarding splice sections.
static inline fb_ts_check fb_probe_info_drop_bad_splices(GstPad *pad, GstPadProbeInfo *info) {
    fb_ts_check result = FB_TS_CLEAN;
    if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
        GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
        gsize bad = 0;
        result = buffer ? fb_ts_buffer_check(buffer, &bad) : FB_TS_CLEAN;
        if (result == FB_TS_BAD_SPLICE) {
            buffer = gst_buffer_make_writable(buffer);
            GST_PAD_PROBE_INFO_DATA(info) = buffer;
            fb_ts_buffer_null_bad_splices(buffer, bad);
        }
    } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
        GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
        guint count = list ? gst_buffer_list_length(list) : 0;
        for (guint i = 0; i < count && result != FB_TS_UNALIGNED; i++) {
            gsize bad = 0;
            fb_ts_check one = fb_ts_buffer_check(gst_buffer_list_get(list, i), &bad);
            if (one == FB_TS_UNALIGNED) { result = one; break; }
            if (one != FB_TS_BAD_SPLICE) continue;
            if (result != FB_TS_BAD_SPLICE) {
                list = gst_buffer_list_make_writable(list);
                GST_PAD_PROBE_INFO_DATA(info) = list;
                result = FB_TS_BAD_SPLICE;
            }
            fb_ts_buffer_null_bad_splices(gst_buffer_list_get_writable(list, i), bad);
        }
    }
    if (result == FB_TS_UNALIGNED) {
        GstElement *demuxer = gst_pad_get_parent_element(pad);
        if (demuxer) {
            g_object_set(demuxer, "send-scte35-events", FALSE, NULL);
            gst_object_unref(demuxer);
        }
    }
    return result;
}

static inline gulong fb_pad_add_buffer_rewrite_probe(GstPad *pad, GstPadProbeCallback cb, gpointer data, GDestroyNotify notify) {
    return gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, cb, data, notify);
}

/// Sends a splice_insert to an mpegtsmux with `scte-35-pid` set: out of network (`out`) or
/// back in, at running time `time` (GST_CLOCK_TIME_NONE: immediate), with `duration` (0: none).
static inline gboolean fb_send_splice_insert(GstElement *mux, guint32 event_id, gboolean out, GstClockTime time, GstClockTime duration) {
    GstMpegtsSCTESIT *sit = out ? gst_mpegts_scte_splice_out_new(event_id, time, duration)
                                : gst_mpegts_scte_splice_in_new(event_id, time);
    GstMpegtsSection *section = gst_mpegts_section_from_scte_sit(sit, 0);
    if (section == NULL) return FALSE;
    gboolean sent = gst_mpegts_section_send_event(section, mux);
    gst_mpegts_section_unref(section);
    return sent;
}

/// Sends an SCTE-35 time_signal (a command Flipbox does not read) at running time `time` to
/// an mpegtsmux: for tests of unsupported cues.
static inline gboolean fb_send_splice_time_signal(GstElement *mux, GstClockTime time) {
    GstMpegtsSCTESIT *sit = gst_mpegts_scte_sit_new();
    sit->splice_command_type = GST_MTS_SCTE_SPLICE_COMMAND_TIME;
    sit->splice_time_specified = TRUE;
    sit->splice_time = time;
    GstMpegtsSection *section = gst_mpegts_section_from_scte_sit(sit, 0);
    if (section == NULL) return FALSE;
    gboolean sent = gst_mpegts_section_send_event(section, mux);
    gst_mpegts_section_unref(section);
    return sent;
}

#endif
