// Little CMS 2, for turning pictures with a colour profile into sRGB (Debian's liblcms2).
#include <lcms2.h>

/// The XYZ value of an XYZ-type tag (the colourants `cmsSigRedColorantTag` and its kin, the
/// white point): cmsReadTag's untyped pointer as the type Little CMS documents for those tags.
/// NULL when the profile has no such tag. The value belongs to the profile.
static inline const cmsCIEXYZ *cp_cms_read_xyz_tag(cmsHPROFILE profile, cmsTagSignature tag) {
    return (const cmsCIEXYZ *)cmsReadTag(profile, tag);
}
