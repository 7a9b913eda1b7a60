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

// Return "" on success, else what is wrong with the bytes or the request.
std::string decodeJpeg(const std::string& bytes, int channels, DecodedImage* out);
std::string decodePng(const std::string& bytes, int channels, DecodedImage* out);
// Sniffs the format (JPEG, PNG) from the first bytes.
std::string decodeImage(const std::string& bytes, int channels, DecodedImage* out);

}  // namespace gds::engine::ops
