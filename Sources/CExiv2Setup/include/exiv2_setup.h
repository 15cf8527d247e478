// What gexiv2 leaves to the program: Exiv2's reader of the ISO base media formats (HEIF / HEIC,
// AVIF, CR3, JPEG XL), which Exiv2 0.27 builds in but turns on only when a program asks; and
// a JPEG's EXIF made true again after a lossless edit, in memory (gexiv2 0.14 saves only to
// files and streams).
#pragma once

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Turns on Exiv2's ISO base media reader; true if it is there to turn on.
bool cp_exiv2_enable_bmff(void);

/// `data` (a JPEG whose pixels were turned or cropped) with its EXIF made true to the picture:
/// the pixel size it states set to `width` × `height` where it states one, and its thumbnail
/// (a picture of the photo before the edit) taken out; XMP's orientation and pixel size too,
/// where it states them (otherwise its packet is written back as it was read). Returns a buffer to free() with its size in `out_size`, or NULL when the file has
/// no EXIF to change or Exiv2 refused it (`message`, to free(), says why, if it can).
unsigned char *cp_exiv2_exif_after_edit(const unsigned char *data, size_t size, long width, long height,
                                        size_t *out_size, char **message);

/// `edited` (a JPEG encoded anew from a photo's pixels, which has no metadata of its own) given
/// the metadata of `original`: its EXIF (orientation set upright), XMP, IPTC, comment and ICC
/// profile. Returns a buffer to free() with its size in `out_size`, or NULL when Exiv2 refused
/// either (`message`, to free(), says why, if it can).
unsigned char *cp_exiv2_copy_metadata(const unsigned char *original, size_t original_size,
                                      const unsigned char *edited, size_t edited_size, size_t *out_size,
                                      char **message);

/// `edited` (a JPEG made from a RAW file's camera preview, `width` × `height` pixels, upright)
/// given the RAW file's own metadata, as far as it is true of a JPEG: the camera's EXIF (its
/// exposure, date, lens and GPS; IFD0's copies of exposure facts moved to where a JPEG has
/// them), without what describes the RAW's own layout, its thumbnail or its maker note; its
/// XMP without a RAW developer's settings; its IPTC. The orientation is set upright and the
/// pixel size to the picture's. The JPEG's own colour profile is kept. Returns a buffer to
/// free() with its size in `out_size`, or NULL when Exiv2 refused either (`message`, to free(),
/// says why, if it can).
unsigned char *cp_exiv2_raw_metadata_into(const unsigned char *raw, size_t raw_size, const unsigned char *edited,
                                          size_t edited_size, long width, long height, size_t *out_size,
                                          char **message);

#ifdef __cplusplus
}
#endif
