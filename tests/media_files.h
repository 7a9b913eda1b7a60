// Small image and audio files made in memory, so tests of the decoders and
// of hostile inputs build what they read themselves.
#pragma once

#include <cstdint>
#include <string>

namespace gds::test {

// A gradient image of 1 (gray) or 3 (RGB) channels as a JPEG.
std::string encodeJpeg(int width, int height, int channels, bool progressive, int restart_rows);
// A gradient image as a PNG of libpng's color_type and bit_depth.
std::string encodePng(int width, int height, int color_type, int bit_depth, bool interlaced);
// An RGB PNG of one grey value, written row by row (a 20000x20000 one is
// about 1.2 MB and never exists decoded in memory).
std::string encodeUniformPng(int width, int height);
// A 1x1 RGB PNG (68 bytes) whose header claims width x height pixels.
std::string pngClaimingSize(std::uint32_t width, std::uint32_t height);
// An 8x8 JPEG whose frame header claims width x height (at most 65535).
std::string jpegClaimingSize(std::uint16_t width, std::uint16_t height);

std::string littleEndian(std::uint32_t v, int bytes);
// A 16-bit PCM WAV of `frames` frames, optionally with a LIST chunk before
// the data.
std::string makeWav(int channels, int frames, bool extra_chunk);

}  // namespace gds::test
