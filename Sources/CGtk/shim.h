// GTK 4. Small inline helpers stand in for macros and casts Swift cannot import.
#include <gtk/gtk.h>

static inline GtkWidget *cp_widget(gpointer p) { return GTK_WIDGET(p); }
