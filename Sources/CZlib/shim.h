#ifndef MOLT_CZLIB_SHIM_H
#define MOLT_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 is a macro that passes zlib's version and the size of z_stream; Swift cannot
// import it. A negative windowBits reads raw DEFLATE (no zlib or gzip header).
static inline int molt_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

// deflateInit2 is a macro too. A negative windowBits writes raw DEFLATE.
static inline int molt_deflate_init2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif
