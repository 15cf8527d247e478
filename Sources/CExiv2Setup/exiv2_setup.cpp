#include "exiv2_setup.h"

#include <cstdlib>
#include <cstring>
#include <exiv2/exiv2.hpp>

extern "C" bool cp_exiv2_enable_bmff(void) {
#ifdef EXV_ENABLE_BMFF
    return Exiv2::enableBMFF(true);
#else
    return false;
#endif
}

extern "C" unsigned char *cp_exiv2_exif_after_edit(const unsigned char *data, size_t size, long width, long height,
                                                   size_t *out_size, char **message) {
    *out_size = 0;
    if (message != nullptr)
        *message = nullptr;
    try {
        auto image = Exiv2::ImageFactory::open(data, static_cast<long>(size));
        image->readMetadata();
        Exiv2::ExifData &exif = image->exifData();
        if (exif.empty())
            return nullptr;
        bool changed = false;
        const char *keys[2] = {"Exif.Photo.PixelXDimension", "Exif.Photo.PixelYDimension"};
        const long values[2] = {width, height};
        for (int i = 0; i < 2; i++) {
            Exiv2::ExifData::iterator found = exif.findKey(Exiv2::ExifKey(keys[i]));
            if (found != exif.end()) {
                found->setValue(std::to_string(values[i]));
                changed = true;
            }
        }
        Exiv2::ExifThumb thumbnail(exif);
        if (!std::string(thumbnail.mimeType()).empty()) {
            thumbnail.erase();
            changed = true;
        }
        // XMP's copies of the same facts, where it has them; otherwise its packet is written
        // back as it was read.
        Exiv2::XmpData &xmp = image->xmpData();
        bool xmpChanged = false;
        const char *xmpKeys[3] = {"Xmp.tiff.Orientation", "Xmp.exif.PixelXDimension", "Xmp.exif.PixelYDimension"};
        const long xmpValues[3] = {1, width, height};
        for (int i = 0; i < 3; i++) {
            Exiv2::XmpData::iterator found = xmp.findKey(Exiv2::XmpKey(xmpKeys[i]));
            if (found != xmp.end()) {
                found->setValue(std::to_string(xmpValues[i]));
                xmpChanged = true;
            }
        }
        if (!changed && !xmpChanged)
            return nullptr;
        image->writeXmpFromPacket(!xmpChanged);
        image->writeMetadata();
        Exiv2::BasicIo &io = image->io();
        if (io.open() != 0)
            return nullptr;
        size_t written = io.size();
        unsigned char *out = static_cast<unsigned char *>(std::malloc(written));
        io.seek(0, Exiv2::BasicIo::beg);
        if (out == nullptr || io.read(out, static_cast<long>(written)) != static_cast<long>(written)) {
            std::free(out);
            io.close();
            return nullptr;
        }
        io.close();
        *out_size = written;
        return out;
    } catch (const std::exception &error) {
        if (message != nullptr)
            *message = strdup(error.what());
        return nullptr;
    } catch (...) {
        return nullptr;
    }
}
