#include "zoom_picture.h"

struct _CpZoomPicture {
    GtkWidget parent_instance;
    GdkPaintable *paintable;
    graphene_rect_t view;  /* where the whole image is drawn, in widget coordinates */
    double reveal;
    int allocated_width, allocated_height;
};

enum { SIGNAL_RESIZED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_REVEAL, N_PROPS };
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE(CpZoomPicture, cp_zoom_picture, GTK_TYPE_WIDGET)

GtkWidget *cp_zoom_picture_new(void) {
    return g_object_new(CP_TYPE_ZOOM_PICTURE, NULL);
}

void cp_zoom_picture_set_paintable(GtkWidget *picture, GdkPaintable *paintable) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(picture));
    if (g_set_object(&CP_ZOOM_PICTURE(picture)->paintable, paintable))
        gtk_widget_queue_draw(picture);
}

void cp_zoom_picture_set_view(GtkWidget *picture, double x, double y, double width, double height) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(picture));
    graphene_rect_init(&CP_ZOOM_PICTURE(picture)->view, x, y, width, height);
    gtk_widget_queue_draw(picture);
}

void cp_zoom_picture_set_reveal(GtkWidget *picture, double progress) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(picture));
    CpZoomPicture *self = CP_ZOOM_PICTURE(picture);
    progress = CLAMP(progress, 0.0, 1.0);
    if (progress == self->reveal)
        return;
    self->reveal = progress;
    gtk_widget_queue_draw(picture);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_REVEAL]);
}

/* MARK: GtkWidget */

static void cp_zoom_picture_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                    int *minimum, int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)widget; (void)orientation; (void)for_size; (void)minimum_baseline; (void)natural_baseline;
    *minimum = 0;
    *natural = 0;
}

static void cp_zoom_picture_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    (void)baseline;
    CpZoomPicture *self = CP_ZOOM_PICTURE(widget);
    if (width == self->allocated_width && height == self->allocated_height)
        return;
    self->allocated_width = width;
    self->allocated_height = height;
    g_signal_emit(self, signals[SIGNAL_RESIZED], 0);
}

static void cp_zoom_picture_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    CpZoomPicture *self = CP_ZOOM_PICTURE(widget);
    if (self->paintable == NULL || self->view.size.width <= 0 || self->view.size.height <= 0)
        return;
    double width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    gtk_snapshot_push_clip(snapshot, &GRAPHENE_RECT_INIT(0, 0, width, height));
    if (self->reveal < 1.0) {
        /* Entering, the picture grows from 92 % of its size to its own, about the centre. */
        float s = 0.92f + 0.08f * (float)self->reveal;
        gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(width / 2.0, height / 2.0));
        gtk_snapshot_scale(snapshot, s, s);
        gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(-width / 2.0, -height / 2.0));
    }
    gtk_snapshot_translate(snapshot, &self->view.origin);
    gdk_paintable_snapshot(self->paintable, GDK_SNAPSHOT(snapshot), self->view.size.width, self->view.size.height);
    gtk_snapshot_pop(snapshot);
}

/* MARK: GObject */

static void cp_zoom_picture_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    switch (id) {
    case PROP_REVEAL:
        g_value_set_double(value, CP_ZOOM_PICTURE(object)->reveal);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void cp_zoom_picture_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    switch (id) {
    case PROP_REVEAL:
        cp_zoom_picture_set_reveal(GTK_WIDGET(object), g_value_get_double(value));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void cp_zoom_picture_dispose(GObject *object) {
    g_clear_object(&CP_ZOOM_PICTURE(object)->paintable);
    G_OBJECT_CLASS(cp_zoom_picture_parent_class)->dispose(object);
}

static void cp_zoom_picture_class_init(CpZoomPictureClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = cp_zoom_picture_dispose;
    object_class->get_property = cp_zoom_picture_get_property;
    object_class->set_property = cp_zoom_picture_set_property;
    widget_class->measure = cp_zoom_picture_measure;
    widget_class->size_allocate = cp_zoom_picture_size_allocate;
    widget_class->snapshot = cp_zoom_picture_snapshot;
    gtk_widget_class_set_css_name(widget_class, "zoompicture");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);

    properties[PROP_REVEAL] = g_param_spec_double("reveal", NULL, NULL, 0.0, 1.0, 1.0,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);
    signals[SIGNAL_RESIZED] = g_signal_new("resized", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void cp_zoom_picture_init(CpZoomPicture *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    self->reveal = 1.0;
    self->allocated_width = -1;
    self->allocated_height = -1;
    gtk_widget_set_focusable(widget, TRUE);
    gtk_widget_set_overflow(widget, GTK_OVERFLOW_HIDDEN);
    gtk_widget_set_hexpand(widget, TRUE);
    gtk_widget_set_vexpand(widget, TRUE);
}
