// GTK 4 and libadwaita 1.2 (Debian 12): one module, as libadwaita's headers include GTK's.
#include <gtk/gtk.h>
#include <adwaita.h>
