#include "video_frames.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

/* The file as FFmpeg reads it: through pread on the descriptor, counted and bounded. */
typedef struct {
    int fd;
    int64_t position, size, read, max_read;
    int over_limit;
    GCancellable *cancellable;
} reader;

static int read_packet(void *opaque, uint8_t *buffer, int length) {
    reader *r = opaque;
    if (r->cancellable && g_cancellable_is_cancelled(r->cancellable)) return AVERROR_EXIT;
    if (r->read >= r->max_read) {
        r->over_limit = 1;
        return AVERROR(EFBIG);
    }
    if ((int64_t)length > r->max_read - r->read) length = (int)(r->max_read - r->read);
    ssize_t count;
    do {
        count = pread(r->fd, buffer, (size_t)length, r->position);
    } while (count < 0 && errno == EINTR);
    if (count < 0) return AVERROR(errno);
    if (count == 0) return AVERROR_EOF;
    r->position += count;
    r->read += count;
    return (int)count;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    reader *r = opaque;
    if (whence & AVSEEK_SIZE) return r->size >= 0 ? r->size : AVERROR(ENOSYS);
    int64_t target;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = r->position + offset; break;
    case SEEK_END:
        if (r->size < 0) return AVERROR(ENOSYS);
        target = r->size + offset;
        break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0) return AVERROR(EINVAL);
    r->position = target;
    return target;
}

static int interrupted(void *opaque) {
    reader *r = opaque;
    return r->cancellable && g_cancellable_is_cancelled(r->cancellable);
}

static void say(cp_video_frame *out, const char *what, int error) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    if (error) av_strerror(error, reason, sizeof reason);
    snprintf(out->message, sizeof out->message, "%s%s%s", what, error ? ": " : "", reason);
}

/* How far the picture is turned clockwise to be shown upright: 0, 90, 180 or 270. */
static int clockwise_turn(const AVStream *stream) {
    size_t size = 0;
    const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 0;
    double angle = -av_display_rotation_get((const int32_t *)matrix);
    if (isnan(angle)) return 0;
    int turn = (int)lround(angle / 90.0) * 90;
    turn %= 360;
    return turn < 0 ? turn + 360 : turn;
}

/* `frame` scaled into RGB at `width` × `height`, then turned by `turn` degrees. */
static uint8_t *rgb_of(const AVFrame *frame, int width, int height, int turn, int *out_width, int *out_height,
                       int *out_stride) {
    struct SwsContext *scaler =
        sws_getContext(frame->width, frame->height, frame->format, width, height, AV_PIX_FMT_RGB24,
                       SWS_BICUBIC, NULL, NULL, NULL);
    if (!scaler) return NULL;
    int stride = (width * 3 + 3) & ~3;
    uint8_t *scaled = calloc((size_t)height, (size_t)stride);
    if (!scaled) {
        sws_freeContext(scaler);
        return NULL;
    }
    uint8_t *planes[4] = {scaled, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    int rows = sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes,
                         strides);
    sws_freeContext(scaler);
    if (rows <= 0) {
        free(scaled);
        return NULL;
    }
    if (turn == 0) {
        *out_width = width;
        *out_height = height;
        *out_stride = stride;
        return scaled;
    }
    int turned_width = turn == 180 ? width : height, turned_height = turn == 180 ? height : width;
    int turned_stride = (turned_width * 3 + 3) & ~3;
    uint8_t *turned = malloc((size_t)turned_stride * (size_t)turned_height);
    if (!turned) {
        free(scaled);
        return NULL;
    }
    for (int y = 0; y < height; y++) {
        const uint8_t *row = scaled + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x++) {
            int tx, ty;
            if (turn == 90) {
                tx = height - 1 - y;
                ty = x;
            } else if (turn == 180) {
                tx = width - 1 - x;
                ty = height - 1 - y;
            } else {
                tx = y;
                ty = width - 1 - x;
            }
            memcpy(turned + (size_t)ty * (size_t)turned_stride + (size_t)tx * 3, row + (size_t)x * 3, 3);
        }
    }
    free(scaled);
    *out_width = turned_width;
    *out_height = turned_height;
    *out_stride = turned_stride;
    return turned;
}

/* How much a picture shows: the spread of its brightness, and how bright it is on average. */
static void brightness(const uint8_t *pixels, int width, int height, int stride, double *mean, double *spread) {
    double sum = 0, squares = 0;
    for (int y = 0; y < height; y++) {
        const uint8_t *p = pixels + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x++, p += 3) {
            double luma = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
            sum += luma;
            squares += luma * luma;
        }
    }
    double count = (double)width * height;
    *mean = sum / count;
    double variance = squares / count - *mean * *mean;
    *spread = variance > 0 ? sqrt(variance) : 0;
}

/* The most packets read looking for one frame: packets served from what was read already
 * cost no new reads, so the byte limit alone would not end a file of endless tiny ones. */
#define MOST_PACKETS 20000

/* Decodes the first frame at or after the decoder's position; 0, or an FFmpeg error. */
static int next_frame(AVFormatContext *format, AVCodecContext *decoder, int stream_index, AVPacket *packet,
                      AVFrame *frame, reader *r) {
    int packets = 0, turns = 0;
    for (;;) {
        if (++turns > MOST_PACKETS) return AVERROR_INVALIDDATA;
        if (interrupted(r)) return AVERROR_EXIT;
        int status = avcodec_receive_frame(decoder, frame);
        if (status == 0) return 0;
        if (status != AVERROR(EAGAIN)) return status;
        status = av_read_frame(format, packet);
        if (status == AVERROR_EOF) {
            avcodec_send_packet(decoder, NULL); /* the frames the decoder still holds */
            continue;
        }
        if (status < 0) return status;
        if (packet->stream_index == stream_index) {
            /* A stream marked with no keyframe where one was looked for is decoded whole. */
            if (++packets == 240 && decoder->skip_frame == AVDISCARD_NONKEY) decoder->skip_frame = AVDISCARD_DEFAULT;
            int key = packet->flags & AV_PKT_FLAG_KEY;
            status = avcodec_send_packet(decoder, packet);
            av_packet_unref(packet);
            if (status < 0 && status != AVERROR(EAGAIN) && status != AVERROR_INVALIDDATA) return status;
            if (key && decoder->skip_frame == AVDISCARD_NONKEY) {
                /* A decoder that reorders frames holds a keyframe back until the frames after
                 * it arrive, which are skipped here: it is drained of it instead, rather than
                 * reading on to the next keyframes. */
                avcodec_send_packet(decoder, NULL);
                if (avcodec_receive_frame(decoder, frame) == 0) return 0;
                avcodec_flush_buffers(decoder);
            }
        } else {
            av_packet_unref(packet);
        }
    }
}

static void created(AVFormatContext *format, const AVStream *stream, cp_video_frame *out) {
    const char *keys[] = {"com.apple.quicktime.creationdate", "creation_time"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const AVDictionaryEntry *entry = av_dict_get(format->metadata, keys[i], NULL, 0);
        if (!entry) entry = av_dict_get(stream->metadata, keys[i], NULL, 0);
        if (entry && entry->value && entry->value[0]) {
            snprintf(out->created, sizeof out->created, "%s", entry->value);
            return;
        }
    }
}

int cp_video_frame_read(int fd, int max_side, int64_t max_pixels, int64_t max_read, GCancellable *cancellable,
                        cp_video_frame *out) {
    memset(out, 0, sizeof *out);
    out->duration = -1;
    av_log_set_level(AV_LOG_QUIET);
    struct stat info;
    reader r = {.fd = fd, .size = fstat(fd, &info) == 0 ? (int64_t)info.st_size : -1, .max_read = max_read,
                .cancellable = cancellable};
    int result = CP_VIDEO_UNREADABLE;
    AVFormatContext *format = NULL;
    AVIOContext *io = NULL;
    AVCodecContext *decoder = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    const int buffer_size = 32 << 10;
    uint8_t *buffer = av_malloc(buffer_size);
    if (!buffer) goto done;
    io = avio_alloc_context(buffer, buffer_size, 0, &r, read_packet, NULL, seek);
    if (!io) {
        av_free(buffer);
        goto done;
    }
    format = avformat_alloc_context();
    if (!format) goto done;
    format->pb = io;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->interrupt_callback = (AVIOInterruptCB){.callback = interrupted, .opaque = &r};
    int status = avformat_open_input(&format, NULL, NULL, NULL);
    if (status < 0) {
        say(out, "Not a video FFmpeg can read", status);
        goto done;
    }
    const AVCodec *codec = NULL;
    int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (index >= 0 && format->streams[index]->codecpar->width <= 0) {
        /* A container that does not say its picture's size up front (a transport stream):
         * its first packets are looked at, a few seconds' worth at most. */
        format->max_analyze_duration = 5 * AV_TIME_BASE;
        if (avformat_find_stream_info(format, NULL) < 0) {
            say(out, "The video's streams could not be read", 0);
            goto done;
        }
        index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    }
    if (index == AVERROR_STREAM_NOT_FOUND) {
        result = CP_VIDEO_NO_PICTURE;
        say(out, "The file holds no video", 0);
        goto done;
    }
    if (index < 0 && index != AVERROR_DECODER_NOT_FOUND) {
        say(out, "The video's streams could not be read", index);
        goto done;
    }
    /* Past this, what the container says is known even if no frame comes of it. */
    {
        int found = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (found < 0) {
            say(out, "The video's streams could not be read", found);
            goto done;
        }
        AVStream *stream = format->streams[found];
        const AVCodecDescriptor *descriptor = avcodec_descriptor_get(stream->codecpar->codec_id);
        if (descriptor && stream->codecpar->codec_id != AV_CODEC_ID_NONE) {
            snprintf(out->codec, sizeof out->codec, "%s", descriptor->name);
        } else if (stream->codecpar->codec_tag) {
            /* A codec FFmpeg has no name for: the container's four letters for it ("vvc1"). */
            char tag[AV_FOURCC_MAX_STRING_SIZE];
            av_fourcc_make_string(tag, stream->codecpar->codec_tag);
            snprintf(out->codec, sizeof out->codec, "%s", tag);
        }
        if (format->duration > 0 && format->duration != AV_NOPTS_VALUE) {
            out->duration = (double)format->duration / AV_TIME_BASE;
        } else if (stream->duration > 0 && stream->duration != AV_NOPTS_VALUE) {
            out->duration = (double)stream->duration * av_q2d(stream->time_base);
        }
        created(format, stream, out);
        if (index < 0) {
            result = CP_VIDEO_NO_DECODER;
            snprintf(out->message, sizeof out->message, "No decoder for this video's codec (%s) is installed", out->codec);
            goto done;
        }
    }
    AVStream *stream = format->streams[index];
    AVCodecParameters *parameters = stream->codecpar;
    if (parameters->width <= 0 || parameters->height <= 0 ||
        (int64_t)parameters->width * parameters->height > max_pixels) {
        result = parameters->width > 0 && parameters->height > 0 ? CP_VIDEO_TOO_LARGE : CP_VIDEO_UNREADABLE;
        snprintf(out->message, sizeof out->message, "The video's picture is %d × %d pixels", parameters->width,
                 parameters->height);
        goto done;
    }
    int turn = clockwise_turn(stream);
    AVRational aspect = parameters->sample_aspect_ratio;
    double shown_width = parameters->width, shown_height = parameters->height;
    if (aspect.num > 0 && aspect.den > 0) shown_width = shown_width * aspect.num / aspect.den;
    out->video_width = (int)lround(turn % 180 ? shown_height : shown_width);
    out->video_height = (int)lround(turn % 180 ? shown_width : shown_height);

    decoder = avcodec_alloc_context3(codec);
    if (!decoder || avcodec_parameters_to_context(decoder, parameters) < 0) goto done;
    decoder->thread_count = 1;
    decoder->skip_frame = AVDISCARD_NONKEY;
    status = avcodec_open2(decoder, codec, NULL);
    if (status < 0) {
        result = CP_VIDEO_UNDECODABLE;
        say(out, "The video's decoder did not start", status);
        goto done;
    }
    for (unsigned i = 0; i < format->nb_streams; i++)
        if ((int)i != index) format->streams[i]->discard = AVDISCARD_ALL;
    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (!packet || !frame) goto done;

    /* A tenth of the way in first (past a title or a fade-in); a third and three fifths of the
     * way when that is dark or flat; the one showing most of all is kept. */
    const double fractions[] = {0.1, 0.33, 0.6};
    double best_score = -1;
    int tries = out->duration > 1 ? 3 : 1;
    for (int attempt = 0; attempt < tries; attempt++) {
        if (out->duration > 1) {
            int64_t at = (int64_t)(out->duration * fractions[attempt] * AV_TIME_BASE);
            if (format->start_time != AV_NOPTS_VALUE) at += format->start_time;
            int64_t target = av_rescale_q(at, AV_TIME_BASE_Q, stream->time_base);
            if (av_seek_frame(format, index, target, AVSEEK_FLAG_BACKWARD) < 0 && attempt > 0) break;
            avcodec_flush_buffers(decoder);
        }
        status = next_frame(format, decoder, index, packet, frame, &r);
        if (status < 0) {
            if (attempt > 0) break;
            result = r.over_limit ? CP_VIDEO_TOO_LARGE : interrupted(&r) ? CP_VIDEO_CANCELLED : CP_VIDEO_UNDECODABLE;
            if (r.over_limit) {
                snprintf(out->message, sizeof out->message, "Finding a frame would read more than %lld MB of it",
                         (long long)(max_read >> 20));
            } else {
                say(out, "No frame of the video could be decoded", status == AVERROR_EOF ? 0 : status);
            }
            goto done;
        }
        double scale = fmin(1.0, (double)max_side / fmax(shown_width, shown_height));
        int width = (int)fmax(1, lround(shown_width * scale)), height = (int)fmax(1, lround(shown_height * scale));
        int made_width, made_height, made_stride;
        uint8_t *pixels = rgb_of(frame, width, height, turn, &made_width, &made_height, &made_stride);
        av_frame_unref(frame);
        if (!pixels) {
            result = CP_VIDEO_UNDECODABLE;
            say(out, "The frame could not be turned into RGB", 0);
            goto done;
        }
        double mean, spread;
        brightness(pixels, made_width, made_height, made_stride, &mean, &spread);
        /* Of frames that all fall short, one that is not dark, then the one showing most. */
        double score = (mean >= 24 ? 1e6 : 0) + spread * 1e3 + mean;
        if (score > best_score) {
            free(out->pixels);
            out->pixels = pixels;
            out->width = made_width;
            out->height = made_height;
            out->stride = made_stride;
            best_score = score;
        } else {
            free(pixels);
        }
        result = CP_VIDEO_OK;
        if (mean >= 24 && spread >= 12) break;
        if (interrupted(&r)) break;
    }
    if (interrupted(&r)) {
        cp_video_frame_clear(out);
        result = CP_VIDEO_CANCELLED;
    }

done:
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&format);
    if (io) {
        av_freep(&io->buffer);
        avio_context_free(&io);
    }
    out->bytes_read = r.read;
    if (result != CP_VIDEO_OK) cp_video_frame_clear(out);
    if (result == CP_VIDEO_UNREADABLE && r.over_limit) {
        result = CP_VIDEO_TOO_LARGE;
        snprintf(out->message, sizeof out->message, "Reading its index would read more than %lld MB of it",
                 (long long)(max_read >> 20));
    }
    if (result == CP_VIDEO_UNREADABLE && interrupted(&r)) result = CP_VIDEO_CANCELLED;
    if (result == CP_VIDEO_UNREADABLE && !out->message[0]) say(out, "The video could not be read", 0);
    return result;
}

void cp_video_frame_clear(cp_video_frame *frame) {
    free(frame->pixels);
    frame->pixels = NULL;
    frame->width = frame->height = frame->stride = 0;
}

void cp_video_limit_allocations(uint64_t bytes) { av_max_alloc((size_t)bytes); }
