#ifndef CNETOPSZLIB_H
#define CNETOPSZLIB_H

// The system's zlib, for the NIO engine's decoding of gzip and deflate response bodies
// (NetOpsNIO/BodyInflater.swift).
#include <zlib.h>

// zlib.h declares inflateInit2 as a macro, which Swift cannot call: this is the same call as a
// function.
static inline int cnetopszlib_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
