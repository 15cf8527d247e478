#ifndef CLASSIC_PHOTOS_CMYK_JPEG_H
#define CLASSIC_PHOTOS_CMYK_JPEG_H

#include <stddef.h>
#include <stdint.h>

/* A CMYK (or YCCK) JPEG's inks, as libjpeg decodes them, for turning into RGB through the
 * picture's own colour profile: gdk-pixbuf's loader turns them into RGB by a formula first,
 * after which the profile can no longer be used. */
typedef struct {
    uint8_t *inks;  /* C, M, Y, K for each pixel, `width` * 4 bytes a row (malloc'd: free() it) */
    int width, height;
    int inverted;   /* the inks are stored inverted, as Adobe's applications write them */
} cp_cmyk_picture;

/* Decodes the CMYK JPEG in `bytes` at the smallest of libjpeg's scales (1/1, 1/2, 1/4, 1/8)
 * that is at least `min_width` × `min_height`, refusing before any pixel is decoded a picture of
 * more than `max_pixels` or one whose output would be. Returns 0 on success; 1 when the JPEG
 * is not CMYK; a negative value on failure, with libjpeg's message in `message` (a buffer of
 * `message_size` bytes). */
int cp_cmyk_jpeg_decode(const void *bytes, size_t length, int min_width, int min_height, long long max_pixels,
                        cp_cmyk_picture *out, char *message, size_t message_size);

#endif
