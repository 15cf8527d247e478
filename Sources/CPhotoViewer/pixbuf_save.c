#include "pixbuf_save.h"

gboolean cp_pixbuf_save_jpeg(GdkPixbuf *pixbuf, const char *path, GError **error) {
    return gdk_pixbuf_save(pixbuf, path, "jpeg", error, "quality", "92", NULL);
}
