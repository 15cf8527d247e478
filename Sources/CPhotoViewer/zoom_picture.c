#include "zoom_picture.h"
#include <math.h>

#define MIN_ZOOM_FACTOR 0.5 /* of the fitting zoom */
#define MAX_ZOOM 16.0
#define SWIPE_DISTANCE 80.0

struct _CpZoomPicture {
    GtkWidget parent_instance;
    GdkPaintable *paintable;
    int image_width, image_height;
    gboolean fit;
    double zoom;              /* device pixels per image pixel, when not fitted */
    double center_x, center_y; /* the image point at the widget's centre, in image pixels */
    double reveal;
    /* where the image is drawn, once told (cp_zoom_picture_set_view) */
    graphene_rect_t view;
    gboolean has_view;
    int allocated_width, allocated_height;
    /* gestures */
    double pointer_x, pointer_y;
    double drag_center_x, drag_center_y;
    gboolean dragging_pans;
    double pinch_zoom;
    double last_zoom;
};

enum { SIGNAL_ZOOM_CHANGED, SIGNAL_SWIPE, SIGNAL_PANNED, SIGNAL_RESIZED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_REVEAL, N_PROPS };
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE(CpZoomPicture, cp_zoom_picture, GTK_TYPE_WIDGET)

static double device_scale(CpZoomPicture *self) {
    return MAX(1, gtk_widget_get_scale_factor(GTK_WIDGET(self)));
}

double cp_zoom_picture_get_fit_zoom(CpZoomPicture *self) {
    g_return_val_if_fail(CP_IS_ZOOM_PICTURE(self), 1.0);
    int width = gtk_widget_get_width(GTK_WIDGET(self)), height = gtk_widget_get_height(GTK_WIDGET(self));
    if (self->image_width <= 0 || self->image_height <= 0 || width <= 0 || height <= 0)
        return 1.0;
    double scale = device_scale(self);
    double fit = MIN(width * scale / self->image_width, height * scale / self->image_height);
    return MIN(fit, 1.0);
}

double cp_zoom_picture_get_zoom(CpZoomPicture *self) {
    g_return_val_if_fail(CP_IS_ZOOM_PICTURE(self), 1.0);
    return self->fit ? cp_zoom_picture_get_fit_zoom(self) : self->zoom;
}

gboolean cp_zoom_picture_is_fit(CpZoomPicture *self) {
    g_return_val_if_fail(CP_IS_ZOOM_PICTURE(self), TRUE);
    return self->fit;
}

/* Logical pixels per image pixel. */
static double logical_zoom(CpZoomPicture *self) {
    return cp_zoom_picture_get_zoom(self) / device_scale(self);
}

/* Keeps the picture over the widget: centred along an axis where it is smaller than the
 * widget, and never showing empty space past its edges where it is larger. */
static void clamp_center(CpZoomPicture *self) {
    double k = logical_zoom(self);
    double half_w = gtk_widget_get_width(GTK_WIDGET(self)) / 2.0 / k;
    double half_h = gtk_widget_get_height(GTK_WIDGET(self)) / 2.0 / k;
    if (self->fit || self->image_width <= 2 * half_w)
        self->center_x = self->image_width / 2.0;
    else
        self->center_x = CLAMP(self->center_x, half_w, self->image_width - half_w);
    if (self->fit || self->image_height <= 2 * half_h)
        self->center_y = self->image_height / 2.0;
    else
        self->center_y = CLAMP(self->center_y, half_h, self->image_height - half_h);
}

static void zoom_maybe_changed(CpZoomPicture *self) {
    if (self->image_width <= 0 || self->image_height <= 0) {
        self->last_zoom = -1.0; /* no picture, no zoom: the next picture's is news */
        return;
    }
    double zoom = cp_zoom_picture_get_zoom(self);
    if (fabs(zoom - self->last_zoom) > 1e-9) {
        self->last_zoom = zoom;
        g_signal_emit(self, signals[SIGNAL_ZOOM_CHANGED], 0);
    }
}

void cp_zoom_picture_set_paintable(CpZoomPicture *self, GdkPaintable *paintable) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(self));
    if (!g_set_object(&self->paintable, paintable))
        return;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void cp_zoom_picture_set_image_size(CpZoomPicture *self, int width, int height) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(self));
    if (width == self->image_width && height == self->image_height)
        return;
    self->image_width = width;
    self->image_height = height;
    self->fit = TRUE;
    clamp_center(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    zoom_maybe_changed(self);
}

void cp_zoom_picture_fit(CpZoomPicture *self) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(self));
    self->fit = TRUE;
    clamp_center(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    zoom_maybe_changed(self);
}

void cp_zoom_picture_set_zoom(CpZoomPicture *self, double zoom, double x, double y) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(self));
    if (self->image_width <= 0 || self->image_height <= 0)
        return;
    double fit = cp_zoom_picture_get_fit_zoom(self);
    zoom = CLAMP(zoom, MIN(fit, 1.0) * MIN_ZOOM_FACTOR, MAX_ZOOM);
    double width = gtk_widget_get_width(GTK_WIDGET(self)), height = gtk_widget_get_height(GTK_WIDGET(self));
    if (x < 0) {
        x = width / 2.0;
        y = height / 2.0;
    }
    /* The image point under (x, y) now... */
    double k = logical_zoom(self);
    double image_x = self->center_x + (x - width / 2.0) / k;
    double image_y = self->center_y + (y - height / 2.0) / k;
    /* ...stays under it at the new zoom. */
    self->fit = FALSE;
    self->zoom = zoom;
    k = logical_zoom(self);
    self->center_x = image_x - (x - width / 2.0) / k;
    self->center_y = image_y - (y - height / 2.0) / k;
    clamp_center(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    zoom_maybe_changed(self);
}

void cp_zoom_picture_zoom_by(CpZoomPicture *self, double factor) {
    cp_zoom_picture_set_zoom(self, cp_zoom_picture_get_zoom(self) * factor, -1, -1);
}

void cp_zoom_picture_get_center(CpZoomPicture *self, double *x, double *y) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(self));
    if (x)
        *x = self->center_x;
    if (y)
        *y = self->center_y;
}

/* Moves the image point at the widget's centre to (x, y), within the image, and says so if it moved. */
static void pan_to(CpZoomPicture *self, double x, double y) {
    double old_x = self->center_x, old_y = self->center_y;
    self->center_x = x;
    self->center_y = y;
    clamp_center(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    if (fabs(self->center_x - old_x) > 1e-9 || fabs(self->center_y - old_y) > 1e-9)
        g_signal_emit(self, signals[SIGNAL_PANNED], 0);
}

gboolean cp_zoom_picture_can_pan(CpZoomPicture *self) {
    g_return_val_if_fail(CP_IS_ZOOM_PICTURE(self), FALSE);
    double k = logical_zoom(self);
    return self->image_width * k > gtk_widget_get_width(GTK_WIDGET(self)) + 0.5 ||
           self->image_height * k > gtk_widget_get_height(GTK_WIDGET(self)) + 0.5;
}

void cp_zoom_picture_set_reveal(CpZoomPicture *self, double progress) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(self));
    progress = CLAMP(progress, 0.0, 1.0);
    if (progress == self->reveal)
        return;
    self->reveal = progress;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_REVEAL]);
}

void cp_zoom_picture_set_view(GtkWidget *picture, double x, double y, double width, double height) {
    g_return_if_fail(CP_IS_ZOOM_PICTURE(picture));
    CpZoomPicture *self = CP_ZOOM_PICTURE(picture);
    graphene_rect_init(&self->view, x, y, width, height);
    self->has_view = TRUE;
    gtk_widget_queue_draw(picture);
}

/* MARK: GtkWidget */

static void cp_zoom_picture_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    (void)baseline;
    CpZoomPicture *self = CP_ZOOM_PICTURE(widget);
    clamp_center(self);
    zoom_maybe_changed(self);
    if (width != self->allocated_width || height != self->allocated_height) {
        self->allocated_width = width;
        self->allocated_height = height;
        g_signal_emit(self, signals[SIGNAL_RESIZED], 0);
    }
}

static void cp_zoom_picture_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                    int *minimum, int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)widget; (void)orientation; (void)for_size; (void)minimum_baseline; (void)natural_baseline;
    *minimum = 0;
    *natural = 0;
}

static void cp_zoom_picture_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    CpZoomPicture *self = CP_ZOOM_PICTURE(widget);
    if (self->has_view) {
        if (self->paintable == NULL || self->view.size.width <= 0 || self->view.size.height <= 0)
            return;
        double width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
        gtk_snapshot_push_clip(snapshot, &GRAPHENE_RECT_INIT(0, 0, width, height));
        if (self->reveal < 1.0) {
            float s = 0.92f + 0.08f * (float)self->reveal;
            gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(width / 2.0, height / 2.0));
            gtk_snapshot_scale(snapshot, s, s);
            gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(-width / 2.0, -height / 2.0));
        }
        gtk_snapshot_translate(snapshot, &self->view.origin);
        gdk_paintable_snapshot(self->paintable, GDK_SNAPSHOT(snapshot), self->view.size.width, self->view.size.height);
        gtk_snapshot_pop(snapshot);
        return;
    }
    if (self->paintable == NULL || self->image_width <= 0 || self->image_height <= 0)
        return;
    double width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    double scale = device_scale(self);
    double k = logical_zoom(self);
    double draw_width = self->image_width * k, draw_height = self->image_height * k;
    /* On whole device pixels, so a picture at 100 % is sharp. */
    double x = round((width / 2.0 - self->center_x * k) * scale) / scale;
    double y = round((height / 2.0 - self->center_y * k) * scale) / scale;

    gtk_snapshot_push_clip(snapshot, &GRAPHENE_RECT_INIT(0, 0, width, height));
    if (self->reveal < 1.0) {
        float s = 0.92f + 0.08f * (float)self->reveal;
        gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(width / 2.0, height / 2.0));
        gtk_snapshot_scale(snapshot, s, s);
        gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(-width / 2.0, -height / 2.0));
    }
    gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(x, y));
    gdk_paintable_snapshot(self->paintable, GDK_SNAPSHOT(snapshot), draw_width, draw_height);
    gtk_snapshot_pop(snapshot);
}

/* MARK: Gestures */

static void on_motion(GtkEventControllerMotion *controller, double x, double y, CpZoomPicture *self) {
    (void)controller;
    self->pointer_x = x;
    self->pointer_y = y;
}

static gboolean on_scroll(GtkEventControllerScroll *controller, double dx, double dy, CpZoomPicture *self) {
    (void)dx;
    GdkModifierType state = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller));
    if (state & GDK_CONTROL_MASK) {
        /* A wheel notch zooms by a quarter; smooth scrolling in proportion. */
        double factor = pow(1.25, -dy);
        cp_zoom_picture_set_zoom(self, cp_zoom_picture_get_zoom(self) * factor, self->pointer_x, self->pointer_y);
        return TRUE;
    }
    if (cp_zoom_picture_can_pan(self)) {
        double k = logical_zoom(self);
        GdkScrollUnit unit = gtk_event_controller_scroll_get_unit(controller);
        double step = unit == GDK_SCROLL_UNIT_WHEEL ? 60.0 : 1.0;
        pan_to(self, self->center_x + dx * step / k, self->center_y + dy * step / k);
        return TRUE;
    }
    return FALSE;
}

static void on_pinch_begin(GtkGesture *gesture, GdkEventSequence *sequence, CpZoomPicture *self) {
    (void)gesture; (void)sequence;
    self->pinch_zoom = cp_zoom_picture_get_zoom(self);
}

static void on_pinch_scale_changed(GtkGestureZoom *gesture, double scale, CpZoomPicture *self) {
    double x, y;
    if (!gtk_gesture_get_bounding_box_center(GTK_GESTURE(gesture), &x, &y)) {
        x = -1;
        y = -1;
    }
    cp_zoom_picture_set_zoom(self, self->pinch_zoom * scale, x, y);
}

static void on_click_pressed(GtkGestureClick *gesture, int n_press, double x, double y, CpZoomPicture *self) {
    (void)gesture;
    if (n_press != 2)
        return;
    if (self->fit && fabs(cp_zoom_picture_get_fit_zoom(self) - 1.0) > 1e-6)
        cp_zoom_picture_set_zoom(self, 1.0, x, y);
    else
        cp_zoom_picture_fit(self);
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, CpZoomPicture *self) {
    (void)gesture; (void)x; (void)y;
    self->dragging_pans = cp_zoom_picture_can_pan(self);
    self->drag_center_x = self->center_x;
    self->drag_center_y = self->center_y;
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, CpZoomPicture *self) {
    if (!self->dragging_pans)
        return;
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    double k = logical_zoom(self);
    pan_to(self, self->drag_center_x - dx / k, self->drag_center_y - dy / k);
}

static void on_drag_end(GtkGestureDrag *gesture, double dx, double dy, CpZoomPicture *self) {
    (void)gesture;
    if (self->dragging_pans)
        return;
    if (fabs(dx) >= SWIPE_DISTANCE && fabs(dx) > 2 * fabs(dy))
        g_signal_emit(self, signals[SIGNAL_SWIPE], 0, dx < 0 ? 1 : -1);
}

/* MARK: GObject */

static void cp_zoom_picture_dispose(GObject *object) {
    g_clear_object(&CP_ZOOM_PICTURE(object)->paintable);
    G_OBJECT_CLASS(cp_zoom_picture_parent_class)->dispose(object);
}

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
        cp_zoom_picture_set_reveal(CP_ZOOM_PICTURE(object), g_value_get_double(value));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void cp_zoom_picture_class_init(CpZoomPictureClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = cp_zoom_picture_dispose;
    object_class->get_property = cp_zoom_picture_get_property;
    object_class->set_property = cp_zoom_picture_set_property;
    properties[PROP_REVEAL] = g_param_spec_double("reveal", NULL, NULL, 0.0, 1.0, 1.0,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);
    widget_class->size_allocate = cp_zoom_picture_size_allocate;
    widget_class->measure = cp_zoom_picture_measure;
    widget_class->snapshot = cp_zoom_picture_snapshot;
    gtk_widget_class_set_css_name(widget_class, "zoompicture");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
    signals[SIGNAL_ZOOM_CHANGED] = g_signal_new("zoom-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                                0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_SWIPE] = g_signal_new("swipe", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    signals[SIGNAL_PANNED] = g_signal_new("panned", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_RESIZED] = g_signal_new("resized", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void cp_zoom_picture_init(CpZoomPicture *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    self->fit = TRUE;
    self->zoom = 1.0;
    self->reveal = 1.0;
    self->last_zoom = -1.0;
    self->allocated_width = -1;
    self->allocated_height = -1;
    gtk_widget_set_focusable(widget, TRUE);
    gtk_widget_set_overflow(widget, GTK_OVERFLOW_HIDDEN);
    gtk_widget_set_hexpand(widget, TRUE);
    gtk_widget_set_vexpand(widget, TRUE);

    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "enter", G_CALLBACK(on_motion), self);
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
    gtk_widget_add_controller(widget, motion);

    GtkEventController *scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(widget, scroll);

    GtkGesture *pinch = gtk_gesture_zoom_new();
    g_signal_connect(pinch, "begin", G_CALLBACK(on_pinch_begin), self);
    g_signal_connect(pinch, "scale-changed", G_CALLBACK(on_pinch_scale_changed), self);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(pinch));

    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_click_pressed), self);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(click));

    GtkGesture *drag = gtk_gesture_drag_new();
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(drag));
}

GtkWidget *cp_zoom_picture_new(void) {
    return g_object_new(CP_TYPE_ZOOM_PICTURE, NULL);
}

/* MARK: Entrance animation */

typedef struct {
    GWeakRef picture;
    GWeakRef fade;
} RevealTargets;

static void reveal_step(double value, gpointer data) {
    RevealTargets *targets = data;
    GtkWidget *picture = g_weak_ref_get(&targets->picture);
    GtkWidget *fade = g_weak_ref_get(&targets->fade);
    if (picture) {
        cp_zoom_picture_set_reveal(CP_ZOOM_PICTURE(picture), value);
        g_object_unref(picture);
    }
    if (fade) {
        gtk_widget_set_opacity(fade, value);
        g_object_unref(fade);
    }
}

static void reveal_targets_free(gpointer data) {
    RevealTargets *targets = data;
    g_weak_ref_clear(&targets->picture);
    g_weak_ref_clear(&targets->fade);
    g_free(targets);
}

AdwAnimation *cp_zoom_picture_reveal_animation_new(CpZoomPicture *picture, GtkWidget *fade, guint ms) {
    RevealTargets *targets = g_new0(RevealTargets, 1);
    g_weak_ref_init(&targets->picture, picture);
    g_weak_ref_init(&targets->fade, fade);
    AdwAnimationTarget *target = adw_callback_animation_target_new(reveal_step, targets, reveal_targets_free);
    AdwAnimation *animation = adw_timed_animation_new(fade, 0.0, 1.0, ms, target);
    adw_timed_animation_set_easing(ADW_TIMED_ANIMATION(animation), ADW_EASE_OUT_CUBIC);
    return animation;
}
