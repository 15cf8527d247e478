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

extern "C" unsigned char *cp_exiv2_raw_metadata_into(const unsigned char *raw, size_t raw_size,
                                                     const unsigned char *edited, size_t edited_size, long width,
                                                     long height, size_t *out_size, char **message) {
    *out_size = 0;
    return guarded(message, [&]() -> unsigned char * {
        auto source = Exiv2::ImageFactory::open(raw, static_cast<long>(raw_size));
        source->readMetadata();
        auto image = Exiv2::ImageFactory::open(edited, static_cast<long>(edited_size));
        image->readMetadata();
        // IFD0's tags that say what the picture is (not how the RAW file lays it out).
        static const char *const described[] = {"Make",      "Model",    "DateTime",         "Artist",
                                                "Copyright", "Software", "ImageDescription", "XPTitle",
                                                "XPComment", "XPAuthor", "XPKeywords",       "XPSubject"};
        // Exposure facts some RAW formats (DNG among them) keep in IFD0, where a JPEG keeps
        // them in its EXIF directory.
        static const char *const exposure[] = {"ExposureTime",     "FNumber",          "ExposureProgram",
                                               "ISOSpeedRatings",  "DateTimeOriginal", "ExposureBiasValue",
                                               "MaxApertureValue", "MeteringMode",     "Flash",
                                               "FocalLength"};
        Exiv2::ExifData exif;
        const Exiv2::ExifData &from = source->exifData();
        for (Exiv2::ExifData::const_iterator datum = from.begin(); datum != from.end(); ++datum) {
            const std::string group = datum->groupName(), tag = datum->tagName();
            if ((group == "Photo" && tag != "MakerNote") || group == "GPSInfo" || group == "Iop") {
                exif.add(*datum);
                continue;
            }
            if (group != "Image")
                continue;
            for (const char *name : described)
                if (tag == name)
                    exif.add(*datum);
        }
        for (const char *name : exposure) {
            Exiv2::ExifData::const_iterator there = from.findKey(Exiv2::ExifKey(std::string("Exif.Image.") + name));
            const Exiv2::ExifKey moved(std::string("Exif.Photo.") + name);
            if (there != from.end() && exif.findKey(moved) == exif.end())
                exif.add(moved, &there->value());
        }
        exif["Exif.Image.Orientation"] = static_cast<uint16_t>(1);
        exif["Exif.Photo.PixelXDimension"] = static_cast<uint32_t>(width);
        exif["Exif.Photo.PixelYDimension"] = static_cast<uint32_t>(height);
        image->setExifData(exif);
        image->setIptcData(source->iptcData());
        // A RAW developer's settings (Adobe Camera Raw's, darktable's) would be applied again
        // to the JPEG by those programs; the rest (title, rating, keywords, …) says what the
        // photo is.
        Exiv2::XmpData xmp;
        const Exiv2::XmpData &sourceXmp = source->xmpData();
        for (Exiv2::XmpData::const_iterator datum = sourceXmp.begin(); datum != sourceXmp.end(); ++datum) {
            const std::string prefix = datum->groupName();
            if (prefix == "crs" || prefix == "darktable" || prefix == "tiff" || prefix == "exif")
                continue;
            xmp.add(*datum);
        }
        image->setXmpData(xmp);
        image->writeMetadata();
        return written_bytes(*image, out_size);
    });
}
