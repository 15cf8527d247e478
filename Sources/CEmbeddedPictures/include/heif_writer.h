#ifndef CLASSIC_PHOTOS_HEIF_WRITER_H
#define CLASSIC_PHOTOS_HEIF_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* Whether libheif has an HEVC encoder here (x265), which cp_heif_encode needs. */
int cp_heif_can_encode(void);

/* Encodes 8-bit RGB (`channels` 3) or RGBA (4, not premultiplied) rows (`stride` bytes apart)
 * as a HEIC file with libheif's HEVC encoder at `quality` (0–100), sRGB, upright, with a
 * thumbnail item of at most `thumbnail_side` pixels (0: none; none either for a picture no larger) and the EXIF block `exif` (a TIFF
 * structure, or NULL) attached to the picture. Returns 0 and the file in `out` (malloc'd) and
 * `out_size`, or a negative value with libheif's words in `message` (`message_size` bytes). */
int cp_heif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int quality,
                   int thumbnail_side, const uint8_t *exif, size_t exif_size, uint8_t **out, size_t *out_size,
                   char *message, size_t message_size);

#endif
