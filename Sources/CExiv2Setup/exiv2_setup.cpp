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

// The bytes of `image` as written, in a buffer to free() (its size in `out_size`); NULL if
// they cannot be read back.
static unsigned char *written_bytes(Exiv2::Image &image, size_t *out_size) {
    Exiv2::BasicIo &io = image.io();
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
}

// What `work` returns, or NULL when Exiv2 throws (`message`, if asked for, then says why).
template <typename Work> static unsigned char *guarded(char **message, Work work) {
    if (message != nullptr)
        *message = nullptr;
    try {
        return work();
    } catch (const std::exception &error) {
        if (message != nullptr)
            *message = strdup(error.what());
        return nullptr;
    } catch (...) {
        return nullptr;
    }
}

extern "C" unsigned char *cp_exiv2_exif_after_edit(const unsigned char *data, size_t size, long width, long height,
                                                   size_t *out_size, char **message) {
    *out_size = 0;
    return guarded(message, [&]() -> unsigned char * {
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
        return written_bytes(*image, out_size);
    });
}

extern "C" unsigned char *cp_exiv2_copy_metadata(const unsigned char *original, size_t original_size,
                                                 const unsigned char *edited, size_t edited_size, size_t *out_size,
                                                 char **message) {
    *out_size = 0;
    return guarded(message, [&]() -> unsigned char * {
        auto source = Exiv2::ImageFactory::open(original, static_cast<long>(original_size));
        source->readMetadata();
        auto image = Exiv2::ImageFactory::open(edited, static_cast<long>(edited_size));
        image->readMetadata();
        image->setExifData(source->exifData());
        image->setIptcData(source->iptcData());
        image->setXmpPacket(source->xmpPacket());
        image->setComment(source->comment());
        if (source->iccProfileDefined())
            image->setIccProfile(*source->iccProfile(), false);
        Exiv2::ExifData &exif = image->exifData();
        Exiv2::ExifData::iterator orientation = exif.findKey(Exiv2::ExifKey("Exif.Image.Orientation"));
        if (orientation != exif.end())
            orientation->setValue("1");
        image->writeMetadata();
        return written_bytes(*image, out_size);
    });
}
