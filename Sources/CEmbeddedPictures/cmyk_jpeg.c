#include "cmyk_jpeg.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */

#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* libjpeg reports a fatal error by calling error_exit, which must not return: it jumps back
 * to the decode with the message kept. */
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf back;
    char *message;
    size_t message_size;
} failure;

static void fail(j_common_ptr info) {
    failure *f = (failure *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    if (f->message && f->message_size) snprintf(f->message, f->message_size, "%s", text);
    longjmp(f->back, 1);
}

/* A progressive JPEG may hold any number of scans, each read whole: past a thousand (cameras
 * and encoders write about ten), it is refused rather than read on. */
static void limit_scans(j_common_ptr info) {
    if (!info->is_decompressor || ((j_decompress_ptr)info)->input_scan_number <= 1000) return;
    failure *f = (failure *)info->err;
    if (f->message && f->message_size) snprintf(f->message, f->message_size, "More than 1000 scans");
    longjmp(f->back, 1);
}

/* Warnings (a damaged stream libjpeg can go on with) are not fatal. */
static void warn(j_common_ptr info, int level) {
    (void)info;
    (void)level;
}

/* Sends libjpeg's fatal errors to `f` (its message into `message`, then back to the decode's
 * setjmp) and makes its warnings quiet. */
static void report_to(struct jpeg_decompress_struct *info, failure *f, char *message, size_t message_size) {
    memset(f, 0, sizeof *f);
    info->err = jpeg_std_error(&f->base);
    f->base.error_exit = fail;
    f->base.emit_message = warn;
    f->message = message;
    f->message_size = message_size;
}

/* Whether the JPEG whose header `info` has read holds more than `max_pixels` (said in
 * `message`). */
static int too_many_pixels(const struct jpeg_decompress_struct *info, long long max_pixels, char *message,
                           size_t message_size) {
    if ((long long)info->image_width * info->image_height <= max_pixels) return 0;
    if (message && message_size) snprintf(message, message_size, "More pixels than a photo may have");
    return 1;
}

/* Sets the smallest of libjpeg's scales (1/1, 1/2, 1/4, 1/8) whose picture still covers
 * `min_width` × `min_height`, and works out the output's size. */
static void cover(struct jpeg_decompress_struct *info, int min_width, int min_height) {
    info->scale_num = 1;
    info->scale_denom = 1;
    for (unsigned denom = 8; denom > 1; denom /= 2) {
        if ((info->image_width + denom - 1) / denom >= (unsigned)min_width &&
            (info->image_height + denom - 1) / denom >= (unsigned)min_height) {
            info->scale_denom = denom;
            break;
        }
    }
    jpeg_calc_output_dimensions(info);
}

int cp_cmyk_jpeg_decode(const void *bytes, size_t length, int min_width, int min_height, long long max_pixels,
                        cp_cmyk_picture *out, char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    if (message && message_size) message[0] = 0;
    struct jpeg_decompress_struct info;
    failure f;
    report_to(&info, &f, message, message_size);
    /* Volatile: read after a longjmp. */
    uint8_t *volatile inks = NULL;
    if (setjmp(f.back)) {
        free(inks);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, (const unsigned char *)bytes, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    if (info.jpeg_color_space != JCS_CMYK && info.jpeg_color_space != JCS_YCCK) {
        jpeg_destroy_decompress(&info);
        return 1;
    }
    if (too_many_pixels(&info, max_pixels, message, message_size)) {
        jpeg_destroy_decompress(&info);
        return -2;
    }
    info.out_color_space = JCS_CMYK;
    cover(&info, min_width, min_height);
    size_t row = (size_t)info.output_width * 4;
    if (info.output_components != 4 || info.output_width == 0 || info.output_height == 0) {
        if (message && message_size) snprintf(message, message_size, "The JPEG's inks could not be read");
        jpeg_destroy_decompress(&info);
        return -1;
    }
    inks = malloc(row * info.output_height);
    if (!inks) {
        if (message && message_size) snprintf(message, message_size, "No memory for the picture");
        jpeg_destroy_decompress(&info);
        return -2;
    }
    jpeg_start_decompress(&info);
    while (info.output_scanline < info.output_height) {
        JSAMPROW line = inks + row * info.output_scanline;
        if (jpeg_read_scanlines(&info, &line, 1) != 1) break;
    }
    /* Rows libjpeg did not reach (it pads a stream cut short itself, so this is a last
     * resort) are set rather than left as whatever the allocation held. */
    for (JDIMENSION y = info.output_scanline; y < info.output_height; y++) memset(inks + row * y, 0, row);
    out->inverted = info.saw_Adobe_marker;
    out->width = (int)info.output_width;
    out->height = (int)info.output_height;
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    out->inks = inks;
    return 0;
}

int cp_rgb_jpeg_decode(const void *bytes, size_t length, int min_width, int min_height, long long max_pixels,
                       cp_jpeg_rows_target target, void *context, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    struct jpeg_decompress_struct info;
    failure f;
    report_to(&info, &f, message, message_size);
    if (setjmp(f.back)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    struct jpeg_progress_mgr progress = {.progress_monitor = limit_scans};
    info.progress = &progress;
    jpeg_mem_src(&info, (const unsigned char *)bytes, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    if (info.jpeg_color_space != JCS_YCbCr && info.jpeg_color_space != JCS_GRAYSCALE &&
        info.jpeg_color_space != JCS_RGB) {
        jpeg_destroy_decompress(&info);
        return 1;
    }
    if (too_many_pixels(&info, max_pixels, message, message_size)) {
        jpeg_destroy_decompress(&info);
        return -2;
    }
    info.out_color_space = JCS_RGB;
    cover(&info, min_width, min_height);
    if (info.output_components != 3 || info.output_width == 0 || info.output_height == 0) {
        if (message && message_size) snprintf(message, message_size, "The JPEG's colours could not be read");
        jpeg_destroy_decompress(&info);
        return -1;
    }
    int stride = 0;
    uint8_t *pixels = target.prepare(context, (int)info.output_width, (int)info.output_height, &stride);
    if (!pixels || stride < (int)info.output_width * 3) {
        if (message && message_size) snprintf(message, message_size, "No memory for the picture");
        jpeg_destroy_decompress(&info);
        return -2;
    }
    /* Not buffered: a progressive JPEG's scans are all read in, then its rows made once, top
     * to bottom, each final as it comes (gdk-pixbuf's loader shows each scan in turn). */
    jpeg_start_decompress(&info);
    JDIMENSION reported = 0;
    while (info.output_scanline < info.output_height) {
        JSAMPROW line = pixels + (size_t)stride * info.output_scanline;
        if (jpeg_read_scanlines(&info, &line, 1) != 1) break;
        if (target.rows_done && info.output_scanline - reported >= 64) {
            reported = info.output_scanline;
            target.rows_done(context, (int)reported);
        }
    }
    /* Rows libjpeg did not reach (it pads a stream cut short itself) are set to grey rather than
     * left as whatever the allocation held. */
    int complete = info.output_scanline >= info.output_height;
    for (JDIMENSION y = info.output_scanline; y < info.output_height; y++)
        memset(pixels + (size_t)stride * y, 0x80, (size_t)info.output_width * 3);
    if (complete)
        jpeg_finish_decompress(&info);
    else
        jpeg_abort_decompress(&info);
    jpeg_destroy_decompress(&info);
    return 0;
}
