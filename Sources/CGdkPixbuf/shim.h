#include <gdk-pixbuf/gdk-pixbuf.h>

// gdk-pixbuf 2.42's animation iterators take a GTimeVal, which GLib deprecated (2.62) with no
// replacement in this API. Stepping an animation through its frames at chosen times is done
// here, in milliseconds from its start, so the deprecated type stays out of Swift.
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
static inline GTimeVal cp_pixbuf_animation_time(long ms) {
    GTimeVal t = { ms / 1000, (ms % 1000) * 1000 };
    return t;
}

/// An iterator on `animation`'s first frame, its clock starting at 0 ms.
static inline GdkPixbufAnimationIter *cp_pixbuf_animation_iter_new(GdkPixbufAnimation *animation) {
    GTimeVal start = cp_pixbuf_animation_time(0);
    return gdk_pixbuf_animation_get_iter(animation, &start);
}

/// Moves `iter` to the frame shown `ms` milliseconds after its start; TRUE if the frame changed.
static inline gboolean cp_pixbuf_animation_iter_advance_to(GdkPixbufAnimationIter *iter, long ms) {
    GTimeVal t = cp_pixbuf_animation_time(ms);
    return gdk_pixbuf_animation_iter_advance(iter, &t);
}
G_GNUC_END_IGNORE_DEPRECATIONS

/// gdk_pixbuf_save is variadic, which Swift cannot call: saves `pixbuf` (without alpha) as a
/// JPEG of quality 92 at `path`.
static inline gboolean cp_pixbuf_save_jpeg(GdkPixbuf *pixbuf, const char *path, GError **error) {
    return gdk_pixbuf_save(pixbuf, path, "jpeg", error, "quality", "92", NULL);
}
