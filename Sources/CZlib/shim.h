#include <zlib.h>

/// `inflateInit2` is a macro; this is the same call as a function Swift can see.
static inline int czlib_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2_(stream, windowBits, ZLIB_VERSION, (int)sizeof(z_stream));
}
