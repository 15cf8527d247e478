#include "embedded_pictures.h"
#include "deep_pictures.h"

#include <libraw/libraw.h>
#include <libheif/heif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LibRaw's flip (0, 3, 5, 6) as an EXIF orientation. */
static int orientation_of_flip(int flip) {
    switch (flip) {
    case 3: return 3;
    case 5: return 8;
    case 6: return 6;
    default: return 1;
    }
}

int cp_raw_preview_read(const void *bytes, size_t length, cp_raw_preview *out, const char **message) {
    memset(out, 0, sizeof *out);
    if (message) *message = NULL;
    libraw_data_t *raw = libraw_init(0);
    if (!raw) {
        if (message) *message = "LibRaw could not start";
        return -1;
    }
    int result = libraw_open_buffer(raw, (void *)bytes, length);
    if (result == LIBRAW_SUCCESS) result = libraw_unpack_thumb(raw);
    libraw_processed_image_t *image = NULL;
    if (result == LIBRAW_SUCCESS) {
        int code = LIBRAW_SUCCESS;
        image = libraw_dcraw_make_mem_thumb(raw, &code);
        if (!image) result = code != LIBRAW_SUCCESS ? code : LIBRAW_NO_THUMBNAIL;
    }
    if (result != LIBRAW_SUCCESS) {
        if (message) *message = libraw_strerror(result);
        libraw_close(raw);
        return -1;
    }
    out->preview_width = raw->thumbnail.twidth;
    out->preview_height = raw->thumbnail.theight;
    out->image_width = raw->sizes.width;
    out->image_height = raw->sizes.height;
    out->orientation = orientation_of_flip(raw->sizes.flip);
    out->adobe_rgb = raw->color.ExifColorSpace == LIBRAW_COLORSPACE_AdobeRGB;
    out->dng_preview_space = (int)raw->color.dng_levels.preview_colorspace;
    if (image->type == LIBRAW_IMAGE_JPEG) {
        out->data = malloc(image->data_size);
        if (out->data) {
            memcpy(out->data, image->data, image->data_size);
            out->length = image->data_size;
            out->kind = 1;
        }
    } else if (image->type == LIBRAW_IMAGE_BITMAP && image->bits == 8 && image->colors == 3) {
        char header[64];
        int header_length = snprintf(header, sizeof header, "P6\n%u %u\n255\n", image->width, image->height);
        size_t pixels = (size_t)image->width * image->height * 3;
        if (header_length > 0 && pixels <= image->data_size) {
            out->data = malloc((size_t)header_length + pixels);
            if (out->data) {
                memcpy(out->data, header, (size_t)header_length);
                memcpy(out->data + header_length, image->data, pixels);
                out->length = (size_t)header_length + pixels;
                out->kind = 2;
                out->preview_width = image->width;
                out->preview_height = image->height;
            }
        }
    }
    libraw_dcraw_clear_mem(image);
    libraw_close(raw);
    if (!out->data) {
        if (message) *message = "The camera's preview is in a form that cannot be shown";
        return -1;
    }
    return 0;
}

void cp_raw_preview_free(cp_raw_preview *preview) {
    free(preview->data);
    preview->data = NULL;
    preview->length = 0;
}

static void heif_start(void) { heif_init(NULL); }

void cp_heif_prepare(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, heif_start);
}

static int heif_failure(struct heif_error error, char **message) {
    if (message) *message = strdup(error.message ? error.message : "libheif failed");
    return -1;
}

/* Opens the file and its primary image; returns 0 or a negative value with `message`. */
static int heif_open(const void *bytes, size_t length, struct heif_context **context,
                     struct heif_image_handle **primary, char **message) {
    cp_heif_prepare();
    *context = heif_context_alloc();
    if (!*context) {
        if (message) *message = strdup("libheif could not start");
        return -1;
    }
    struct heif_error error = heif_context_read_from_memory_without_copy(*context, bytes, length, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(*context, primary);
    if (error.code != heif_error_Ok) {
        /* The error's message may live in the context (libheif keeps the text of an error it
           composed there): copied before the context goes. Found by the decode fuzzer. */
        int failed = heif_failure(error, message);
        heif_context_free(*context);
        *context = NULL;
        return failed;
    }
    return 0;
}

int cp_heif_probe(const void *bytes, size_t length, int *width, int *height, int *thumbnails, char **message) {
    if (message) *message = NULL;
    struct heif_context *context;
    struct heif_image_handle *primary;
    if (heif_open(bytes, length, &context, &primary, message) != 0) return -1;
    *width = heif_image_handle_get_width(primary);
    *height = heif_image_handle_get_height(primary);
    *thumbnails = heif_image_handle_get_number_of_thumbnails(primary);
    heif_image_handle_release(primary);
    heif_context_free(context);
    return 0;
}

/* Reads `handle`'s colour description into `colour`; 1 if it has one, 0 if not. */
static int heif_colour_of(const struct heif_image_handle *handle, cp_heif_colour *colour) {
    switch (heif_image_handle_get_color_profile_type(handle)) {
    case heif_color_profile_type_rICC:
    case heif_color_profile_type_prof: {
        size_t size = heif_image_handle_get_raw_color_profile_size(handle);
        if (size == 0 || size > (64u << 20)) return 0;
        uint8_t *icc = malloc(size);
        if (!icc) return 0;
        if (heif_image_handle_get_raw_color_profile(handle, icc).code != heif_error_Ok) {
            free(icc);
            return 0;
        }
        colour->icc = icc;
        colour->icc_length = size;
        return 1;
    }
    case heif_color_profile_type_nclx: {
        struct heif_color_profile_nclx *nclx = NULL;
        if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code != heif_error_Ok || !nclx) return 0;
        colour->primaries = (int)nclx->color_primaries;
        colour->transfer = (int)nclx->transfer_characteristics;
        heif_nclx_color_profile_free(nclx);
        return 1;
    }
    default:
        return 0;
    }
}

int cp_heif_primary_colour(const void *bytes, size_t length, cp_heif_colour *colour, char **message) {
    if (message) *message = NULL;
    memset(colour, 0, sizeof *colour);
    struct heif_context *context;
    struct heif_image_handle *primary;
    if (heif_open(bytes, length, &context, &primary, message) != 0) return -1;
    heif_colour_of(primary, colour);
    heif_image_handle_release(primary);
    heif_context_free(context);
    return 0;
}

int cp_heif_thumbnail(const void *bytes, size_t length, int min_side, uint8_t **pixels, int *width, int *height,
                      int *stride, int *image_width, int *image_height, cp_heif_colour *colour, char **message) {
    if (message) *message = NULL;
    *pixels = NULL;
    memset(colour, 0, sizeof *colour);
    struct heif_context *context;
    struct heif_image_handle *primary;
    if (heif_open(bytes, length, &context, &primary, message) != 0) return -1;
    *image_width = heif_image_handle_get_width(primary);
    *image_height = heif_image_handle_get_height(primary);
    int count = heif_image_handle_get_number_of_thumbnails(primary);
    int status = 1;
    if (count > 0) {
        heif_item_id ids[16];
        if (count > 16) count = 16;
        count = heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, count);
        /* The smallest that is large enough, else the largest. */
        struct heif_image_handle *chosen = NULL;
        int chosen_short = 0;
        for (int i = 0; i < count; i++) {
            struct heif_image_handle *candidate = NULL;
            if (heif_image_handle_get_thumbnail(primary, ids[i], &candidate).code != heif_error_Ok) continue;
            int w = heif_image_handle_get_width(candidate), h = heif_image_handle_get_height(candidate);
            /* A "thumbnail" larger than 16 megapixels is no thumbnail: not decoded here. */
            if (w <= 0 || h <= 0 || (long long)w * h > 16LL << 20) {
                heif_image_handle_release(candidate);
                continue;
            }
            int shorter = w < h ? w : h;
            int better = !chosen || (chosen_short < min_side ? shorter > chosen_short
                                                              : shorter >= min_side && shorter < chosen_short);
            if (better) {
                if (chosen) heif_image_handle_release(chosen);
                chosen = candidate;
                chosen_short = shorter;
            } else {
                heif_image_handle_release(candidate);
            }
        }
        if (chosen) {
            if (!heif_colour_of(chosen, colour)) heif_colour_of(primary, colour);
            struct heif_image *image = NULL;
            struct heif_error error = heif_decode_image(chosen, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL);
            if (error.code != heif_error_Ok) {
                status = heif_failure(error, message);
            } else {
                int w = heif_image_get_width(image, heif_channel_interleaved);
                int h = heif_image_get_height(image, heif_channel_interleaved);
                int source_stride = 0;
                const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &source_stride);
                size_t row = (size_t)w * 4;
                if (plane && w > 0 && h > 0 && (size_t)source_stride >= row) {
                    *pixels = malloc(row * (size_t)h);
                    if (*pixels) {
                        for (int y = 0; y < h; y++) memcpy(*pixels + row * (size_t)y, plane + (size_t)source_stride * y, row);
                        *width = w;
                        *height = h;
                        *stride = (int)row;
                        status = 0;
                    }
                }
                if (status != 0 && message && !*message) *message = strdup("The thumbnail holds no pixels");
                if (status != 0) status = -1;
                heif_image_release(image);
            }
            heif_image_handle_release(chosen);
        }
    }
    heif_image_handle_release(primary);
    heif_context_free(context);
    return status;
}

/* MARK: HEIF and AVIF of more than 8 bits */

static void heif_say(char *message, size_t message_size, const char *text) {
    if (message && message_size) snprintf(message, message_size, "%s", text);
}

int cp_deep_heif_decode(const void *bytes, size_t length, long long max_pixels, int probe, cp_deep_picture *out,
                        char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    heif_say(message, message_size, "");
    struct heif_context *context;
    struct heif_image_handle *primary;
    char *opened = NULL;
    if (heif_open(bytes, length, &context, &primary, &opened) != 0) {
        heif_say(message, message_size, opened ? opened : "The HEIF file could not be read");
        free(opened);
        return -1;
    }
    int status = 0;
    int bits = heif_image_handle_get_luma_bits_per_pixel(primary);
    int width = heif_image_handle_get_width(primary), height = heif_image_handle_get_height(primary);
    int alpha = heif_image_handle_has_alpha_channel(primary) != 0;
    int channels = alpha ? 4 : 3;
    if (bits <= 8 || bits > 16) {
        status = 1;
    } else if (width <= 0 || height <= 0 || (long long)width * height > max_pixels) {
        heif_say(message, message_size, "More pixels than a photo may have");
        status = -2;
    } else if (probe) {
        out->width = width;
        out->height = height;
        out->channels = channels;
    } else {
        struct heif_image *image = NULL;
        struct heif_error error =
            heif_decode_image(primary, &image, heif_colorspace_RGB,
                              alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE, NULL);
        if (error.code != heif_error_Ok) {
            heif_say(message, message_size, error.message ? error.message : "libheif could not decode the picture");
            status = -1;
        } else {
            int w = heif_image_get_width(image, heif_channel_interleaved);
            int h = heif_image_get_height(image, heif_channel_interleaved);
            int range = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
            int stride = 0;
            const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
            size_t row = (size_t)w * channels;
            if (!plane || w != width || h != height || range <= 8 || range > 16 || (size_t)stride < row * 2) {
                heif_say(message, message_size, "libheif gave no pixels of the picture's size and depth");
                status = -1;
            } else {
                size_t count = row * (size_t)h;
                uint32_t top = (1u << range) - 1;
                uint16_t *pixels = count / row == (size_t)h ? malloc(count * sizeof(uint16_t)) : NULL;
                uint16_t *widened = malloc(((size_t)top + 1) * sizeof(uint16_t));
                if (!pixels || !widened) {
                    heif_say(message, message_size, "No memory for the picture");
                    free(pixels);
                    status = -2;
                } else {
                    /* Samples of `range` bits, little endian, widened to 16 bits with rounding
                     * (through a table: a division for each of a 12-megapixel photo's 36
                     * million samples took twice as long, 130 ms against 57 here). */
                    for (uint32_t value = 0; value <= top; value++)
                        widened[value] = (uint16_t)((value * 65535u + top / 2) / top);
                    for (int y = 0; y < h; y++) {
                        const uint8_t *from = plane + (size_t)stride * y;
                        uint16_t *to = pixels + row * (size_t)y;
                        for (size_t i = 0; i < row; i++) {
                            uint32_t value = (uint32_t)from[2 * i] | (uint32_t)from[2 * i + 1] << 8;
                            to[i] = widened[value > top ? top : value];
                        }
                    }
                    cp_heif_colour colour;
                    memset(&colour, 0, sizeof colour);
                    heif_colour_of(primary, &colour);
                    out->pixels = pixels;
                    out->width = w;
                    out->height = h;
                    out->channels = channels;
                    out->profile = colour.icc;
                    out->profile_length = colour.icc ? colour.icc_length : 0;
                    /* libheif has already turned it as its `irot` and `imir` boxes say. */
                    out->orientation = 1;
                }
                free(widened);
            }
            heif_image_release(image);
        }
    }
    heif_image_handle_release(primary);
    heif_context_free(context);
    return status;
}
