#ifndef CP_EMBEDDED_PICTURES_H
#define CP_EMBEDDED_PICTURES_H

#include <stddef.h>
#include <stdint.h>

#include "cmyk_jpeg.h"
#include "deep_pictures.h"
#include "colour_rows.h"

/* What the photo itself holds besides its main image: the preview a camera embeds in a RAW
 * file (through LibRaw) and the thumbnail items of a HEIF or AVIF file (through libheif).
 * Neither decodes the main image. Every function is safe to call from several threads at
 * once (each call uses objects of its own). */

/* The camera's embedded preview of a RAW file. */
typedef struct {
    /* A complete JPEG file (kind 1), or a binary PPM (P6) file made of the preview's
     * 8-bit RGB pixels (kind 2). Free with cp_raw_preview_free. */
    uint8_t *data;
    size_t length;
    int kind;
    /* The preview's size as LibRaw reports it (0 where the format does not say). */
    int preview_width, preview_height;
    /* The photo's size in pixels, before the turn below. */
    int image_width, image_height;
    /* The turn the camera recorded, as an EXIF orientation (1 upright, 3, 6 or 8). */
    int orientation;
    /* Whether the camera recorded its pictures (the preview's too) as Adobe RGB, as LibRaw
     * reads its EXIF colour space. */
    int adobe_rgb;
    /* A DNG's PreviewColorSpace: 0 unknown, 1 grey of gamma 2.2, 2 sRGB, 3 Adobe RGB, 4 ProPhoto. */
    int dng_preview_space;
} cp_raw_preview;

/* Reads the embedded preview of the RAW photo in `bytes` (the whole file). Returns 0 on
 * success; otherwise a negative value, and `message` (if not NULL) holds LibRaw's words for
 * why (a static string). */
int cp_raw_preview_read(const void *bytes, size_t length, cp_raw_preview *out, const char **message);
void cp_raw_preview_free(cp_raw_preview *preview);

/* Initialises libheif (its decoder plugins) once for the process. Without it, libheif
 * registers its plugins on first use, and two threads using it for the first time at once
 * (a row's thumbnail here, another row's decode in gdk-pixbuf's loader) raced: one of them
 * found no decoder. Call before anything uses libheif; later calls do nothing. */
void cp_heif_prepare(void);

/* How an image of a HEIF / AVIF file describes its colours: an ICC profile (`icc`, malloc'd,
 * `icc_length` bytes: free() it), or, when it has none, the code points of an `nclx` colour
 * description (ISO/IEC 23091-2: `primaries`, `transfer`; 0 when there is none either). */
typedef struct {
    uint8_t *icc;
    size_t icc_length;
    int primaries;
    int transfer;
} cp_heif_colour;

/* The primary image's colour description. Returns 0 on success, or a negative value with
 * libheif's message (as below). */
int cp_heif_primary_colour(const void *bytes, size_t length, cp_heif_colour *colour, char **message);

/* A HEIF / AVIF file's primary image size (transformations applied, as shown) and the
 * number of its thumbnail items. Returns 0 on success, or a negative value with libheif's
 * message (owned by the caller: free() it). */
int cp_heif_probe(const void *bytes, size_t length, int *width, int *height, int *thumbnails, char **message);

/* The primary image's smallest thumbnail item whose shorter side is at least `min_side`
 * (or its largest one if none is), decoded to 8-bit RGBA with the image's rotation and
 * mirroring applied. On success returns 0 and sets `pixels` (malloc'd, `stride` bytes a
 * row; free() it), its size, the primary image's size, and the thumbnail's colour
 * description (the primary image's where the thumbnail has none of its own). Returns 1 when the file has no
 * thumbnail, or a negative value on failure (`message` as above). */
int cp_heif_thumbnail(const void *bytes, size_t length, int min_side, uint8_t **pixels, int *width, int *height,
                      int *stride, int *image_width, int *image_height, cp_heif_colour *colour, char **message);

#endif
