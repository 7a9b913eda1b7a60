// JPEG and PNG decoding with the system libjpeg and libpng.
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <png.h>

#include "engine/ops/image_decode.h"
#include "model/memory_budget.h"

namespace gds::engine::ops {

namespace {

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpegErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// libjpeg reports damaged data as warnings (msg_level -1) and carries on: a
// truncated file (JWRN_JPEG_EOF) decodes with the rest of the image grey,
// corrupt entropy data as garbage. TensorFlow's DecodeJpeg fails on a
// truncated file; here every warning is an error. Trace messages
// (msg_level >= 0) stay silent.
void jpegWarningIsError(j_common_ptr cinfo, int msg_level) {
  if (msg_level < 0) jpegErrorExit(cinfo);
}

// "" when an image of width x height pixels of `channels` bytes fits the
// memory budget; checked from the header, before the pixels are allocated.
std::string checkPixels(std::int64_t width, std::int64_t height, std::int64_t channels) {
  std::int64_t bytes = -1;  // an overflowing product is refused as such
  if (__builtin_mul_overflow(width, height, &bytes) || __builtin_mul_overflow(bytes, channels, &bytes)) bytes = -1;
  const Status s = model::checkAllocation(bytes, 1,
                                          "an image of " + std::to_string(width) + "x" + std::to_string(height) +
                                              " pixels, " + std::to_string(channels) + " channels");
  return s.ok() ? "" : s.message();
}

// Converts interleaved rows from `have` to `want` channels (1, 3 or 4).
void convertChannels(const std::vector<std::uint8_t>& in, int have, int want, std::int64_t pixels,
                     std::vector<std::uint8_t>* out) {
  out->resize(static_cast<size_t>(pixels * want));
  for (std::int64_t p = 0; p < pixels; ++p) {
    const std::uint8_t* s = in.data() + p * have;
    std::uint8_t* d = out->data() + p * want;
    std::uint8_t r, g, b, a = 255;
    if (have <= 2) {
      r = g = b = s[0];
      if (have == 2) a = s[1];
    } else {
      r = s[0];
      g = s[1];
      b = s[2];
      if (have == 4) a = s[3];
    }
    if (want == 1) {
      // ITU-R BT.601 luma, as libjpeg/libpng use for RGB -> gray.
      d[0] = have <= 2 ? r : static_cast<std::uint8_t>((r * 19595 + g * 38470 + b * 7471 + 32768) >> 16);
    } else if (want == 2) {
      d[0] = have <= 2 ? r : static_cast<std::uint8_t>((r * 19595 + g * 38470 + b * 7471 + 32768) >> 16);
      d[1] = a;
    } else {
      d[0] = r;
      d[1] = g;
      d[2] = b;
      if (want == 4) d[3] = a;
    }
  }
}

}  // namespace

std::string decodeJpeg(const std::string& bytes, int channels, DecodedImage* out, JpegDct dct) {
  if (channels != 0 && channels != 1 && channels != 3)
    return "channels must be 0, 1 or 3 for JPEG, got " + std::to_string(channels);
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpegErrorExit;
  err.mgr.emit_message = jpegWarningIsError;
  err.message[0] = 0;
  std::vector<std::uint8_t> rows;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return std::string("invalid JPEG data: ") + err.message;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  // TF's defaults: dct_method INTEGER_FAST (JDCT_IFAST), fancy upscaling on.
  cinfo.dct_method = dct == JpegDct::kIntegerAccurate ? JDCT_ISLOW : JDCT_IFAST;
  if (channels == 1) cinfo.out_color_space = JCS_GRAYSCALE;
  else if (channels == 3 || cinfo.num_components != 1) cinfo.out_color_space = JCS_RGB;
  // Output size from the header alone (progressive files allocate the whole
  // image's coefficients in jpeg_start_decompress).
  jpeg_calc_output_dimensions(&cinfo);
  if (std::string big = checkPixels(cinfo.output_width, cinfo.output_height, cinfo.output_components); !big.empty()) {
    jpeg_destroy_decompress(&cinfo);
    return big;
  }
  jpeg_start_decompress(&cinfo);
  const int comps = cinfo.output_components;
  const std::int64_t w = cinfo.output_width, h = cinfo.output_height;
  rows.resize(static_cast<size_t>(w * h * comps));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = rows.data() + static_cast<size_t>(cinfo.output_scanline) * static_cast<size_t>(w * comps);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  out->height = h;
  out->width = w;
  out->channels = comps;
  out->pixels = std::move(rows);
  return "";
}

namespace {
struct PngReader {
  const std::string* bytes;
  size_t pos;
};
void pngRead(png_structp png, png_bytep data, png_size_t length) {
  auto* r = static_cast<PngReader*>(png_get_io_ptr(png));
  if (r->pos + length > r->bytes->size()) png_error(png, "PNG data is truncated");
  std::memcpy(data, r->bytes->data() + r->pos, length);
  r->pos += length;
}
void pngWarning(png_structp, png_const_charp) {}
void pngErrorFn(png_structp png, png_const_charp msg) {
  auto* text = static_cast<std::string*>(png_get_error_ptr(png));
  *text = msg;
  png_longjmp(png, 1);
}
}  // namespace

std::string decodePng(const std::string& bytes, int channels, DecodedImage* out) {
  if (channels != 0 && channels != 1 && channels != 2 && channels != 3 && channels != 4)
    return "channels must be 0, 1, 2, 3 or 4 for PNG, got " + std::to_string(channels);
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0)
    return "invalid PNG data: bad signature";
  std::string error;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, pngErrorFn, pngWarning);
  if (!png) return "libpng could not be initialised";
  png_infop info = png_create_info_struct(png);
  PngReader reader{&bytes, 0};
  std::vector<std::uint8_t> pixels;
  std::vector<png_bytep> row_pointers;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return "invalid PNG data: " + error;
  }
  png_set_read_fn(png, &reader, pngRead);
  png_read_info(png, info);
  // 8-bit output (TF's DecodePng with dtype uint8 scales 16-bit down).
  png_set_strip_16(png);
  png_set_packing(png);
  png_set_palette_to_rgb(png);
  if (png_get_color_type(png, info) == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  png_read_update_info(png, info);
  const std::int64_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  const int have = png_get_channels(png, info);
  const size_t rowbytes = png_get_rowbytes(png, info);
  if (std::string big = checkPixels(w, h, std::max(have, channels)); !big.empty()) {
    png_destroy_read_struct(&png, &info, nullptr);
    return big;
  }
  pixels.resize(rowbytes * static_cast<size_t>(h));
  row_pointers.resize(static_cast<size_t>(h));
  for (std::int64_t y = 0; y < h; ++y) row_pointers[y] = pixels.data() + rowbytes * static_cast<size_t>(y);
  png_read_image(png, row_pointers.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  out->height = h;
  out->width = w;
  const int want = channels == 0 ? have : channels;
  out->channels = want;
  if (want == have) out->pixels = std::move(pixels);
  else convertChannels(pixels, have, want, w * h, &out->pixels);
  return "";
}

std::string decodeImage(const std::string& bytes, int channels, DecodedImage* out, JpegDct dct) {
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF && static_cast<unsigned char>(bytes[1]) == 0xD8)
    return decodeJpeg(bytes, channels, out, dct);
  if (bytes.size() >= 8 && bytes.compare(1, 3, "PNG") == 0) return decodePng(bytes, channels, out);
  return "unknown image format (expected JPEG or PNG)";
}

}  // namespace gds::engine::ops
