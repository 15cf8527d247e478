// gdk_pixbuf_save is variadic, which Swift cannot call: a fixed-argument JPEG save.
#pragma once
#include <gdk-pixbuf/gdk-pixbuf.h>

G_BEGIN_DECLS

/// Saves `pixbuf` (without alpha) as a JPEG of quality 92 at `path`.
gboolean cp_pixbuf_save_jpeg(GdkPixbuf *pixbuf, const char *path, GError **error);

G_END_DECLS
