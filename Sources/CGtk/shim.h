// GTK 4 and libadwaita 1.2 (Debian 12): one module, as libadwaita's headers include GTK's.
#include <string.h>
#include <gtk/gtk.h>
#include <adwaita.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

/// The colour profile an X session names for its screen (the root window's `_ICC_PROFILE`, as
/// colord and the desktops set it): g_malloc'd bytes (`length` of them), or NULL when the
/// display is not X11 or names none.
static inline guint8 *cp_display_icc_profile(GdkDisplay *display, gsize *length) {
    *length = 0;
#ifdef GDK_WINDOWING_X11
    if (!GDK_IS_X11_DISPLAY(display)) return NULL;
    Display *x = gdk_x11_display_get_xdisplay(display);
    Atom atom = XInternAtom(x, "_ICC_PROFILE", True);
    if (atom == None) return NULL;
    Atom type = None;
    int format = 0;
    unsigned long count = 0, after = 0;
    unsigned char *data = NULL;
    /* At most 16 MB (the length is in 32-bit units). */
    if (XGetWindowProperty(x, DefaultRootWindow(x), atom, 0, 4L << 20, False, AnyPropertyType, &type, &format,
                           &count, &after, &data) != Success || !data)
        return NULL;
    guint8 *copy = NULL;
    if (format == 8 && count > 0) {
        copy = g_memdup2(data, count);
        *length = count;
    }
    XFree(data);
    return copy;
#else
    (void)display;
    return NULL;
#endif
}

/// Called (on the main thread) when the X session's `_ICC_PROFILE` changed or went.
typedef void (*cp_display_profile_changed)(void);

#ifdef GDK_WINDOWING_X11
static gboolean cp_display_profile_xevent(GdkX11Display *display, gpointer xevent, gpointer changed) {
    const XEvent *event = xevent;
    if (event->type == PropertyNotify &&
        event->xproperty.window == DefaultRootWindow(gdk_x11_display_get_xdisplay(GDK_DISPLAY(display))) &&
        event->xproperty.atom == gdk_x11_get_xatom_by_name_for_display(GDK_DISPLAY(display), "_ICC_PROFILE"))
        ((cp_display_profile_changed)changed)();
    return FALSE; /* GDK goes on with the event as ever */
}
#endif

/// Calls `changed` whenever the root window's `_ICC_PROFILE` is set or deleted (colord sets it
/// when the display's profile is changed in Settings). FALSE when the display is not X11.
static inline gboolean cp_watch_display_icc_profile(GdkDisplay *display, cp_display_profile_changed changed) {
#ifdef GDK_WINDOWING_X11
    if (!GDK_IS_X11_DISPLAY(display)) return FALSE;
    Display *x = gdk_x11_display_get_xdisplay(display);
    Window root = DefaultRootWindow(x);
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(x, root, &attributes)) return FALSE;
    /* Added to what GDK already hears of the root window, not in its place. */
    XSelectInput(x, root, attributes.your_event_mask | PropertyChangeMask);
    g_signal_connect(display, "xevent", G_CALLBACK(cp_display_profile_xevent), (gpointer)changed);
    return TRUE;
#else
    (void)display;
    (void)changed;
    return FALSE;
#endif
}

// gtk_accessible_update_property is variadic; these fixed-argument wrappers set what the rows need.
/* The desktop's double-click time (milliseconds) and distance (pixels): GTK's settings, which
 * g_object_get reads (it takes variable arguments, which Swift cannot call). */
static inline void cp_double_click_settings(guint *time, guint *distance) {
    int time_ms = 400, pixels = 5;
    GtkSettings *settings = gtk_settings_get_default();
    if (settings)
        g_object_get(settings, "gtk-double-click-time", &time_ms, "gtk-double-click-distance", &pixels, NULL);
    *time = time_ms > 0 ? (guint)time_ms : 0;
    *distance = pixels > 0 ? (guint)pixels : 0;
}

static inline void cp_accessible_set_label(GtkAccessible *accessible, const char *label, const char *description) {
    gtk_accessible_update_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

static inline void cp_accessible_set_name(GtkAccessible *accessible, const char *label) {
    gtk_accessible_update_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/// Keeps a widget out of what screen readers see (a thumbnail inside a row that speaks for it).
static inline void cp_accessible_hide(GtkAccessible *accessible) {
    gtk_accessible_update_state(accessible, GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
}

/// The name a screen reader gives a control that shows only an icon: its tooltip without the
/// shortcut in brackets at its end ("Copy (Ctrl+C)" is "Copy"). Newly allocated, or NULL.
static inline char *cp_name_of_tooltip(const char *tooltip) {
    if (!tooltip || !*tooltip)
        return NULL;
    size_t length = strlen(tooltip);
    const char *open = g_strrstr(tooltip, " (");
    if (open && open > tooltip && tooltip[length - 1] == ')')
        return g_strndup(tooltip, (gsize)(open - tooltip));
    return g_strdup(tooltip);
}

/// Whether the keyboard focus of `window` is in a text a person types into (an entry).
static inline gboolean cp_focus_is_in_text(GtkWindow *window) {
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
    return focus && (GTK_IS_EDITABLE(focus) || GTK_IS_TEXT_VIEW(focus));
}

/// Names the buttons inside `widget` that show only an icon and have no name (libadwaita 1.2's
/// toasts' close button is said as "GtkImage") `name`.
static inline void cp_name_icon_buttons_inside(GtkWidget *widget, const char *name) {
    for (GtkWidget *child = gtk_widget_get_first_child(widget); child; child = gtk_widget_get_next_sibling(child)) {
        if (GTK_IS_BUTTON(child) && !gtk_button_get_label(GTK_BUTTON(child))
            && (gtk_button_get_icon_name(GTK_BUTTON(child)) || GTK_IS_IMAGE(gtk_button_get_child(GTK_BUTTON(child)))))
            gtk_accessible_update_property(GTK_ACCESSIBLE(child), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        else
            cp_name_icon_buttons_inside(child, name);
    }
}

/// Names the close buttons of `overlay`'s toasts (its children other than its content) `name`.
static inline void cp_name_toast_buttons(AdwToastOverlay *overlay, const char *name) {
    GtkWidget *content = adw_toast_overlay_get_child(overlay);
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(overlay)); child;
         child = gtk_widget_get_next_sibling(child))
        if (child != content)
            cp_name_icon_buttons_inside(child, name);
}

/// Names `inside` after the status page `page`'s title.
static inline void cp_name_after_title(GObject *page, GParamSpec *pspec, gpointer inside) {
    (void)pspec;
    const char *title = adw_status_page_get_title(ADW_STATUS_PAGE(page));
    gtk_accessible_update_property(GTK_ACCESSIBLE(inside), GTK_ACCESSIBLE_PROPERTY_LABEL, title ? title : "", -1);
}

/// `label` without the underscores that mark its mnemonic ("Save as _Copy" is "Save as Copy";
/// "__" stands for one underscore). Newly allocated.
static inline char *cp_without_mnemonic(const char *label) {
    GString *text = g_string_new(NULL);
    for (const char *c = label; *c; c++) {
        if (*c == '_') {
            if (c[1] == '_')
                g_string_append_c(text, '_'), c++;
            continue;
        }
        g_string_append_c(text, *c);
    }
    return g_string_free(text, FALSE);
}

/// Gives each control of `builder`'s that GTK 4.8 would call by its class name a name a
/// screen reader can say: a button or menu button showing only an icon takes its tooltip's
/// words, a search entry its placeholder, a status page's scrolled window its title (other
/// entries are named in their files). A control
/// with a name of its own keeps it.
static inline void cp_builder_name_controls(GtkBuilder *builder) {
    GSList *objects = gtk_builder_get_objects(builder);
    for (GSList *each = objects; each; each = each->next) {
        GObject *object = each->data;
        char *name = NULL;
        if (GTK_IS_MENU_BUTTON(object)) {
            GtkMenuButton *button = GTK_MENU_BUTTON(object);
            if (!gtk_menu_button_get_label(button))
                name = cp_name_of_tooltip(gtk_widget_get_tooltip_text(GTK_WIDGET(button)));
        } else if (GTK_IS_BUTTON(object)) {
            GtkButton *button = GTK_BUTTON(object);
            GtkWidget *child = gtk_button_get_child(button);
            const char *label = gtk_button_get_label(button);
            if (!label && (gtk_button_get_icon_name(button) || GTK_IS_IMAGE(child)))
                name = cp_name_of_tooltip(gtk_widget_get_tooltip_text(GTK_WIDGET(button)));
            else if (label && gtk_button_get_use_underline(button) && strchr(label, '_')) {
                // GTK 4.8 says "_Save Save" (the label with its mnemonic's underscore, then the
                // text of the label inside): named here once, as it reads.
                name = cp_without_mnemonic(label);
                gtk_accessible_reset_relation(GTK_ACCESSIBLE(object), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
            }
        } else if (GTK_IS_SEARCH_ENTRY(object)) {
            char *placeholder = NULL;
            g_object_get(object, "placeholder-text", &placeholder, NULL);
            if (placeholder && *placeholder)
                name = placeholder;
            else
                g_free(placeholder);
        }
        if (ADW_IS_STATUS_PAGE(object)) {
            // Its scrolled window inside is named after the page's title, as it changes.
            GtkWidget *inside = gtk_widget_get_first_child(GTK_WIDGET(object));
            if (GTK_IS_SCROLLED_WINDOW(inside)) {
                g_signal_connect_object(object, "notify::title", G_CALLBACK(cp_name_after_title), inside, 0);
                cp_name_after_title(object, NULL, inside);
            }
        }
        if (name)
            gtk_accessible_update_property(GTK_ACCESSIBLE(object), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        g_free(name);
    }
    g_slist_free(objects);
}

// Drag and drop: the GTypes are macros that call functions, which Swift does not import.

/// A drop target taking copies of files (a file list, which is also how links arrive from
/// browsers and file managers, or its text/uri-list) or text. Its "drop" handler reads what
/// was dropped with `cp_drop_read_locations`.
static inline GtkDropTargetAsync *cp_drop_target_new_for_locations(void) {
    GdkContentFormatsBuilder *builder = gdk_content_formats_builder_new();
    gdk_content_formats_builder_add_gtype(builder, GDK_TYPE_FILE_LIST);
    gdk_content_formats_builder_add_mime_type(builder, "text/uri-list");
    gdk_content_formats_builder_add_gtype(builder, G_TYPE_STRING);
    return gtk_drop_target_async_new(gdk_content_formats_builder_free_to_formats(builder), GDK_ACTION_COPY);
}

/// The dropped value as strings: each file's URI for a file list, the text itself for text.
/// Free with g_strfreev. NULL for any other type.
static inline char **cp_drop_value_strings(const GValue *value) {
    if (G_VALUE_HOLDS(value, G_TYPE_STRING)) {
        const char *text = g_value_get_string(value);
        char **strings = g_new0(char *, 2);
        strings[0] = g_strdup(text != NULL ? text : "");
        return strings;
    }
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST)) return NULL;
    GdkFileList *list = g_value_get_boxed(value);
    GSList *files = list != NULL ? gdk_file_list_get_files(list) : NULL;
    char **strings = g_new0(char *, g_slist_length(files) + 1);
    guint n = 0;
    for (GSList *l = files; l != NULL; l = l->next) strings[n++] = g_file_get_uri(G_FILE(l->data));
    g_slist_free(files);
    return strings;
}

/// Told once what a drop held, as strings (see `cp_drop_value_strings`; text/uri-list as one
/// string), or NULL when none of it could be read. Returns whether it took the drop.
typedef gboolean (*CPDropStringsReady)(char **strings, gpointer data);

/// A drop being read, one way after the other until one gives something.
typedef struct {
    GdkDrop *drop;
    CPDropStringsReady ready;
    gpointer data;
    int next; /* 0: as a file list, 1: as text/uri-list, 2: as text, 3: nothing left */
} CPDropRead;

static inline void cp_drop_read_next(CPDropRead *read);

static inline void cp_drop_read_done(CPDropRead *read, char **strings) {
    gboolean took = read->ready(strings, read->data);
    g_strfreev(strings);
    gdk_drop_finish(read->drop, took ? GDK_ACTION_COPY : 0);
    g_object_unref(read->drop);
    g_free(read);
}

static inline void cp_drop_value_read(GObject *drop, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    const GValue *value = gdk_drop_read_value_finish(GDK_DROP(drop), result, &error);
    char **strings = value != NULL ? cp_drop_value_strings(value) : NULL;
    if (error != NULL) g_debug("A drop could not be read this way: %s", error->message);
    g_clear_error(&error);
    if (strings != NULL) cp_drop_read_done(data, strings);
    else cp_drop_read_next(data);
}

static inline void cp_drop_text_read(GObject *stream, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    GMemoryOutputStream *memory = G_MEMORY_OUTPUT_STREAM(stream);
    gboolean read = g_output_stream_splice_finish(G_OUTPUT_STREAM(stream), result, &error) >= 0;
    char **strings = NULL;
    if (read) {
        strings = g_new0(char *, 2);
        strings[0] = g_strndup(g_memory_output_stream_get_data(memory), g_memory_output_stream_get_data_size(memory));
    } else {
        g_debug("A drop's text/uri-list could not be read: %s", error->message);
    }
    g_clear_error(&error);
    g_object_unref(stream);
    if (strings != NULL) cp_drop_read_done(data, strings);
    else cp_drop_read_next(data);
}

static inline void cp_drop_text_opened(GObject *drop, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    GInputStream *input = gdk_drop_read_finish(GDK_DROP(drop), result, NULL, &error);
    if (input == NULL) {
        g_debug("A drop's text/uri-list could not be had: %s", error->message);
        g_clear_error(&error);
        cp_drop_read_next(data);
        return;
    }
    GOutputStream *memory = g_memory_output_stream_new_resizable();
    g_output_stream_splice_async(
        memory, input, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT,
        NULL, cp_drop_text_read, data);
    g_object_unref(input);
}

static inline void cp_drop_read_next(CPDropRead *read) {
    static const char *uri_list[] = { "text/uri-list", NULL };
    GdkContentFormats *offered = gdk_drop_get_formats(read->drop);
    while (read->next < 3) {
        switch (read->next++) {
        case 0:
            if (!gdk_content_formats_contain_gtype(offered, GDK_TYPE_FILE_LIST)) break;
            gdk_drop_read_value_async(read->drop, GDK_TYPE_FILE_LIST, G_PRIORITY_DEFAULT, NULL, cp_drop_value_read, read);
            return;
        case 1:
            if (!gdk_content_formats_contain_mime_type(offered, "text/uri-list")) break;
            gdk_drop_read_async(read->drop, uri_list, G_PRIORITY_DEFAULT, NULL, cp_drop_text_opened, read);
            return;
        default:
            if (!gdk_content_formats_contain_gtype(offered, G_TYPE_STRING)) break;
            gdk_drop_read_value_async(read->drop, G_TYPE_STRING, G_PRIORITY_DEFAULT, NULL, cp_drop_value_read, read);
            return;
        }
    }
    cp_drop_read_done(read, NULL);
}

/// Reads what `drop` holds and tells `ready` once, then finishes the drop (copied when `ready`
/// took it). A file list comes first; when it cannot be had (a document portal that is missing
/// or cannot serve the transfer), the text/uri-list offered beside it; then plain text.
static inline void cp_drop_read_locations(GdkDrop *drop, CPDropStringsReady ready, gpointer data) {
    CPDropRead *read = g_new0(CPDropRead, 1);
    read->drop = g_object_ref(drop);
    read->ready = ready;
    read->data = data;
    cp_drop_read_next(read);
}

/// Content for a drag: the files or links at `uris` as a file list (offered as text/uri-list).
static inline GdkContentProvider *cp_content_provider_new_for_uris(const char *const *uris) {
    GSList *files = NULL;
    for (const char *const *uri = uris; *uri != NULL; uri++) files = g_slist_prepend(files, g_file_new_for_uri(*uri));
    files = g_slist_reverse(files);
    GdkFileList *list = gdk_file_list_new_from_list(files);
    g_slist_free_full(files, g_object_unref);
    GValue value = G_VALUE_INIT;
    g_value_init(&value, GDK_TYPE_FILE_LIST);
    g_value_take_boxed(&value, list);
    GdkContentProvider *provider = gdk_content_provider_new_for_value(&value);
    g_value_unset(&value);
    return provider;
}

/// Content for the clipboard or a drag: the files at `uris` as a file list (which GTK offers as
/// text/uri-list too), the way GNOME's file managers copy files (x-special/gnome-copied-files,
/// so that Files pastes copies), and as plain text (`text`: their paths, one a line).
static inline GdkContentProvider *cp_content_provider_new_for_files(const char *const *uris, const char *text) {
    GString *copied = g_string_new("copy");
    for (const char *const *uri = uris; *uri != NULL; uri++) {
        g_string_append_c(copied, '\n');
        g_string_append(copied, *uri);
    }
    GBytes *copied_bytes = g_string_free_to_bytes(copied);
    GBytes *text_bytes = g_bytes_new(text, strlen(text));
    GdkContentProvider *providers[] = {
        cp_content_provider_new_for_uris(uris),
        gdk_content_provider_new_for_bytes("x-special/gnome-copied-files", copied_bytes),
        gdk_content_provider_new_for_bytes("text/plain;charset=utf-8", text_bytes),
    };
    g_bytes_unref(copied_bytes);
    g_bytes_unref(text_bytes);
    return gdk_content_provider_new_union(providers, G_N_ELEMENTS(providers));
}
