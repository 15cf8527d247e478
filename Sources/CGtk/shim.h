// GTK 4. Fixed-argument wrappers stand in for variadic functions Swift cannot call.
#include <gtk/gtk.h>

static inline GtkWidget *cp_message_dialog_new(GtkWindow *parent, GtkMessageType type, GtkButtonsType buttons,
                                               const char *primary, const char *secondary) {
    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                               type, buttons, "%s", primary);
    if (secondary)
        gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", secondary);
    return dialog;
}
