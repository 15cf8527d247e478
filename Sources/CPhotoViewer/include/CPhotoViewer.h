// The viewer's and the editor's widgets, in C (Swift cannot subclass GtkWidget).
#pragma once
#include "crop_canvas.h"
#include "zoom_picture.h"
