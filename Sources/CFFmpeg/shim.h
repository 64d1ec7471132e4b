// libavformat/libavcodec/libavutil (FFmpeg 5.1), for the one Swift file that reads media files and
// URLs (Sources/MediaProbe/FFmpegReader.swift). Helpers for what does not import into Swift:
// the interrupt callback (a deadline), macros, and side data read into plain structs.
#ifndef FLIPBOX_CFFMPEG_SHIM_H
#define FLIPBOX_CFFMPEG_SHIM_H

#include <stdint.h>
#include <string.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libavutil/dict.h>

/// A deadline for blocking I/O: libavformat polls `cffmpeg_deadline_passed` while it waits.
typedef struct { int64_t deadline_us; int expired; } cffmpeg_deadline;

static int cffmpeg_deadline_passed(void *opaque) {
    cffmpeg_deadline *d = (cffmpeg_deadline *)opaque;
    if (av_gettime_relative() > d->deadline_us) { d->expired = 1; return 1; }
    return 0;
}

/// Opens `url` for reading with every blocking call bounded by `deadline` (which must outlive
/// the context). Returns 0 or a negative AVERROR; `*out` is set on success only.
static inline int cffmpeg_open(const char *url, cffmpeg_deadline *deadline, int64_t timeout_us, AVFormatContext **out) {
    AVFormatContext *ctx = avformat_alloc_context();
    if (!ctx) return AVERROR(ENOMEM);
    ctx->interrupt_callback.callback = cffmpeg_deadline_passed;
    ctx->interrupt_callback.opaque = deadline;
    AVDictionary *options = NULL;
    char rw[32];
    snprintf(rw, sizeof rw, "%lld", (long long)timeout_us);
    av_dict_set(&options, "rw_timeout", rw, 0);
    int err = avformat_open_input(&ctx, url, NULL, &options);
    av_dict_free(&options);
    if (err < 0) return err;  // avformat_open_input frees ctx on failure
    *out = ctx;
    return 0;
}

static inline const char *cffmpeg_error_text(int err, char *buf, size_t size) {
    av_strerror(err, buf, size);
    return buf;
}

static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_error_exit(void) { return AVERROR_EXIT; }
static inline int cffmpeg_error_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_error_eagain(void) { return AVERROR(EAGAIN); }
/// Probe scores at or below this are guesses from a few bytes (`AVPROBE_SCORE_MAX / 4`).
static inline int cffmpeg_probe_score_guess(void) { return AVPROBE_SCORE_MAX / 4; }
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }
static inline int cffmpeg_pkt_keyframe(const AVPacket *p) { return (p->flags & AV_PKT_FLAG_KEY) != 0; }

/// `key=value` pairs of a dictionary, walked by index (NULL past the end).
static inline const AVDictionaryEntry *cffmpeg_dict_next(const AVDictionary *d, const AVDictionaryEntry *prev) {
    return av_dict_get(d, "", prev, AV_DICT_IGNORE_SUFFIX);
}

/// Mastering display colour volume, as numbers (0 when absent).
typedef struct {
    int has_primaries, has_luminance;
    double red_x, red_y, green_x, green_y, blue_x, blue_y, white_x, white_y;
    double min_luminance, max_luminance;
} cffmpeg_mastering;

typedef struct { int present; unsigned max_cll, max_fall; } cffmpeg_light_level;

static inline void cffmpeg_read_mastering(const AVMasteringDisplayMetadata *m, cffmpeg_mastering *out) {
    memset(out, 0, sizeof *out);
    out->has_primaries = m->has_primaries;
    out->has_luminance = m->has_luminance;
    out->red_x = av_q2d(m->display_primaries[0][0]); out->red_y = av_q2d(m->display_primaries[0][1]);
    out->green_x = av_q2d(m->display_primaries[1][0]); out->green_y = av_q2d(m->display_primaries[1][1]);
    out->blue_x = av_q2d(m->display_primaries[2][0]); out->blue_y = av_q2d(m->display_primaries[2][1]);
    out->white_x = av_q2d(m->white_point[0]); out->white_y = av_q2d(m->white_point[1]);
    out->min_luminance = av_q2d(m->min_luminance);
    out->max_luminance = av_q2d(m->max_luminance);
}

/// HDR side data of a stream (container-level: Matroska Colour, MP4 mdcv/clli). Returns whether
/// mastering data was found; `light` says whether content light level was.
static inline int cffmpeg_stream_hdr(const AVStream *st, cffmpeg_mastering *mastering, cffmpeg_light_level *light) {
    memset(light, 0, sizeof *light);
    memset(mastering, 0, sizeof *mastering);
    size_t size = 0;
    const uint8_t *cll = av_stream_get_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size);
    if (cll && size >= sizeof(AVContentLightMetadata)) {
        const AVContentLightMetadata *c = (const AVContentLightMetadata *)cll;
        light->present = 1; light->max_cll = c->MaxCLL; light->max_fall = c->MaxFALL;
    }
    const uint8_t *md = av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size);
    if (md && size >= sizeof(AVMasteringDisplayMetadata)) {
        cffmpeg_read_mastering((const AVMasteringDisplayMetadata *)md, mastering);
        return 1;
    }
    return 0;
}

/// HDR side data of a decoded frame (from the bitstream's SEI).
static inline int cffmpeg_frame_hdr(const AVFrame *frame, cffmpeg_mastering *mastering, cffmpeg_light_level *light) {
    memset(light, 0, sizeof *light);
    memset(mastering, 0, sizeof *mastering);
    const AVFrameSideData *cll = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
    if (cll) {
        const AVContentLightMetadata *c = (const AVContentLightMetadata *)cll->data;
        light->present = 1; light->max_cll = c->MaxCLL; light->max_fall = c->MaxFALL;
    }
    const AVFrameSideData *md = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
    if (md) {
        cffmpeg_read_mastering((const AVMasteringDisplayMetadata *)md->data, mastering);
        return 1;
    }
    return 0;
}

/// A decoder for stream `st` (NULL when none is built in or it cannot open).
static inline AVCodecContext *cffmpeg_open_decoder(const AVStream *st) {
    const AVCodec *codec = avcodec_find_decoder(st->codecpar->codec_id);
    if (!codec) return NULL;
    AVCodecContext *ctx = avcodec_alloc_context3(codec);
    if (!ctx) return NULL;
    if (avcodec_parameters_to_context(ctx, st->codecpar) < 0 || avcodec_open2(ctx, codec, NULL) < 0) {
        avcodec_free_context(&ctx);
        return NULL;
    }
    return ctx;
}

/// A channel layout in words ("stereo", "5.1(side)"), into `buf`.
static inline const char *cffmpeg_layout_text(const AVCodecParameters *par, char *buf, size_t size) {
    buf[0] = 0;
    if (par->ch_layout.nb_channels > 0) av_channel_layout_describe(&par->ch_layout, buf, size);
    return buf;
}

#endif
