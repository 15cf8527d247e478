// The photo editor's canvas: the photo (a paintable) where it is told, and over it the crop's
// frame: all outside the frame dimmed, the frame's border and corner handles, and, while the
// frame is dragged, lines dividing it in thirds (a finer grid while the photo is straightened,
// turned about its centre under the level frame). Where things go is decided in Swift
// (`PhotoEditor`); this widget only draws (GTK 4.8 has no such widget, and Swift cannot
// subclass GtkWidget).
//
// Functions take the widget as a GtkWidget, the type Swift holds it as.
#pragma once
#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CP_TYPE_CROP_CANVAS (cp_crop_canvas_get_type())
G_DECLARE_FINAL_TYPE(CpCropCanvas, cp_crop_canvas, CP, CROP_CANVAS, GtkWidget)

GtkWidget *cp_crop_canvas_new(void);

/// The photo drawn over `x`, `y`, `width`, `height` (widget coordinates; NULL: nothing).
void cp_crop_canvas_set_photo(GtkWidget *canvas, GdkPaintable *paintable, double x, double y, double width,
                              double height);

/// The crop's frame, in widget coordinates, and the lines dividing it (3: thirds; 0: none).
void cp_crop_canvas_set_frame(GtkWidget *canvas, double x, double y, double width, double height, int divisions);

/// The photo drawn turned `degrees` clockwise about its centre (the straightening).
void cp_crop_canvas_set_angle(GtkWidget *canvas, double degrees);

/// Whether the angle is being slid: on GTK's software renderer the turned photo is then drawn
/// at its nearest pixels, with hard edges, to keep up.
void cp_crop_canvas_set_turning(GtkWidget *canvas, gboolean turning);

/// A line from (`x1`, `y1`) to (`x2`, `y2`) drawn over the photo (widget coordinates), or none
/// (`shown` false): the one drawn along what should be level.
void cp_crop_canvas_set_line(GtkWidget *canvas, gboolean shown, double x1, double y1, double x2, double y2);

// Signals:
//   "resized" ()   the widget was given another size (read it with gtk_widget_get_width / height)

G_END_DECLS
