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

/* Where cp_rgb_jpeg_decode puts its rows: `prepare` is given the decoded size and returns the
 * pixels to fill (3 bytes a pixel, `stride` bytes a row; NULL: no memory), and `rows_done`
 * (may be NULL) hears how many rows from the top are final, every 64 rows. */
typedef struct {
    uint8_t *(*prepare)(void *context, int width, int height, int *stride);
    void (*rows_done)(void *context, int rows);
} cp_jpeg_rows_target;

/* Decodes a YCbCr, RGB or grey JPEG in `bytes` into RGB in one pass, at the smallest of
 * libjpeg's scales that is at least `min_width` × `min_height`, refusing before any pixel is
 * decoded a picture of more than `max_pixels`: for a progressive JPEG, whose scans gdk-pixbuf's
 * loader shows one after the other (each a whole decode of the picture), this is one. Returns
 * 0 on success; 1 for a JPEG of other colours (CMYK); a negative value on failure, with
 * libjpeg's message in `message`. */
int cp_rgb_jpeg_decode(const void *bytes, size_t length, int min_width, int min_height, long long max_pixels,
                       cp_jpeg_rows_target target, void *context, char *message, size_t message_size);

#endif
