// Exempi, the XMP toolkit Debian packages (libexempi-dev): the stars, labels and tags photo
// apps keep in a photo's XMP or in its sidecar.
#include <exempi/xmp.h>
#include <exempi/xmpconsts.h>
