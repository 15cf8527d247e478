// One line of text for the rows of the photo list and the cells of the grid, cheap to make
// and to measure.
//
// GTK 4.8's list and grid views make and measure up to 200 rows at once (at the first screen,
// at every sort, at every jump), each with two lines of text. GtkInscription and GtkLabel
// both make a Pango layout when they are made, and ask Pango for the font's metrics when they
// are measured, which shapes a sample paragraph each time: together most of what a row cost.
// This widget is as tall as its font's line, worked out once for each font and kept, and makes
// its layout only when it is first drawn (only rows on screen are). The text is ellipsized
// (at the end unless told), and aligned to its start (the right in a right-to-left
// direction) unless told.
//
// Functions take the widget as a GtkWidget, the type Swift holds it as.
#pragma once
#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CP_TYPE_LINE_TEXT (cp_line_text_get_type())
G_DECLARE_FINAL_TYPE(CpLineText, cp_line_text, CP, LINE_TEXT, GtkWidget)

/// A new line with no text. Its CSS name is "label", so the style's rules for labels apply.
GtkWidget *cp_line_text_new(void);

/// Sets the text shown (NULL: none). The same text again changes nothing.
void cp_line_text_set_text(GtkWidget *line, const char *text);

/// Where the text goes (0 its start, 0.5 the middle, 1 its end) and where it is cut when it
/// does not fit (PANGO_ELLIPSIZE_END unless set).
void cp_line_text_set_layout(GtkWidget *line, float xalign, PangoEllipsizeMode ellipsize);

/// The text shown ("" when none).
const char *cp_line_text_get_text(GtkWidget *line);

G_END_DECLS
