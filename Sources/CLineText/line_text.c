#include "line_text.h"

#include <pango/pangocairo.h>

struct _CpLineText {
    GtkWidget parent_instance;
    char *text;
    /* Made at the first snapshot, and kept. */
    PangoLayout *layout;
    /* The font the layout was made for (to tell a font change from a colour change). */
    PangoFontDescription *font;
    float xalign;
    PangoEllipsizeMode ellipsize;
};

G_DEFINE_FINAL_TYPE(CpLineText, cp_line_text, GTK_TYPE_WIDGET)

/* The height of a line, in Pango units, for each font, language and resolution measured;
 * used on the main thread only, as GTK is. */
typedef struct {
    PangoFontDescription *font;
    PangoLanguage *language;
    double resolution;
} LineFont;

static guint line_font_hash(gconstpointer key) {
    const LineFont *font = key;
    return pango_font_description_hash(font->font) ^ g_direct_hash(font->language) ^ g_double_hash(&font->resolution);
}

static gboolean line_font_equal(gconstpointer a, gconstpointer b) {
    const LineFont *first = a, *second = b;
    return first->language == second->language && first->resolution == second->resolution &&
           pango_font_description_equal(first->font, second->font);
}

static void line_font_free(gpointer key) {
    LineFont *font = key;
    pango_font_description_free(font->font);
    g_free(font);
}

static GHashTable *line_heights;

GtkWidget *cp_line_text_new(void) {
    return g_object_new(CP_TYPE_LINE_TEXT, NULL);
}

void cp_line_text_set_text(GtkWidget *widget, const char *text) {
    g_return_if_fail(CP_IS_LINE_TEXT(widget));
    CpLineText *self = CP_LINE_TEXT(widget);
    if (text == NULL)
        text = "";
    if (g_strcmp0(self->text, text) == 0)
        return;
    g_free(self->text);
    self->text = g_strdup(text);
    if (self->layout != NULL)
        pango_layout_set_text(self->layout, self->text, -1);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, self->text, -1);
    /* The size is the font's, not the text's: drawing again is enough. */
    gtk_widget_queue_draw(widget);
}

const char *cp_line_text_get_text(GtkWidget *widget) {
    g_return_val_if_fail(CP_IS_LINE_TEXT(widget), "");
    const char *text = CP_LINE_TEXT(widget)->text;
    return text != NULL ? text : "";
}

void cp_line_text_set_layout(GtkWidget *widget, float xalign, PangoEllipsizeMode ellipsize) {
    g_return_if_fail(CP_IS_LINE_TEXT(widget));
    CpLineText *self = CP_LINE_TEXT(widget);
    self->xalign = CLAMP(xalign, 0.0f, 1.0f);
    self->ellipsize = ellipsize;
    if (self->layout != NULL)
        pango_layout_set_ellipsize(self->layout, ellipsize);
    gtk_widget_queue_draw(widget);
}

/* The height of one line in the widget's font, from the kept heights where this font was
 * measured before. */
static int line_height(GtkWidget *widget) {
    PangoContext *context = gtk_widget_get_pango_context(widget);
    LineFont key = {
        .font = (PangoFontDescription *)pango_context_get_font_description(context),
        .language = pango_context_get_language(context),
        .resolution = pango_cairo_context_get_resolution(context),
    };
    if (line_heights == NULL)
        line_heights = g_hash_table_new_full(line_font_hash, line_font_equal, line_font_free, NULL);
    gpointer kept = g_hash_table_lookup(line_heights, &key);
    if (kept != NULL)
        return GPOINTER_TO_INT(kept);
    PangoFontMetrics *metrics = pango_context_get_metrics(context, key.font, key.language);
    int height = MAX(pango_font_metrics_get_ascent(metrics) + pango_font_metrics_get_descent(metrics), 1);
    pango_font_metrics_unref(metrics);
    LineFont *kept_key = g_new(LineFont, 1);
    *kept_key = key;
    kept_key->font = pango_font_description_copy(key.font);
    g_hash_table_insert(line_heights, kept_key, GINT_TO_POINTER(height));
    return height;
}

static void cp_line_text_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                 int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)for_size;
    (void)minimum_baseline;
    (void)natural_baseline;
    if (orientation == GTK_ORIENTATION_HORIZONTAL) {
        /* Whatever room it is given (the text is ellipsized to it). */
        *minimum = 0;
        *natural = 0;
    } else {
        *minimum = *natural = PANGO_PIXELS_CEIL(line_height(widget));
    }
}

static void cp_line_text_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    CpLineText *self = CP_LINE_TEXT(widget);
    if (self->text == NULL || self->text[0] == '\0')
        return;
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    if (width <= 0 || height <= 0)
        return;
    if (self->layout == NULL) {
        self->layout = gtk_widget_create_pango_layout(widget, self->text);
        pango_layout_set_ellipsize(self->layout, self->ellipsize);
        pango_layout_set_single_paragraph_mode(self->layout, TRUE);
    }
    pango_layout_set_width(self->layout, width * PANGO_SCALE);
    /* The start is the left, or the right in a right-to-left direction. */
    PangoAlignment alignment = PANGO_ALIGN_CENTER;
    if (self->xalign != 0.5f) {
        gboolean rtl = gtk_widget_get_direction(widget) == GTK_TEXT_DIR_RTL;
        alignment = (self->xalign < 0.5f) != rtl ? PANGO_ALIGN_LEFT : PANGO_ALIGN_RIGHT;
    }
    pango_layout_set_alignment(self->layout, alignment);
    PangoRectangle logical;
    pango_layout_get_pixel_extents(self->layout, NULL, &logical);
    GdkRGBA color;
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_style_context_get_color(gtk_widget_get_style_context(widget), &color);
    G_GNUC_END_IGNORE_DEPRECATIONS
    gtk_snapshot_save(snapshot);
    gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(0, (height - logical.height) / 2.0f));
    gtk_snapshot_append_layout(snapshot, self->layout, &color);
    gtk_snapshot_restore(snapshot);
}

static void cp_line_text_css_changed(GtkWidget *widget, GtkCssStyleChange *change) {
    GTK_WIDGET_CLASS(cp_line_text_parent_class)->css_changed(widget, change);
    CpLineText *self = CP_LINE_TEXT(widget);
    /* GTK gives the widget's Pango context the style's font; a new font is a new height (a
     * state's new colour only needs drawing, which GTK sees to). */
    const PangoFontDescription *font = pango_context_get_font_description(gtk_widget_get_pango_context(widget));
    if (self->font != NULL && pango_font_description_equal(self->font, font))
        return;
    if (self->font != NULL)
        pango_font_description_free(self->font);
    self->font = pango_font_description_copy(font);
    if (self->layout != NULL)
        pango_layout_context_changed(self->layout);
    gtk_widget_queue_resize(widget);
}

static void cp_line_text_direction_changed(GtkWidget *widget, GtkTextDirection previous) {
    GTK_WIDGET_CLASS(cp_line_text_parent_class)->direction_changed(widget, previous);
    CpLineText *self = CP_LINE_TEXT(widget);
    if (self->layout != NULL)
        pango_layout_context_changed(self->layout);
    gtk_widget_queue_draw(widget);
}

static void cp_line_text_finalize(GObject *object) {
    CpLineText *self = CP_LINE_TEXT(object);
    g_free(self->text);
    g_clear_object(&self->layout);
    if (self->font != NULL)
        pango_font_description_free(self->font);
    G_OBJECT_CLASS(cp_line_text_parent_class)->finalize(object);
}

static void cp_line_text_class_init(CpLineTextClass *klass) {
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->measure = cp_line_text_measure;
    widget_class->snapshot = cp_line_text_snapshot;
    widget_class->css_changed = cp_line_text_css_changed;
    widget_class->direction_changed = cp_line_text_direction_changed;
    G_OBJECT_CLASS(klass)->finalize = cp_line_text_finalize;
    gtk_widget_class_set_css_name(widget_class, "label");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_LABEL);
}

static void cp_line_text_init(CpLineText *self) {
    self->ellipsize = PANGO_ELLIPSIZE_END;
}
