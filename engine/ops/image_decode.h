// JPEG / PNG decoding to HWC uint8 (libjpeg, libpng), as TF's DecodeJpeg and
// DecodePng: channels 0 keeps the file's channel count, 1 gives grayscale,
// 3 RGB, 4 RGBA (PNG).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gds::engine::ops {

struct DecodedImage {
  std::int64_t height = 0, width = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // [height, width, channels]
};

// libjpeg's inverse DCT, as DecodeJpeg's dct_method attr names it. TensorFlow
// decodes with INTEGER_FAST (JDCT_IFAST) unless INTEGER_ACCURATE (JDCT_ISLOW)
// is asked for, in DecodeJpeg, DecodeImage and DecodeAndCropJpeg alike.
enum class JpegDct { kIntegerFast, kIntegerAccurate };

// Return "" on success, else what is wrong with the bytes or the request.
std::string decodeJpeg(const std::string& bytes, int channels, DecodedImage* out,
                       JpegDct dct = JpegDct::kIntegerFast);
std::string decodePng(const std::string& bytes, int channels, DecodedImage* out);
// Sniffs the format (JPEG, PNG) from the first bytes; JPEG as TensorFlow's
// DecodeImage does it (INTEGER_FAST) unless told otherwise.
std::string decodeImage(const std::string& bytes, int channels, DecodedImage* out,
                        JpegDct dct = JpegDct::kIntegerFast);

}  // namespace gds::engine::ops
