#include "exiv2_setup.h"

#include <exiv2/exiv2.hpp>

extern "C" bool cp_exiv2_enable_bmff(void) {
#ifdef EXV_ENABLE_BMFF
    return Exiv2::enableBMFF(true);
#else
    return false;
#endif
}
