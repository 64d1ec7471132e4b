// Shim for GStreamer/GLib macros and variadic functions that do not import into Swift.
// Only the GStreamer wrapper module includes this.
#ifndef FLIPBOX_CGSTREAMER_SHIM_H
#define FLIPBOX_CGSTREAMER_SHIM_H

#include <string.h>
#include <malloc.h>
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

/* glibc's cap on malloc arenas (M_ARENA_MAX is a macro Swift cannot see). Non-zero on success. */
static inline int fb_malloc_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }
/* glibc's heap (mallinfo2, which Swift's Glibc module does not import): bytes handed out
   (arena chunks in use plus mmapped blocks), and bytes free but kept in the arenas. */
static inline void fb_malloc_heap(size_t *in_use, size_t *kept_free) {
    struct mallinfo2 info = mallinfo2();
    *in_use = info.uordblks + info.hblkhd;
    *kept_free = info.fordblks;
}

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
/// A copy of the structure held in `field` of `s` (free it with gst_structure_free); 0 when the
/// field is missing or holds something else.
static inline gboolean fb_structure_get_structure(const GstStructure *s, const char *field, GstStructure **out) {
    const GValue *v = gst_structure_get_value(s, field);
    if (!v || !GST_VALUE_HOLDS_STRUCTURE(v)) return FALSE;
    const GstStructure *nested = gst_value_get_structure(v);
    if (!nested) return FALSE;
    *out = gst_structure_copy(nested);
    return TRUE;
}

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
/// The buffer passing a probe made writable (a copy put in its place when it is shared), or NULL.
static inline GstBuffer *fb_probe_info_writable_buffer(GstPadProbeInfo *info) {
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (buffer == NULL) return NULL;
    buffer = gst_buffer_make_writable(buffer);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    return buffer;
}
/// Puts `replacement` (a reference the probe takes) in place of the buffer passing a probe.
static inline void fb_probe_info_replace_buffer(GstPadProbeInfo *info, GstBuffer *replacement) {
    GstBuffer *old = GST_PAD_PROBE_INFO_BUFFER(info);
    GST_PAD_PROBE_INFO_DATA(info) = replacement;
    if (old != NULL) gst_buffer_unref(old);
}
/// The bytes of `b` from `offset` on, sharing its memory, with its flags and metadata.
static inline GstBuffer *fb_buffer_tail(GstBuffer *b, gsize offset) {
    gsize size = gst_buffer_get_size(b);
    return gst_buffer_copy_region(b, (GstBufferCopyFlags)(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META | GST_BUFFER_COPY_MEMORY),
                                  offset, size > offset ? size - offset : 0);
}

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

/// One segmentation_descriptor (SCTE-35 10.3.3) of a time_signal.
typedef struct {
    guint32 event_id;
    gboolean cancel;
    guint8 type_id;
    gboolean has_duration;
    GstClockTime duration;
} fb_segmentation;

#define FB_SEGMENTATIONS_MAX 8

/// A time_signal: its splice time (`has_time`, `running_time`) and its segmentation descriptors.
typedef struct {
    gboolean has_time;
    GstClockTime running_time;
    guint count;
    fb_segmentation segments[FB_SEGMENTATIONS_MAX];
} fb_time_signal;

typedef enum {
    FB_SPLICE_NOT_A_CUE = 0,
    FB_SPLICE_INSERT,
    /// A time_signal (`signal` filled).
    FB_SPLICE_TIME_SIGNAL,
    /// splice_null or bandwidth_reservation: carries no splice.
    FB_SPLICE_EMPTY,
    /// A command Flipbox does not read (`command` says which), an encrypted section, or a
    /// component splice (`command` 0x105).
    FB_SPLICE_UNSUPPORTED,
    FB_SPLICE_MALFORMED,
} fb_splice_kind;

/// Reads the segmentation_descriptors (tag 0x02, identifier CUEI) of `sit` into `out`.
static inline void fb_read_segmentations(const GstMpegtsSCTESIT *sit, fb_time_signal *out) {
    for (guint i = 0; sit->descriptors && i < sit->descriptors->len && out->count < FB_SEGMENTATIONS_MAX; i++) {
        const GstMpegtsDescriptor *d = g_ptr_array_index(sit->descriptors, i);
        if (d->tag != 0x02 || d->length < 9 || d->data == NULL) continue;
        const guint8 *p = d->data + 2, *end = d->data + 2 + d->length;
        if (GST_READ_UINT32_BE(p) != 0x43554549) continue; /* "CUEI" */
        fb_segmentation seg = {0};
        seg.event_id = GST_READ_UINT32_BE(p + 4);
        seg.cancel = (p[8] & 0x80) != 0;
        p += 9;
        if (!seg.cancel) {
            if (p + 1 > end) continue;
            gboolean program = (p[0] & 0x80) != 0, has_duration = (p[0] & 0x40) != 0;
            p += 1;
            if (!program) {
                if (p + 1 > end) continue;
                p += 1 + 6 * p[0];
            }
            if (has_duration) {
                if (p + 5 > end) continue;
                guint64 ticks = ((guint64)p[0] << 32) | GST_READ_UINT32_BE(p + 1);
                seg.has_duration = TRUE;
                seg.duration = gst_util_uint64_scale(ticks, 100000, 9);
                p += 5;
            }
            if (p + 2 > end) continue;
            p += 2 + p[1]; /* segmentation_upid_type, length, upid */
            if (p + 1 > end) continue;
            seg.type_id = p[0];
        }
        out->segments[out->count++] = seg;
    }
}

/// Reads the SCTE-35 section carried by a custom downstream event passing a probe: a
/// splice_insert into `out`, a time_signal into `signal`.
static inline fb_splice_kind fb_probe_info_splice(GstPadProbeInfo *info, fb_splice_insert *out, fb_time_signal *signal, guint *command) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    *command = 0;
    memset(out, 0, sizeof *out);
    memset(signal, 0, sizeof *signal);
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
    case GST_MTS_SCTE_SPLICE_COMMAND_TIME: {
        if (sit->splice_time_specified) {
            const GstStructure *s = gst_event_get_structure(event);
            const GValue *v = s ? gst_structure_get_value(s, "running-time-map") : NULL;
            const GstStructure *map = (v && GST_VALUE_HOLDS_STRUCTURE(v)) ? gst_value_get_structure(v) : NULL;
            guint64 time = GST_CLOCK_TIME_NONE;
            if (map && gst_structure_get_uint64(map, "splice-time", &time) && GST_CLOCK_TIME_IS_VALID(time)) {
                signal->has_time = TRUE;
                signal->running_time = time;
            }
        }
        fb_read_segmentations(sit, signal);
        kind = FB_SPLICE_TIME_SIGNAL;
        goto done;
    }
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

/// Whether splice_info_section `data` (`length` bytes) on `pid` parses.
static inline gboolean fb_splice_section_parses(guint16 pid, const guint8 *data, guint length) {
    if (!fb_splice_section_is_well_formed(data, length)) return FALSE;
    GstMpegtsSection *section = gst_mpegts_section_new(pid, g_memdup2(data, length), length);
    if (section == NULL) return FALSE;
    gboolean parses = section->section_type == GST_MPEGTS_SECTION_SCTE_SIT && gst_mpegts_section_get_scte_sit(section) != NULL;
    gst_mpegts_section_unref(section);
    return parses;
}

#define FB_SPLICE_SLOTS 4
#define FB_SECTION_MAX (4095 + 3)

/// A splice section being put together from the TS packets of its PID.
typedef struct {
    gboolean active;
    guint16 pid;
    guint8 cc;
    guint have, need;
    guint8 data[FB_SECTION_MAX];
} fb_splice_slot;

/// What the guard in front of a tsdemux keeps between buffers (one per demuxer, its streaming
/// thread only): sections longer than a packet being reassembled, and the bytes of a packet not
/// yet whole (sources that do not come in whole packets: HTTP, HLS, files read in blocks).
typedef struct {
    fb_splice_slot slots[FB_SPLICE_SLOTS];
    guint8 carry[188];
    guint carry_len;
    /// The data is not 188-byte TS packets at all: cues are off, nothing more is checked.
    gboolean off;
} fb_splice_guard;

static inline void fb_splice_guard_reset(fb_splice_guard *guard) {
    for (guint i = 0; i < FB_SPLICE_SLOTS; i++) guard->slots[i].active = FALSE;
    guard->carry_len = 0;
}

/// Adds `count` bytes to a slot; when the section is complete, frees the slot and says whether
/// it parses (`*done`).
static inline gboolean fb_splice_slot_take(fb_splice_slot *slot, const guint8 *bytes, guint count, gboolean *done) {
    guint take = MIN(count, slot->need - slot->have);
    memcpy(slot->data + slot->have, bytes, take);
    slot->have += take;
    *done = slot->have == slot->need;
    if (!*done) return TRUE;
    slot->active = FALSE;
    return fb_splice_section_parses(slot->pid, slot->data, slot->need);
}

/// Whether TS packet `p` (188 bytes) may reach the demuxer: FALSE when a splice section it
/// starts, or one it completes (reassembled from the packets before), does not parse.
/// GStreamer 1.22's tsdemux dereferences a NULL table when a splice section it forwards does
/// not parse, so such a section must never be whole at the demuxer: the packet that would
/// complete it is turned away (the demuxer drops the unfinished section at the next gap).
static inline gboolean fb_ts_packet_splices_parse(fb_splice_guard *guard, const guint8 *p) {
    guint control = (p[3] >> 4) & 0x3, off = 4;
    if (!(control & 0x1)) return TRUE;
    if (control == 0x3) off += 1 + p[4];
    if (off >= 188) return TRUE;
    guint16 pid = ((p[1] & 0x1F) << 8) | p[2];
    guint8 cc = p[3] & 0x0F;
    gboolean start = (p[1] & 0x40) != 0, ok = TRUE, done = FALSE;
    fb_splice_slot *slot = NULL;
    for (guint i = 0; i < FB_SPLICE_SLOTS; i++)
        if (guard->slots[i].active && guard->slots[i].pid == pid) slot = &guard->slots[i];
    if (slot) {
        if (cc == slot->cc) return TRUE; /* a repeated packet: the demuxer drops it too */
        if (cc != ((slot->cc + 1) & 0x0F)) { slot->active = FALSE; slot = NULL; } /* a gap: dropped there too */
    }
    if (slot && !start) {
        slot->cc = cc;
        return fb_splice_slot_take(slot, p + off, 188 - off, &done);
    }
    if (!start) return TRUE;
    guint pointer = p[off++];
    if (slot) {
        ok = fb_splice_slot_take(slot, p + off, MIN(pointer, 188 - off), &done);
        slot->active = FALSE;
    }
    off += pointer;
    while (off < 188 && p[off] != 0xFF) {
        if (p[off] != GST_MTS_TABLE_ID_SCTE_SPLICE) return ok;
        if (off + 3 > 188) return FALSE;
        guint length = 3 + (((p[off + 1] & 0x0F) << 8) | p[off + 2]);
        if (off + length > 188) {
            fb_splice_slot *free_slot = &guard->slots[0];
            for (guint i = 0; i < FB_SPLICE_SLOTS; i++)
                if (!guard->slots[i].active) { free_slot = &guard->slots[i]; break; }
            free_slot->active = TRUE;
            free_slot->pid = pid;
            free_slot->cc = cc;
            free_slot->need = length;
            free_slot->have = 188 - off;
            memcpy(free_slot->data, p + off, 188 - off);
            return ok;
        }
        if (!fb_splice_section_parses(pid, p + off, length)) return FALSE;
        off += length;
    }
    return ok;
}

typedef enum { FB_TS_CLEAN = 0, FB_TS_BAD_SPLICE, FB_TS_UNALIGNED, FB_TS_HELD } fb_ts_check;

/// Checks the packets of `buffer` (whole 188-byte packets), turning those that must not reach
/// the demuxer into null packets (PID 0x1FFF); `*buffer` may be replaced by a writable copy.
static inline fb_ts_check fb_ts_buffer_guard(fb_splice_guard *guard, GstBuffer **buffer) {
    GstMapInfo map;
    if (!gst_buffer_map(*buffer, &map, GST_MAP_READ)) return FB_TS_CLEAN;
    if (map.size % 188 != 0) { gst_buffer_unmap(*buffer, &map); return FB_TS_UNALIGNED; }
    GArray *bad = NULL;
    fb_ts_check result = FB_TS_CLEAN;
    for (gsize at = 0; at < map.size; at += 188) {
        if (map.data[at] != 0x47) { result = FB_TS_UNALIGNED; break; }
        if (!fb_ts_packet_splices_parse(guard, map.data + at)) {
            if (bad == NULL) bad = g_array_new(FALSE, FALSE, sizeof(gsize));
            g_array_append_val(bad, at);
        }
    }
    gst_buffer_unmap(*buffer, &map);
    if (bad == NULL) return result;
    *buffer = gst_buffer_make_writable(*buffer);
    if (gst_buffer_map(*buffer, &map, GST_MAP_READWRITE)) {
        for (guint i = 0; i < bad->len; i++) {
            gsize at = g_array_index(bad, gsize, i);
            map.data[at + 1] = (map.data[at + 1] & 0xE0) | 0x1F;
            map.data[at + 2] = 0xFF;
        }
        gst_buffer_unmap(*buffer, &map);
    }
    g_array_free(bad, TRUE);
    return result == FB_TS_UNALIGNED ? result : FB_TS_BAD_SPLICE;
}

/// Cuts the stream into whole packets: the bytes carried from before and `*buffer` become a
/// buffer of whole 188-byte packets from the first sync byte on (the rest is carried to the
/// next buffer). FB_TS_HELD when no whole packet is there yet (drop the buffer), FB_TS_UNALIGNED
/// when the data has no 188-byte packet structure (`*buffer` then holds all of it).
static inline fb_ts_check fb_ts_buffer_realign(fb_splice_guard *guard, GstBuffer **buffer) {
    gsize size = gst_buffer_get_size(*buffer), total = guard->carry_len + size;
    guint8 *data = g_malloc(total);
    memcpy(data, guard->carry, guard->carry_len);
    gst_buffer_extract(*buffer, 0, data + guard->carry_len, size);
    gsize sync = 0;
    while (sync < total && !(data[sync] == 0x47 && (sync + 188 >= total || data[sync + 188] == 0x47)
                             && (sync + 376 >= total || data[sync + 376] == 0x47))) sync++;
    fb_ts_check result = FB_TS_CLEAN;
    if (sync >= 188 * 4 || (sync == total && total >= 188 * 4)) {
        result = FB_TS_UNALIGNED;
        GstBuffer *all = gst_buffer_new_wrapped(data, total);
        gst_buffer_copy_into(all, *buffer, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
        gst_buffer_unref(*buffer);
        *buffer = all;
        guard->carry_len = 0;
        return result;
    }
    gsize whole = sync < total ? (total - sync) / 188 * 188 : 0, rest = total - sync - whole;
    if (sync == total) rest = MIN(total, 187);
    memcpy(guard->carry, data + total - rest, rest);
    guard->carry_len = rest;
    if (whole == 0) { g_free(data); return FB_TS_HELD; }
    GstBuffer *aligned = gst_buffer_new_wrapped_full(0, data, total, sync, whole, data, g_free);
    gst_buffer_copy_into(aligned, *buffer, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    gst_buffer_unref(*buffer);
    *buffer = aligned;
    return result;
}

/// The guard in front of a tsdemux, for a probe on its sink pad (`fb_pad_add_splice_guard`):
/// turns the TS packets whose SCTE-35 sections do not parse into null packets, reassembling
/// sections longer than a packet; in push mode, data that does not come in whole packets is cut
/// into whole packets first (FB_TS_HELD: drop this buffer, its bytes are carried). Data that is
/// not 188-byte packets cannot be checked: FB_TS_UNALIGNED, and the demuxer owning `pad` stops
/// forwarding splice sections.
static inline fb_ts_check fb_probe_info_drop_bad_splices(GstPad *pad, GstPadProbeInfo *info) {
    fb_splice_guard *guard = g_object_get_data(G_OBJECT(pad), "fb-splice-guard");
    if (guard == NULL || guard->off) return FB_TS_CLEAN;
    fb_ts_check result = FB_TS_CLEAN;
    if (info->type & GST_PAD_PROBE_TYPE_EVENT_FLUSH) {
        GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
        if (event && GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) fb_splice_guard_reset(guard);
        return FB_TS_CLEAN;
    } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
        GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
        if (buffer == NULL) return FB_TS_CLEAN;
        gboolean push = (info->type & GST_PAD_PROBE_TYPE_PULL) == 0;
        if (push) {
            guint8 first = 0;
            gsize size = gst_buffer_get_size(buffer);
            if (size > 0) gst_buffer_extract(buffer, 0, &first, 1);
            if (guard->carry_len > 0 || size % 188 != 0 || first != 0x47) result = fb_ts_buffer_realign(guard, &buffer);
        }
        if (result == FB_TS_CLEAN) result = fb_ts_buffer_guard(guard, &buffer);
        GST_PAD_PROBE_INFO_DATA(info) = buffer;
    } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
        GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
        guint count = list ? gst_buffer_list_length(list) : 0;
        if (guard->carry_len > 0) result = FB_TS_UNALIGNED;
        for (guint i = 0; i < count && result != FB_TS_UNALIGNED; i++) {
            GstBuffer *one = gst_buffer_list_get(list, i);
            GstBuffer *checked = gst_buffer_ref(one);
            fb_ts_check r = fb_ts_buffer_guard(guard, &checked);
            if (checked != one) {
                list = gst_buffer_list_make_writable(list);
                GST_PAD_PROBE_INFO_DATA(info) = list;
                gst_buffer_list_remove(list, i, 1);
                gst_buffer_list_insert(list, i, gst_buffer_ref(checked));
            }
            gst_buffer_unref(checked);
            if (r != FB_TS_CLEAN) result = r;
        }
    }
    if (result == FB_TS_UNALIGNED) {
        guard->off = TRUE;
        GstElement *demuxer = gst_pad_get_parent_element(pad);
        if (demuxer) {
            g_object_set(demuxer, "send-scte35-events", FALSE, NULL);
            gst_object_unref(demuxer);
        }
    }
    return result;
}

/// A splice guard of its own (the fuzzer and the tests feed it bytes as a pad in push mode is fed).
static inline fb_splice_guard *fb_splice_guard_new(void) { return g_new0(fb_splice_guard, 1); }
static inline void fb_splice_guard_free(fb_splice_guard *guard) { g_free(guard); }

/// Feeds `size` bytes to `guard` as one buffer pushed to a tsdemux's sink pad: cut into whole
/// packets when they do not come whole, then each packet's splice sections checked (libgstmpegts
/// parses the well-formed ones). What the probe would have answered.
static inline fb_ts_check fb_splice_guard_feed(fb_splice_guard *guard, const guint8 *data, gsize size) {
    if (guard->off) return FB_TS_UNALIGNED;
    GstBuffer *buffer = gst_buffer_new_memdup(data, size);
    fb_ts_check result = FB_TS_CLEAN;
    if (guard->carry_len > 0 || size % 188 != 0 || (size > 0 && data[0] != 0x47)) result = fb_ts_buffer_realign(guard, &buffer);
    if (result == FB_TS_CLEAN) result = fb_ts_buffer_guard(guard, &buffer);
    if (result == FB_TS_UNALIGNED) guard->off = TRUE;
    gst_buffer_unref(buffer);
    return result;
}

/// Adds the splice guard's probe (`cb` calls `fb_probe_info_drop_bad_splices`) to a tsdemux's sink pad.
static inline gulong fb_pad_add_splice_guard(GstPad *pad, GstPadProbeCallback cb, gpointer data, GDestroyNotify notify) {
    g_object_set_data_full(G_OBJECT(pad), "fb-splice-guard", g_new0(fb_splice_guard, 1), g_free);
    return gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
                             cb, data, notify);
}

/// Adds `count` avail_descriptors (10 bytes each) to `sit`: to make sections longer than a TS packet.
static inline void fb_sit_add_padding(GstMpegtsSCTESIT *sit, guint count) {
    for (guint i = 0; i < count; i++) {
        guint8 avail[8] = {'C', 'U', 'E', 'I', 0, 0, 0, (guint8)i};
        g_ptr_array_add(sit->descriptors, gst_mpegts_descriptor_from_custom(0x00, avail, sizeof avail));
    }
}

static inline gboolean fb_send_sit(GstElement *mux, GstMpegtsSCTESIT *sit) {
    GstMpegtsSection *section = gst_mpegts_section_from_scte_sit(sit, 0);
    if (section == NULL) return FALSE;
    gboolean sent = gst_mpegts_section_send_event(section, mux);
    gst_mpegts_section_unref(section);
    return sent;
}

/// Sends a splice_insert to an mpegtsmux with `scte-35-pid` set: out of network (`out`) or
/// back in, at running time `time` (GST_CLOCK_TIME_NONE: immediate), with `duration` (0: none)
/// and `padding` avail descriptors.
static inline gboolean fb_send_splice_insert(GstElement *mux, guint32 event_id, gboolean out, GstClockTime time, GstClockTime duration, guint padding) {
    GstMpegtsSCTESIT *sit = out ? gst_mpegts_scte_splice_out_new(event_id, time, duration)
                                : gst_mpegts_scte_splice_in_new(event_id, time);
    fb_sit_add_padding(sit, padding);
    return fb_send_sit(mux, sit);
}

/// Sends an SCTE-35 time_signal at running time `time` to an mpegtsmux, with one
/// segmentation_descriptor when `type_id` is not 0 (`duration` 0: none) and `padding` avail
/// descriptors: for tests.
static inline gboolean fb_send_splice_time_signal(GstElement *mux, GstClockTime time, guint32 event_id, guint8 type_id,
                                                  GstClockTime duration, guint padding) {
    GstMpegtsSCTESIT *sit = gst_mpegts_scte_sit_new();
    sit->splice_command_type = GST_MTS_SCTE_SPLICE_COMMAND_TIME;
    sit->splice_time_specified = TRUE;
    sit->splice_time = time;
    if (type_id != 0) {
        guint8 d[32];
        guint n = 0;
        GST_WRITE_UINT32_BE(d, 0x43554549);
        GST_WRITE_UINT32_BE(d + 4, event_id);
        d[8] = 0x7F;
        d[9] = duration ? 0xFF : 0xBF; /* program segmentation, duration flag, delivery not restricted */
        n = 10;
        if (duration) {
            guint64 ticks = gst_util_uint64_scale(duration, 9, 100000);
            d[n] = (ticks >> 32) & 0xFF;
            GST_WRITE_UINT32_BE(d + n + 1, ticks & 0xFFFFFFFF);
            n += 5;
        }
        d[n++] = 0x00; /* segmentation_upid_type: none */
        d[n++] = 0x00; /* segmentation_upid_length */
        d[n++] = type_id;
        d[n++] = 0; /* segment_num */
        d[n++] = 0; /* segments_expected */
        if (type_id == 0x34 || type_id == 0x36) { d[n++] = 0; d[n++] = 0; } /* sub_segment_num, sub_segments_expected */
        g_ptr_array_add(sit->descriptors, gst_mpegts_descriptor_from_custom(0x02, d, n));
    }
    fb_sit_add_padding(sit, padding);
    return fb_send_sit(mux, sit);
}

#endif
