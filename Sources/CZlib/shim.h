#ifndef MOLT_CZLIB_SHIM_H
#define MOLT_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 is a macro that passes zlib's version and the size of z_stream; Swift cannot
// import it. A negative windowBits reads raw DEFLATE (no zlib or gzip header).
static inline int molt_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
