// libjxl, the JPEG XL reference decoder (Debian's libjxl-dev), and its thread pool: gdk-pixbuf
// has no JPEG XL loader in Debian 12, so the decoder helpers decode these pictures with it.
#include <jxl/decode.h>
#include <jxl/thread_parallel_runner.h>
