// GLib, GObject and GIO, plus the two libdispatch entry points that let the
// GLib main loop drain Swift's main queue (the same pair CFRunLoop uses).
#include <glib.h>
#include <glib-unix.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixfdlist.h>
#include <malloc.h>
#include <libintl.h>
#include <locale.h>

extern int _dispatch_get_main_queue_handle_4CF(void);
// Linux's sync of one file system (unistd.h declares it only for _GNU_SOURCE): many sidecars
// written at once are synced together.
extern int syncfs(int fd);
extern void _dispatch_main_queue_callback_4CF(void *msg);

// Macros Swift cannot see.
static inline GType cp_object_type(gpointer instance) { return G_OBJECT_TYPE(instance); }
static inline const char *cp_object_type_name(gpointer instance) { return G_OBJECT_TYPE_NAME(instance); }
