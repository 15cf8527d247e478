#include "heif_writer.h"

#include "embedded_pictures.h"

#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cp_heif_can_encode(void) {
    cp_heif_prepare();
    return heif_have_encoder_for_format(heif_compression_HEVC);
}

/* The file as libheif writes it, gathered in memory. */
typedef struct {
    uint8_t *bytes;
    size_t size;
    int failed;
} gathered;

static struct heif_error gather(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    gathered *into = userdata;
    struct heif_error fine = {heif_error_Ok, heif_suberror_Unspecified, "Success"};
    uint8_t *grown = realloc(into->bytes, into->size + size);
    if (grown == NULL) {
        into->failed = 1;
        struct heif_error short_of_memory = {heif_error_Encoding_error, heif_suberror_Cannot_write_output_data,
                                             "out of memory"};
        return short_of_memory;
    }
    memcpy(grown + into->size, data, size);
    into->bytes = grown;
    into->size += size;
    return fine;
}

/* Whether `error` is one; if so its words go to `message`. */
static int failed(struct heif_error error, char *message, size_t message_size) {
    if (error.code == heif_error_Ok) return 0;
    snprintf(message, message_size, "%s", error.message != NULL ? error.message : "libheif failed");
    return 1;
}

int cp_heif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int quality,
                   int thumbnail_side, const uint8_t *exif, size_t exif_size, uint8_t **out, size_t *out_size,
                   char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4) || stride < (size_t)width * channels) {
        snprintf(message, message_size, "not a picture libheif can take");
        return -1;
    }
    cp_heif_prepare();
    int status = -1;
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL, *thumbnail = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    struct heif_color_profile_nclx *colours = heif_nclx_color_profile_alloc();
    gathered file = {NULL, 0, 0};
    if (context == NULL || options == NULL || colours == NULL) {
        snprintf(message, message_size, "out of memory");
        goto done;
    }
    if (failed(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), message, message_size))
        goto done;
    heif_encoder_set_lossy_quality(encoder, quality);
    /* x265's "slow" (libheif's default) takes several seconds for a phone's photo on two cores;
     * "medium" keeps the quality asked for in about a third of the time. */
    heif_encoder_set_parameter_string(encoder, "preset", "medium");
    enum heif_chroma chroma = channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
    if (failed(heif_image_create(width, height, heif_colorspace_RGB, chroma, &image), message, message_size)) goto done;
    if (failed(heif_image_add_plane(image, heif_channel_interleaved, width, height, 8), message, message_size))
        goto done;
    int plane_stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
    if (plane == NULL || plane_stride < width * channels) {
        snprintf(message, message_size, "libheif made no room for the pixels");
        goto done;
    }
    for (int y = 0; y < height; y++)
        memcpy(plane + (size_t)y * plane_stride, pixels + (size_t)y * stride, (size_t)width * channels);
    /* sRGB primaries and transfer, full range: the pixels are sRGB's. */
    colours->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
    colours->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
    colours->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
    colours->full_range_flag = 1;
    options->output_nclx_profile = colours;
    options->save_alpha_channel = channels == 4;
    if (failed(heif_context_encode_image(context, image, encoder, options, &handle), message, message_size))
        goto done;
    if (thumbnail_side > 0 && (width > thumbnail_side || height > thumbnail_side) &&
        failed(heif_context_encode_thumbnail(context, image, handle, encoder, options, thumbnail_side, &thumbnail),
               message, message_size))
        goto done;
    if (exif != NULL && exif_size > 0 && exif_size < (1u << 30) &&
        failed(heif_context_add_exif_metadata(context, handle, exif, (int)exif_size), message, message_size))
        goto done;
    struct heif_writer writer = {1, gather};
    if (failed(heif_context_write(context, &writer, &file), message, message_size) || file.failed) goto done;
    *out = file.bytes;
    *out_size = file.size;
    file.bytes = NULL;
    status = 0;
done:
    free(file.bytes);
    if (thumbnail != NULL) heif_image_handle_release(thumbnail);
    if (handle != NULL) heif_image_handle_release(handle);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    if (colours != NULL) heif_nclx_color_profile_free(colours);
    if (options != NULL) heif_encoding_options_free(options);
    if (context != NULL) heif_context_free(context);
    return status;
}
