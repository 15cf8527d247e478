// gexiv2, GNOME's GObject wrapper of Exiv2 (libgexiv2-dev), as Shotwell and gThumb use it: what
// cameras and phones write about a photo (EXIF, IPTC, XMP) in every format they write.
#include <gexiv2/gexiv2.h>
