// TurboJPEG (libturbojpeg0-dev): libjpeg-turbo's own interface, whose lossless transforms
// (the ones jpegtran makes) turn, flip and crop a JPEG by moving its compressed blocks.
#include <turbojpeg.h>
