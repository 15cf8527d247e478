// What gexiv2 leaves to the program: Exiv2's reader of the ISO base media formats (HEIF / HEIC,
// AVIF, CR3, JPEG XL), which Exiv2 0.27 builds in but turns on only when a program asks.
#pragma once

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Turns on Exiv2's ISO base media reader; true if it is there to turn on.
bool cp_exiv2_enable_bmff(void);

#ifdef __cplusplus
}
#endif
