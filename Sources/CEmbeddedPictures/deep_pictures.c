#include "deep_pictures.h"

#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

static void say(char *message, size_t message_size, const char *text) {
    if (message && message_size) snprintf(message, message_size, "%s", text);
}

/* Room for `width` × `height` pixels of `channels` 16-bit values, or NULL when that is more
 * than `max_pixels` or more than memory can be asked for. */
static uint16_t *pixels_for(uint32_t width, uint32_t height, int channels, long long max_pixels) {
    if (width == 0 || height == 0 || (long long)width * height > max_pixels) return NULL;
    size_t count = (size_t)width * height * (size_t)channels;
    if (count / channels / width != height || count > SIZE_MAX / sizeof(uint16_t)) return NULL;
    return malloc(count * sizeof(uint16_t));
}

static uint8_t *copy_of(const void *bytes, size_t length) {
    if (!bytes || length == 0) return NULL;
    uint8_t *copy = malloc(length);
    if (copy) memcpy(copy, bytes, length);
    return copy;
}

void cp_deep_picture_free(cp_deep_picture *picture) {
    free(picture->pixels);
    free(picture->profile);
    memset(picture, 0, sizeof *picture);
}

/* MARK: PNG */

int cp_deep_png_is_deep(const void *bytes, size_t length) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    const uint8_t *b = bytes;
    /* The signature, then IHDR: length, type, width, height, bit depth (24), colour type (25). */
    if (length < 33 || memcmp(b, signature, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return 0;
    return b[24] == 16 && (b[25] == PNG_COLOR_TYPE_RGB || b[25] == PNG_COLOR_TYPE_RGB_ALPHA ||
                           b[25] == PNG_COLOR_TYPE_GRAY || b[25] == PNG_COLOR_TYPE_GRAY_ALPHA);
}

typedef struct {
    const uint8_t *data;
    size_t length, at;
    char *message;
    size_t message_size;
} png_memory;

static void png_read_memory(png_structp png, png_bytep out, size_t count) {
    png_memory *source = png_get_io_ptr(png);
    if (count > source->length - source->at) png_error(png, "The PNG is cut short");
    memcpy(out, source->data + source->at, count);
    source->at += count;
}

static void png_failed(png_structp png, png_const_charp text) {
    png_memory *source = png_get_error_ptr(png);
    say(source->message, source->message_size, text);
    png_longjmp(png, 1);
}

static void png_warned(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

int cp_deep_png_decode(const void *bytes, size_t length, long long max_pixels, int probe, cp_deep_picture *out,
                       char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    say(message, message_size, "");
    if (!cp_deep_png_is_deep(bytes, length)) return 1;
    png_memory source = {bytes, length, 0, message, message_size};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, png_failed, png_warned);
    if (!png) return -2;
    png_infop info = png_create_info_struct(png);
    /* Volatile: read after a longjmp. */
    uint16_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        return -1;
    }
    png_set_read_fn(png, &source, png_read_memory);
    png_read_info(png, info);
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if ((long long)width * height > max_pixels) {
        say(message, message_size, "More pixels than a photo may have");
        png_destroy_read_struct(&png, &info, NULL);
        return -2;
    }
    int type = png_get_color_type(png, info);
    int alpha = type == PNG_COLOR_TYPE_RGB_ALPHA || type == PNG_COLOR_TYPE_GRAY_ALPHA;
    int grey = type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA;
    if (png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_set_tRNS_to_alpha(png); /* one colour marked transparent: an alpha channel of its own */
        alpha = 1;
    }
    int channels = (grey ? 1 : 3) + alpha;
    if (probe) {
        out->width = (int)width;
        out->height = (int)height;
        out->channels = channels;
        png_destroy_read_struct(&png, &info, NULL);
        return 0;
    }
    const uint16_t one = 1;
    if (*(const uint8_t *)&one == 1) png_set_swap(png); /* PNG is big-endian */
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * channels * 2) {
        say(message, message_size, "The PNG's rows are not of 16-bit samples");
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    pixels = pixels_for(width, height, channels, max_pixels);
    rows = malloc(sizeof(png_bytep) * height);
    if (!pixels || !rows) {
        say(message, message_size, "No memory for the picture");
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return -2;
    }
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + (size_t)y * width * channels);
    png_read_image(png, rows);
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) == PNG_INFO_iCCP) {
        out->profile = copy_of(profile, profile_length);
        out->profile_length = out->profile ? profile_length : 0;
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    out->channels = channels;
    out->orientation = 1;
    return 0;
}

/* MARK: TIFF */

typedef struct {
    const uint8_t *data;
    size_t length, at;
    char *message;
    size_t message_size;
} tiff_memory;

static tmsize_t tiff_read(thandle_t handle, void *out, tmsize_t count) {
    tiff_memory *source = handle;
    if (count < 0) return -1;
    size_t left = source->length - source->at;
    size_t taken = (size_t)count < left ? (size_t)count : left;
    memcpy(out, source->data + source->at, taken);
    source->at += taken;
    return (tmsize_t)taken;
}

static tmsize_t tiff_write(thandle_t handle, void *bytes, tmsize_t count) {
    (void)handle;
    (void)bytes;
    (void)count;
    return -1;
}

static toff_t tiff_seek(thandle_t handle, toff_t offset, int whence) {
    tiff_memory *source = handle;
    toff_t base = whence == SEEK_CUR ? source->at : whence == SEEK_END ? source->length : 0;
    if (offset > (toff_t)-1 - base) return (toff_t)-1;
    toff_t at = base + offset;
    /* Past the end is allowed (a read there gives nothing), as for a file. */
    if (at > SIZE_MAX) return (toff_t)-1;
    source->at = at > source->length ? source->length : (size_t)at;
    return at;
}

static int tiff_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t tiff_size(thandle_t handle) { return ((tiff_memory *)handle)->length; }

static int tiff_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void tiff_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static int tiff_failed(TIFF *tiff, void *data, const char *module, const char *format, va_list args) {
    (void)tiff;
    (void)module;
    tiff_memory *source = data;
    if (source->message && source->message_size && source->message[0] == 0)
        vsnprintf(source->message, source->message_size, format, args);
    return 1;
}

static int tiff_warned(TIFF *tiff, void *data, const char *module, const char *format, va_list args) {
    (void)tiff;
    (void)data;
    (void)module;
    (void)format;
    (void)args;
    return 1;
}

/* Copies `count` pixels of `per_pixel` values (8 or 16 bits, as `bytes` says) into `to`, one
 * value every `per_pixel` of its own values, the pixels `channels` values apart there: a
 * pixel's samples together (per_pixel == channels), or one plane's (per_pixel == 1, `to`
 * offset to the plane's channel). 8-bit values are widened to 16. */
static void copy_values(const uint8_t *from, uint16_t *to, uint32_t count, int per_pixel, int channels, size_t bytes) {
    for (uint32_t i = 0; i < count; i++)
        for (int v = 0; v < per_pixel; v++) {
            size_t at = (size_t)i * per_pixel + v;
            uint16_t value;
            if (bytes == 2)
                memcpy(&value, from + at * 2, 2);
            else
                value = (uint16_t)(from[at] * 257);
            to[(size_t)i * channels + v] = value;
        }
}

/* Reads the whole picture into `pixels` (16 bits a value, `channels` a pixel, row after row):
 * from strips or tiles, a pixel's samples together or each in a plane of its own. 0 when read,
 * -1 when the file is not as its header says or cannot be read, -2 without memory. */
static int tiff_read_pixels(TIFF *tiff, uint32_t width, uint32_t height, int channels, int bits, int separate,
                            uint16_t *pixels) {
    int planes = separate ? channels : 1, per_pixel = separate ? 1 : channels;
    size_t bytes = (size_t)bits / 8;
    if (TIFFIsTiled(tiff)) {
        uint32_t tile_width = 0, tile_height = 0;
        TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &tile_width);
        TIFFGetField(tiff, TIFFTAG_TILELENGTH, &tile_height);
        tmsize_t size = TIFFTileSize(tiff);
        if (tile_width == 0 || tile_height == 0 ||
            size != (tmsize_t)((size_t)tile_width * tile_height * per_pixel * bytes))
            return -1;
        uint8_t *tile = malloc((size_t)size);
        if (!tile) return -2;
        for (int plane = 0; plane < planes; plane++)
            for (uint32_t top = 0; top < height; top += tile_height)
                for (uint32_t left = 0; left < width; left += tile_width) {
                    if (TIFFReadTile(tiff, tile, left, top, 0, (uint16_t)plane) < 0) {
                        free(tile);
                        return -1;
                    }
                    uint32_t rows = height - top < tile_height ? height - top : tile_height;
                    uint32_t columns = width - left < tile_width ? width - left : tile_width;
                    for (uint32_t row = 0; row < rows; row++)
                        copy_values(tile + (size_t)row * tile_width * per_pixel * bytes,
                                    pixels + ((size_t)(top + row) * width + left) * channels + plane, columns,
                                    per_pixel, channels, bytes);
                }
        free(tile);
        return 0;
    }
    tmsize_t size = TIFFScanlineSize(tiff);
    if (size != (tmsize_t)((size_t)width * per_pixel * bytes)) return -1;
    uint8_t *line = malloc((size_t)size);
    if (!line) return -2;
    for (int plane = 0; plane < planes; plane++)
        for (uint32_t y = 0; y < height; y++) {
            if (TIFFReadScanline(tiff, line, y, (uint16_t)plane) < 0) {
                free(line);
                return -1;
            }
            copy_values(line, pixels + (size_t)y * width * channels + plane, width, per_pixel, channels, bytes);
        }
    free(line);
    return 0;
}

int cp_deep_tiff_decode(const void *bytes, size_t length, long long max_pixels, int probe, cp_deep_picture *out,
                        char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    say(message, message_size, "");
    tiff_memory source = {bytes, length, 0, message, message_size};
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return -2;
    TIFFOpenOptionsSetErrorHandlerExtR(options, tiff_failed, &source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tiff_warned, &source);
    /* No single allocation of libtiff's larger than the whole file could need. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)(max_pixels * 8 > 0 ? max_pixels * 8 : 0));
    /* "m": read through the functions above, never mapped. */
    TIFF *tiff = TIFFClientOpenExt("picture", "rm", &source, tiff_read, tiff_write, tiff_seek, tiff_close, tiff_size,
                                   tiff_map, tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!tiff) {
        if (message && message_size && !message[0]) say(message, message_size, "Not a TIFF libtiff reads");
        return -1;
    }
    uint32_t width = 0, height = 0;
    uint16_t bits = 0, samples = 0, photometric = 0, planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
    uint16_t orientation = ORIENTATION_TOPLEFT, extra_count = 0;
    uint16_t *extra = NULL;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    uint16_t inkset = INKSET_CMYK;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_INKSET, &inkset);
    int alpha = extra_count == 1 && extra && extra[0] == EXTRASAMPLE_UNASSALPHA;
    /* In strips or tiles, a pixel's samples together or in planes of their own. */
    int plain = format == SAMPLEFORMAT_UINT && (planar == PLANARCONFIG_CONTIG || planar == PLANARCONFIG_SEPARATE);
    int rgb = plain && bits == 16 && photometric == PHOTOMETRIC_RGB && samples == 3 + alpha &&
              extra_count == alpha;
    /* Grey of 16 bits, black at 0 (with or without alpha). */
    int grey = plain && bits == 16 && photometric == PHOTOMETRIC_MINISBLACK && samples == 1 + alpha &&
               extra_count == alpha;
    int cmyk = plain && (bits == 8 || bits == 16) && photometric == PHOTOMETRIC_SEPARATED &&
               inkset == INKSET_CMYK && samples == 4 && extra_count == 0;
    if (!rgb && !grey && !cmyk) {
        TIFFClose(tiff);
        return 1;
    }
    if ((long long)width * height > max_pixels) {
        say(message, message_size, "More pixels than a photo may have");
        TIFFClose(tiff);
        return -2;
    }
    int channels = samples;
    if (probe) {
        out->width = (int)width;
        out->height = (int)height;
        out->channels = channels;
        TIFFClose(tiff);
        return 0;
    }
    uint16_t *pixels = pixels_for(width, height, channels, max_pixels);
    int read = pixels ? tiff_read_pixels(tiff, width, height, channels, bits, planar == PLANARCONFIG_SEPARATE, pixels)
                      : -2;
    if (read != 0) {
        if (message && message_size && !message[0])
            say(message, message_size,
                read == -2 ? "No memory for the picture" : "The TIFF's pixels are not as its header says");
        free(pixels);
        TIFFClose(tiff);
        return read;
    }
    uint32_t profile_length = 0;
    void *profile = NULL;
    if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &profile_length, &profile)) {
        out->profile = copy_of(profile, profile_length);
        out->profile_length = out->profile ? profile_length : 0;
    }
    TIFFClose(tiff);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    out->channels = channels;
    out->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    out->cmyk = cmyk;
    return 0;
}
