#ifndef CLASSIC_PHOTOS_VIDEO_FRAMES_H
#define CLASSIC_PHOTOS_VIDEO_FRAMES_H

#include <gio/gio.h>
#include <stdint.h>

/* What cp_video_frame found out about a video, and the frame it chose to stand for it. */
typedef struct {
    /* The frame, 8-bit RGB, `stride` bytes a row (malloc'd: free with cp_video_frame_clear),
     * scaled to fit the asked-for side, turned as the video is meant to be shown. */
    uint8_t *pixels;
    int width, height, stride;
    /* The picture's size as shown (the stream's, turned and with its pixels' aspect). */
    int video_width, video_height;
    /* Seconds; negative when the container does not say. */
    double duration;
    /* The container's own words for when it was made: QuickTime's local creation date with its
     * offset where a phone wrote one ("2024-05-01T12:20:30+0200"), else the UTC creation time
     * ("2024-05-01T10:20:30.000000Z"); empty when there is none. */
    char created[64];
    /* The video codec's short name as FFmpeg calls it ("h264", "hevc", "vp9"). */
    char codec[32];
    /* Bytes of the file read, all told. */
    int64_t bytes_read;
    /* Why it failed, in FFmpeg's words or ours. */
    char message[256];
} cp_video_frame;

enum {
    CP_VIDEO_OK = 0,
    /* No container FFmpeg knows, or one it could not read (damaged, cut short). */
    CP_VIDEO_UNREADABLE = 1,
    /* A container with no video stream in it (sound alone). */
    CP_VIDEO_NO_PICTURE = 2,
    /* A video whose codec no decoder here reads: `codec` says which. */
    CP_VIDEO_NO_DECODER = 3,
    /* Its stream could not be decoded into a single frame. */
    CP_VIDEO_UNDECODABLE = 4,
    /* `cancellable` was cancelled. */
    CP_VIDEO_CANCELLED = 5,
    /* Reading it took more than `max_read` bytes, or its picture is larger than `max_pixels`. */
    CP_VIDEO_TOO_LARGE = 6,
};

/* Reads the video on `fd` (read with pread, from its start; the descriptor's offset is left
 * alone) and decodes one frame that stands for it: a keyframe a tenth of the way in, or a
 * later one when that is nearly black or flat (a fade from black, a lens cap). Reads what the
 * container's index and that keyframe need, no more than `max_read` bytes; refuses a picture
 * larger than `max_pixels`; the frame comes out with its longer side at most `max_side`.
 * `cancellable` (may be NULL) is looked at between reads. Returns one of the CP_VIDEO_ values; what
 * was learnt before a failure (duration, codec) is in `out` as well. */
int cp_video_frame_read(int fd, int max_side, int64_t max_pixels, int64_t max_read, GCancellable *cancellable,
                        cp_video_frame *out);

/* Frees the frame's pixels. */
void cp_video_frame_clear(cp_video_frame *frame);

/* Caps every allocation FFmpeg makes from now on (a hostile file's sizes ask for gigabytes). */
void cp_video_limit_allocations(uint64_t bytes);

#endif
