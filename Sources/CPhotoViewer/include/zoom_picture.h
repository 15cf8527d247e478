// The viewer's picture: draws one paintable where it is told, for a zoomable photo.
//
// GTK 4.8 has no zoomable picture widget, and Swift cannot subclass GtkWidget, so this widget
// is written in C, and holds only what needs C: the type, its size, and drawing. Everything
// else (the zoom, fit and pan, the gestures, the entrance animation) lives in Swift
// (`ZoomGeometry`, `ZoomingPicture`), which tells the widget where the whole image goes. The
// paintable (a texture decoded at some size, perhaps smaller than the image) is stretched over
// that rectangle, and clipped to the widget.
//
// Functions take the widget as a GtkWidget, the type Swift holds it as.
#pragma once
#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CP_TYPE_ZOOM_PICTURE (cp_zoom_picture_get_type())
G_DECLARE_FINAL_TYPE(CpZoomPicture, cp_zoom_picture, CP, ZOOM_PICTURE, GtkWidget)

GtkWidget *cp_zoom_picture_new(void);

/// The paintable drawn over the whole image's rectangle (NULL: nothing drawn).
void cp_zoom_picture_set_paintable(GtkWidget *picture, GdkPaintable *paintable);

/// Where the whole image is drawn, in the widget's coordinates (it may reach past the widget,
/// which clips it). Nothing is drawn while the rectangle is empty.
void cp_zoom_picture_set_view(GtkWidget *picture, double x, double y, double width, double height);

/// The entrance's progress, 0 (just appearing, slightly smaller) to 1 (in place); also the
/// "reveal" property (a double), which an animation can drive.
void cp_zoom_picture_set_reveal(GtkWidget *picture, double progress);

// Signals:
//   "resized" ()   the widget was given another size (read it with gtk_widget_get_width / height)

G_END_DECLS
