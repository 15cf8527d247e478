#ifndef CLASSIC_PHOTOS_DEEP_PICTURES_H
#define CLASSIC_PHOTOS_DEEP_PICTURES_H

#include <stddef.h>
#include <stdint.h>

/* A picture of more than 8 bits a channel (a PNG, a TIFF, a HEIF), as its own library decodes it,
 * for turning into sRGB from all its bits: gdk-pixbuf's loaders keep 8 of them, and a wide colour
 * space (ProPhoto, Rec. 2020) or a linear grey turned from 8 bits shows steps in smooth skies. */
typedef struct {
    uint16_t *pixels;   /* R, G, B (and A), or grey (and A), for each pixel, native byte order,
                           `width` * `channels` values a row (malloc'd: cp_deep_picture_free) */
    int width, height;
    int channels;       /* 3, or 4 with alpha (not premultiplied); grey: 1, or 2 with alpha */
    uint8_t *profile;   /* the embedded ICC profile, or NULL (malloc'd) */
    size_t profile_length;
    int orientation;    /* a TIFF's orientation tag, as EXIF numbers them (1 upright) */
    int cmyk;           /* the pixels are a TIFF's C, M, Y and K inks (channels 4; 0 no ink, 65535
                           full), 8-bit ones widened to 16, to be turned through a CMYK profile */
} cp_deep_picture;

/* Whether `bytes` (at least the first 33 of a file) are a PNG whose header says 16-bit RGB or
 * grey, with alpha or not, the kinds cp_deep_png_decode takes. */
int cp_deep_png_is_deep(const void *bytes, size_t length);

/* Decodes the 16-bit RGB or grey PNG (with alpha or not) in `bytes`, refusing before any pixel
 * is decoded one of more than `max_pixels`; with `probe` set, only reads its size and channels
 * into `out`. Returns
 * 0 on success; 1 when the PNG is not of that kind (nothing decoded); a negative value on
 * failure, with the library's words in `message` (a buffer of `message_size` bytes). */
int cp_deep_png_decode(const void *bytes, size_t length, long long max_pixels, int probe, cp_deep_picture *out,
                       char *message, size_t message_size);

/* The same for a TIFF of 16-bit unsigned RGB or grey (black at 0) samples, with unassociated
 * alpha or none, or of 8- or 16-bit CMYK inks (`cmyk` set: gdk-pixbuf's loader turns inks into
 * RGB by a formula, with no profile), in strips or tiles, a pixel's samples together or in planes of their own;
 * returns 1 for any other TIFF (other samples), which gdk-pixbuf's loader then decodes as
 * usual. */
int cp_deep_tiff_decode(const void *bytes, size_t length, long long max_pixels, int probe, cp_deep_picture *out,
                        char *message, size_t message_size);

/* The same for the primary picture of a HEIF or AVIF file whose samples have more than 8 bits
 * (10 or 12, as phones and cameras write them), decoded by libheif into RGB (or RGB with alpha)
 * and widened to 16 bits (1023 or 4095 become 65535); `profile` is its ICC profile, if it has
 * one (an `nclx` description is read apart, by cp_heif_primary_colour). Returns 1 for a picture
 * of 8 bits, which gdk-pixbuf's loader decodes as usual. */
int cp_deep_heif_decode(const void *bytes, size_t length, long long max_pixels, int probe, cp_deep_picture *out,
                        char *message, size_t message_size);

void cp_deep_picture_free(cp_deep_picture *picture);

#endif
