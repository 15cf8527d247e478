// Little CMS 2, for turning pictures with a colour profile into sRGB (Debian's liblcms2).
#include <lcms2.h>
