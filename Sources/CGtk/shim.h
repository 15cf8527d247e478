// GTK 4 and libadwaita 1.2 (Debian 12): one module, as libadwaita's headers include GTK's.
#include <gtk/gtk.h>
#include <adwaita.h>

// gtk_accessible_update_property is variadic; these fixed-argument wrappers set what the rows need.
static inline void cp_accessible_set_label(GtkAccessible *accessible, const char *label, const char *description) {
    gtk_accessible_update_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}
