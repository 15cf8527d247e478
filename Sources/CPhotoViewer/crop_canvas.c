#include "crop_canvas.h"

struct _CpCropCanvas {
    GtkWidget parent_instance;
    GdkPaintable *paintable;
    graphene_rect_t photo; /* where the photo is drawn */
    graphene_rect_t frame; /* the crop's frame */
    int divisions;         /* lines across the frame: 3 for thirds, 0 for none */
    double angle;          /* degrees the photo is turned about its centre, clockwise */
    gboolean turning;      /* the angle is being slid: drawn quickly where drawing is slow */
    cairo_surface_t *pixels; /* the paintable's pixels for cairo, made when first needed */
    gboolean has_line;     /* a line drawn along what should be level */
    graphene_point_t line_from, line_to;
    int allocated_width, allocated_height;
};

enum { SIGNAL_RESIZED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(CpCropCanvas, cp_crop_canvas, GTK_TYPE_WIDGET)

GtkWidget *cp_crop_canvas_new(void) {
    return g_object_new(CP_TYPE_CROP_CANVAS, NULL);
}

void cp_crop_canvas_set_photo(GtkWidget *canvas, GdkPaintable *paintable, double x, double y, double width,
                              double height) {
    g_return_if_fail(CP_IS_CROP_CANVAS(canvas));
    CpCropCanvas *self = CP_CROP_CANVAS(canvas);
    if (g_set_object(&self->paintable, paintable))
        g_clear_pointer(&self->pixels, cairo_surface_destroy);
    graphene_rect_init(&self->photo, x, y, width, height);
    gtk_widget_queue_draw(canvas);
}

void cp_crop_canvas_set_frame(GtkWidget *canvas, double x, double y, double width, double height, int divisions) {
    g_return_if_fail(CP_IS_CROP_CANVAS(canvas));
    CpCropCanvas *self = CP_CROP_CANVAS(canvas);
    graphene_rect_init(&self->frame, x, y, width, height);
    self->divisions = divisions;
    gtk_widget_queue_draw(canvas);
}

void cp_crop_canvas_set_angle(GtkWidget *canvas, double degrees) {
    g_return_if_fail(CP_IS_CROP_CANVAS(canvas));
    CpCropCanvas *self = CP_CROP_CANVAS(canvas);
    self->angle = degrees;
    gtk_widget_queue_draw(canvas);
}

void cp_crop_canvas_set_turning(GtkWidget *canvas, gboolean turning) {
    g_return_if_fail(CP_IS_CROP_CANVAS(canvas));
    CpCropCanvas *self = CP_CROP_CANVAS(canvas);
    if (self->turning == !!turning)
        return;
    self->turning = !!turning;
    gtk_widget_queue_draw(canvas);
}

void cp_crop_canvas_set_line(GtkWidget *canvas, gboolean shown, double x1, double y1, double x2, double y2) {
    g_return_if_fail(CP_IS_CROP_CANVAS(canvas));
    CpCropCanvas *self = CP_CROP_CANVAS(canvas);
    self->has_line = shown;
    graphene_point_init(&self->line_from, x1, y1);
    graphene_point_init(&self->line_to, x2, y2);
    gtk_widget_queue_draw(canvas);
}

/* MARK: GtkWidget */

static void cp_crop_canvas_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                   int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)widget; (void)orientation; (void)for_size; (void)minimum_baseline; (void)natural_baseline;
    *minimum = 0;
    *natural = 0;
}

static void cp_crop_canvas_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    (void)baseline;
    CpCropCanvas *self = CP_CROP_CANVAS(widget);
    if (width == self->allocated_width && height == self->allocated_height)
        return;
    self->allocated_width = width;
    self->allocated_height = height;
    g_signal_emit(self, signals[SIGNAL_RESIZED], 0);
}

static void fill(GtkSnapshot *snapshot, const GdkRGBA *color, float x, float y, float width, float height) {
    if (width > 0 && height > 0)
        gtk_snapshot_append_color(snapshot, color, &GRAPHENE_RECT_INIT(x, y, width, height));
}

/* The paintable's pixels as a cairo surface, kept until the paintable changes (NULL when it is
 * not a texture or memory runs short). */
static cairo_surface_t *photo_pixels(CpCropCanvas *self) {
    if (self->pixels != NULL || !GDK_IS_TEXTURE(self->paintable))
        return self->pixels;
    GdkTexture *texture = GDK_TEXTURE(self->paintable);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, gdk_texture_get_width(texture),
                                                          gdk_texture_get_height(texture));
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return NULL;
    }
    /* GDK's default memory layout is cairo's ARGB32 (premultiplied, native-endian). */
    gdk_texture_download(texture, cairo_image_surface_get_data(surface), cairo_image_surface_get_stride(surface));
    cairo_surface_mark_dirty(surface);
    self->pixels = surface;
    return surface;
}

/* While the slider turns the photo, on GTK's software renderer (no GPU), the photo is drawn
 * with cairo at its nearest pixels and hard edges: the renderer's own way (bilinear, edges
 * smoothed through a mask, the texture copied for cairo every frame) took most of each frame.
 * A GPU renderer turns a texture for free, and a photo at rest is drawn the usual way. */
static gboolean draw_quickly(CpCropCanvas *self, GtkSnapshot *snapshot) {
    if (!self->turning || self->angle == 0)
        return FALSE;
    GtkNative *native = gtk_widget_get_native(GTK_WIDGET(self));
    GskRenderer *renderer = native != NULL ? gtk_native_get_renderer(native) : NULL;
    if (renderer == NULL || !GSK_IS_CAIRO_RENDERER(renderer))
        return FALSE;
    cairo_surface_t *pixels = photo_pixels(self);
    if (pixels == NULL)
        return FALSE;
    const graphene_rect_t *p = &self->photo;
    /* The turned photo's bounds, within the widget: cairo draws through a surface that size. */
    graphene_matrix_t turn;
    graphene_matrix_init_rotate(&turn, (float)self->angle, graphene_vec3_z_axis());
    graphene_rect_t local = GRAPHENE_RECT_INIT(-p->size.width / 2, -p->size.height / 2, p->size.width, p->size.height);
    graphene_rect_t bounds, widget = GRAPHENE_RECT_INIT(0, 0, gtk_widget_get_width(GTK_WIDGET(self)),
                                                               gtk_widget_get_height(GTK_WIDGET(self)));
    graphene_matrix_transform_bounds(&turn, &local, &bounds);
    graphene_rect_offset(&bounds, p->origin.x + p->size.width / 2, p->origin.y + p->size.height / 2);
    graphene_rect_round_extents(&bounds, &bounds);
    if (!graphene_rect_intersection(&bounds, &widget, &bounds))
        return TRUE;
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &bounds);
    cairo_translate(cr, p->origin.x + p->size.width / 2, p->origin.y + p->size.height / 2);
    cairo_rotate(cr, self->angle * G_PI / 180);
    cairo_translate(cr, -p->size.width / 2, -p->size.height / 2);
    cairo_rectangle(cr, 0, 0, p->size.width, p->size.height);
    cairo_scale(cr, p->size.width / cairo_image_surface_get_width(pixels),
                p->size.height / cairo_image_surface_get_height(pixels));
    cairo_set_source_surface(cr, pixels, 0, 0);
    /* Nearest pixels only where there are about as many as are drawn: a small photo, enlarged,
     * would turn to blocks. */
    double drawn = p->size.width * gtk_widget_get_scale_factor(GTK_WIDGET(self));
    gboolean enough = cairo_image_surface_get_width(pixels) >= 0.8 * drawn;
    cairo_pattern_set_filter(cairo_get_source(cr), enough ? CAIRO_FILTER_FAST : CAIRO_FILTER_GOOD);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_fill(cr);
    cairo_destroy(cr);
    return TRUE;
}

static void cp_crop_canvas_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    CpCropCanvas *self = CP_CROP_CANVAS(widget);
    if (self->paintable == NULL || self->photo.size.width <= 0 || self->photo.size.height <= 0)
        return;
    const graphene_rect_t *p = &self->photo, *f = &self->frame;
    /* The photo, turned about its centre by the straightening (the frame stays level). */
    if (!draw_quickly(self, snapshot)) {
        gtk_snapshot_save(snapshot);
        gtk_snapshot_translate(
            snapshot, &GRAPHENE_POINT_INIT(p->origin.x + p->size.width / 2, p->origin.y + p->size.height / 2));
        gtk_snapshot_rotate(snapshot, (float)self->angle);
        gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(-p->size.width / 2, -p->size.height / 2));
        gdk_paintable_snapshot(self->paintable, GDK_SNAPSHOT(snapshot), p->size.width, p->size.height);
        gtk_snapshot_restore(snapshot);
    }

    float left = f->origin.x, top = f->origin.y, right = left + f->size.width, bottom = top + f->size.height;
    float pl = 0, pt = 0, pr = gtk_widget_get_width(widget), pb = gtk_widget_get_height(widget);
    /* All outside the frame, dimmed (a turned photo's corners too): above, below, beside. */
    const GdkRGBA dim = {0, 0, 0, 0.6f};
    fill(snapshot, &dim, pl, pt, pr - pl, top - pt);
    fill(snapshot, &dim, pl, bottom, pr - pl, pb - bottom);
    fill(snapshot, &dim, pl, top, left - pl, bottom - top);
    fill(snapshot, &dim, right, top, pr - right, bottom - top);

    const GdkRGBA line = {1, 1, 1, 0.9f}, faint = {1, 1, 1, 0.45f};
    for (int i = 1; i < self->divisions; i++) {
        fill(snapshot, &faint, left + f->size.width * i / (float)self->divisions, top, 1, f->size.height);
        fill(snapshot, &faint, left, top + f->size.height * i / (float)self->divisions, f->size.width, 1);
    }
    /* The border, and an L at each corner to take hold of. */
    float widths[4] = {1.5f, 1.5f, 1.5f, 1.5f};
    GdkRGBA colors[4] = {line, line, line, line};
    GskRoundedRect border;
    gsk_rounded_rect_init_from_rect(&border, f, 0);
    gtk_snapshot_append_border(snapshot, &border, widths, colors);
    const float arm = 20, thick = 4;
    float xs[2] = {left - thick, right}, ys[2] = {top - thick, bottom};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            float hx = i == 0 ? left - thick : right - arm, vy = j == 0 ? top - thick : bottom - arm;
            fill(snapshot, &line, hx, ys[j], arm + thick, thick);
            fill(snapshot, &line, xs[i], vy, thick, arm + thick);
        }
    }
    /* The line being drawn along what should be level: light on a dark edge, seen on any photo. */
    if (self->has_line) {
        cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, pr, pb));
        cairo_move_to(cr, self->line_from.x, self->line_from.y);
        cairo_line_to(cr, self->line_to.x, self->line_to.y);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
        cairo_set_line_width(cr, 4);
        cairo_stroke_preserve(cr);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.95);
        cairo_set_line_width(cr, 2);
        cairo_stroke(cr);
        cairo_destroy(cr);
    }
}

/* MARK: GObject */

static void cp_crop_canvas_dispose(GObject *object) {
    g_clear_object(&CP_CROP_CANVAS(object)->paintable);
    g_clear_pointer(&CP_CROP_CANVAS(object)->pixels, cairo_surface_destroy);
    G_OBJECT_CLASS(cp_crop_canvas_parent_class)->dispose(object);
}

static void cp_crop_canvas_class_init(CpCropCanvasClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = cp_crop_canvas_dispose;
    widget_class->measure = cp_crop_canvas_measure;
    widget_class->size_allocate = cp_crop_canvas_size_allocate;
    widget_class->snapshot = cp_crop_canvas_snapshot;
    gtk_widget_class_set_css_name(widget_class, "cropcanvas");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
    signals[SIGNAL_RESIZED] = g_signal_new("resized", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 0);
}

static void cp_crop_canvas_init(CpCropCanvas *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    self->allocated_width = -1;
    self->allocated_height = -1;
    gtk_widget_set_focusable(widget, TRUE);
    gtk_widget_set_overflow(widget, GTK_OVERFLOW_HIDDEN);
    gtk_widget_set_hexpand(widget, TRUE);
    gtk_widget_set_vexpand(widget, TRUE);
}
