// Small media files made in memory for the tests (see media_files.h).
#include "tests/media_files.h"

#include <jpeglib.h>
#include <png.h>

#include <csetjmp>
#include <cstdlib>
#include <vector>

namespace gds::test {

// A gradient image with `channels` channels.
namespace {

std::vector<std::uint8_t> gradient(int width, int height, int channels) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(width * height * channels));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) px[(y * width + x) * channels + c] = static_cast<std::uint8_t>(x * 16 + y * 8 + c * 60);
  return px;
}

}  // namespace

std::string encodeJpeg(int width, int height, int channels, bool progressive, int restart_rows) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 85, TRUE);
  if (progressive) jpeg_simple_progression(&cinfo);
  cinfo.restart_in_rows = restart_rows;
  jpeg_start_compress(&cinfo, TRUE);
  std::vector<std::uint8_t> px = gradient(width, height, channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = px.data() + static_cast<std::size_t>(cinfo.next_scanline) * width * channels;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  free(buffer);
  return out;
}

namespace {
void appendPng(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}

}  // namespace

std::string encodePng(int width, int height, int color_type, int bit_depth, bool interlaced) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, appendPng, nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  int channels = 1;
  if (color_type == PNG_COLOR_TYPE_PALETTE) {
    png_color palette[16];
    for (int i = 0; i < 16; ++i) palette[i] = {static_cast<png_byte>(i * 16), static_cast<png_byte>(255 - i * 16), 80};
    png_set_PLTE(png, info, palette, 16);
    png_byte alpha[4] = {0, 64, 128, 255};
    png_set_tRNS(png, info, alpha, 4, nullptr);
  } else if (color_type == PNG_COLOR_TYPE_RGB) {
    channels = 3;
  } else if (color_type == PNG_COLOR_TYPE_RGB_ALPHA) {
    channels = 4;
  } else if (color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    channels = 2;
  }
  png_write_info(png, info);
  const int bytes = bit_depth == 16 ? 2 : 1;
  std::vector<std::uint8_t> px = gradient(width, height, channels * bytes);
  if (color_type == PNG_COLOR_TYPE_PALETTE)
    for (auto& v : px) v &= 0x0f;
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) rows[y] = px.data() + static_cast<std::size_t>(y) * width * channels * bytes;
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

std::string littleEndian(std::uint32_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

std::string makeWav(int channels, int frames, bool extra_chunk) {
  auto le = littleEndian;
  std::string data;
  for (int i = 0; i < frames * channels; ++i) data += le(static_cast<std::uint16_t>(i * 977), 2);
  std::string fmt = "fmt " + le(16, 4) + le(1, 2) + le(channels, 2) + le(16000, 4) + le(16000 * 2 * channels, 4) +
                    le(2 * channels, 2) + le(16, 2);
  std::string extra = extra_chunk ? "LIST" + le(6, 4) + "INFOab" : "";
  std::string body = "WAVE" + fmt + extra + "data" + le(static_cast<std::uint32_t>(data.size()), 4) + data;
  return "RIFF" + le(static_cast<std::uint32_t>(body.size()), 4) + body;
}

std::string encodeUniformPng(int width, int height) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, appendPng, nullptr);
  // Rows of one value: no filtering, and deflate's longest matches (level 9
  // finds them at once) give about 1000:1.
  png_set_compression_level(png, 9);
  png_set_filter(png, 0, PNG_FILTER_NONE);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  std::vector<std::uint8_t> row(static_cast<std::size_t>(width) * 3, 128);
  for (int y = 0; y < height; ++y) png_write_row(png, row.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

namespace {
std::uint32_t crc32(const std::string& bytes, std::size_t from, std::size_t count) {
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = from; i < from + count; ++i) {
    c ^= static_cast<unsigned char>(bytes[i]);
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c ^ 0xffffffffu;
}
void putBigEndian(std::string* bytes, std::size_t at, std::uint32_t v, int count) {
  for (int i = 0; i < count; ++i) (*bytes)[at + i] = static_cast<char>((v >> (8 * (count - 1 - i))) & 0xff);
}
}  // namespace

std::string pngClaimingSize(std::uint32_t width, std::uint32_t height) {
  std::string png = encodePng(1, 1, PNG_COLOR_TYPE_RGB, 8, false);
  // Signature (8), IHDR length and type (8), then width and height; the
  // chunk's CRC covers its type and 13 data bytes.
  putBigEndian(&png, 16, width, 4);
  putBigEndian(&png, 20, height, 4);
  putBigEndian(&png, 29, crc32(png, 12, 17), 4);
  return png;
}

std::string jpegClaimingSize(std::uint16_t width, std::uint16_t height) {
  std::string jpeg = encodeJpeg(8, 8, 3, false, 0);
  // SOF0: FF C0, length (2), precision (1), height (2), width (2).
  const std::size_t sof = jpeg.find("\xff\xc0");
  if (sof == std::string::npos) return {};
  putBigEndian(&jpeg, sof + 5, height, 2);
  putBigEndian(&jpeg, sof + 7, width, 2);
  return jpeg;
}

}  // namespace gds::test
