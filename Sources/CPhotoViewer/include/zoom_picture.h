// A picture that can be zoomed and panned, for the photo viewer.
//
// GTK 4.8 has no zoomable picture widget, and Swift cannot subclass GtkWidget, so this small
// widget is written in C. It draws one paintable (a texture decoded at some size) stretched
// over the area of the whole image at the current zoom; the decoded size may be smaller than
// the image, and the viewer swaps in a sharper texture when zooming in asks for one.
//
// Zoom is in device pixels per image pixel: 1.0 is 100 %, one image pixel on one screen pixel.
// "Fit" keeps the whole image in view (never enlarged past 100 %) and follows the widget's
// size. Gestures handled here: Ctrl+wheel and pinch zoom around the pointer, double-click
// toggles fit and 100 %, a drag pans a zoomed picture, and a horizontal drag of a picture that
// fits is reported as a swipe.
#pragma once
#include <gtk/gtk.h>
#include <adwaita.h>

G_BEGIN_DECLS

#define CP_TYPE_ZOOM_PICTURE (cp_zoom_picture_get_type())
G_DECLARE_FINAL_TYPE(CpZoomPicture, cp_zoom_picture, CP, ZOOM_PICTURE, GtkWidget)

GtkWidget *cp_zoom_picture_new(void);

/// The paintable drawn over the whole image area (NULL: nothing drawn). Keeps zoom and pan.
void cp_zoom_picture_set_paintable(CpZoomPicture *self, GdkPaintable *paintable);

/// The image's own size in pixels (what 100 % means). A new size goes back to fit.
void cp_zoom_picture_set_image_size(CpZoomPicture *self, int width, int height);

/// Zooms to fit the widget, centred; stays fitted as the widget's size changes.
void cp_zoom_picture_fit(CpZoomPicture *self);
gboolean cp_zoom_picture_is_fit(CpZoomPicture *self);

/// The zoom now (device pixels per image pixel), and the zoom that fits.
double cp_zoom_picture_get_zoom(CpZoomPicture *self);
double cp_zoom_picture_get_fit_zoom(CpZoomPicture *self);

/// Sets the zoom, keeping the image point under (x, y) (widget coordinates) where it is; a
/// negative x zooms around the centre. Clamped to the allowed range.
void cp_zoom_picture_set_zoom(CpZoomPicture *self, double zoom, double x, double y);

/// Multiplies the zoom by `factor` around the centre (keys, buttons).
void cp_zoom_picture_zoom_by(CpZoomPicture *self, double factor);

/// The image point at the widget's centre, in image pixels (where a pan has moved the view).
void cp_zoom_picture_get_center(CpZoomPicture *self, double *x, double *y);

/// Whether the image is larger than the widget at the current zoom (a drag pans it).
gboolean cp_zoom_picture_can_pan(CpZoomPicture *self);

/// The entrance animation's progress, 0 (just appearing, slightly smaller) to 1 (in place);
/// also the "reveal" property, which an animation can drive.
void cp_zoom_picture_set_reveal(CpZoomPicture *self, double progress);

/// Where the whole image is drawn, in the widget's coordinates (it may reach past the widget,
/// which clips it). Once set, the widget draws there rather than where its own zoom says.
void cp_zoom_picture_set_view(GtkWidget *picture, double x, double y, double width, double height);

/// A timed animation (`ms` long) that fades `fade` in and scales `picture` in, from 0 to 1.
/// libadwaita skips it (jumps to the end) when animations are off.
AdwAnimation *cp_zoom_picture_reveal_animation_new(CpZoomPicture *picture, GtkWidget *fade, guint ms);

// Signals:
//   "zoom-changed" ()           the effective zoom changed (also when a fitted picture resizes)
//   "swipe" (gint step)         a horizontal drag of a picture that fits: +1 (dragged to the
//                               left) asks for the next photo, -1 for the previous one
//   "panned" ()                 a drag or the wheel moved a zoomed picture (the centre changed)
//   "resized" ()                the widget was given another size

G_END_DECLS
