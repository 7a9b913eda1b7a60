// Winograd F(4x4, 3x3) (winograd.h). One chunk of output tiles at a time,
// each chunk on one pool thread with its own scratch: transform the chunk's
// input tiles into V [36][tiles][in_c], multiply V_p by U_p for each of the
// 36 positions into M [36][tiles][out_c] (a 6 x 16 register tile of FMAs),
// transform M back into the output. Channels are padded to the vector
// widths in V, M and U (zeros), and masked at the tails of the output. A chunk's V and M are sized to stay in
// the core's L2 between the three steps.
#include "engine/ops/winograd.h"

#include <algorithm>

#include "engine/cpu_features.h"
#include "engine/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_WINOGRAD_AVX2 1
#include <immintrin.h>
#define GDS_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

namespace gds::engine::ops {

namespace {

constexpr std::int64_t kPositions = 36;  // 6 x 6 transformed values per tile
constexpr std::int64_t kMr = 6, kNr = 16;

// G of F(4x4, 3x3) for the points 0, 1, -1, 2, -2 and infinity.
constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                             {0, 0, 1}};

// Bytes of V and M one chunk of tiles may take: with U's panel, about what
// a core's L2 holds (512 KB on Zen 3, 1-2 MB on recent Intel cores).
constexpr std::int64_t kChunkBytes = 320 * 1024;
// V and M of all of an image's tiles when threads split the output channels.
constexpr std::int64_t kSharedBytes = 8 << 20;

#ifdef GDS_WINOGRAD_AVX2

// B^T of F(4x4, 3x3) applied to six vectors (one column or row of a tile):
// rows [4 0 -5 0 1 0], [0 -4 -4 1 1 0], [0 4 -4 -1 1 0], [0 -2 -1 2 1 0],
// [0 2 -1 -2 1 0], [0 4 0 -5 0 1].
GDS_AVX2_FMA inline void inputTransform6(const __m256 d[6], __m256 w[6]) {
  const __m256 two = _mm256_set1_ps(2.0f), four = _mm256_set1_ps(4.0f), five = _mm256_set1_ps(5.0f);
  w[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  w[1] = _mm256_fnmadd_ps(four, _mm256_add_ps(d[1], d[2]), _mm256_add_ps(d[3], d[4]));
  w[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(d[1], d[2]), _mm256_sub_ps(d[4], d[3]));
  w[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[4], d[2]));
  w[4] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[1], d[3]), _mm256_sub_ps(d[4], d[2]));
  w[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
}

// A^T: rows [1 1 1 1 1 0], [0 1 -1 2 -2 0], [0 1 1 4 4 0], [0 1 -1 8 -8 1].
GDS_AVX2_FMA inline void outputTransform6(const __m256 m[6], __m256 y[4]) {
  const __m256 a = _mm256_add_ps(m[1], m[2]), b = _mm256_sub_ps(m[1], m[2]);
  const __m256 c = _mm256_add_ps(m[3], m[4]), d = _mm256_sub_ps(m[3], m[4]);
  y[0] = _mm256_add_ps(_mm256_add_ps(m[0], a), c);
  y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), d, b);
  y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), c, a);
  y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), d, b), m[5]);
}

// c[r, 0:16] = sum_i a[r, i] * b[i, 0:16] for R rows; a rows lda apart, b a
// packed panel [k][16], c rows ldc apart. Twelve named accumulators: GCC
// keeps an array of them in memory, storing every one each iteration.
template <int R>
GDS_AVX2_FMA void gemmTile(const float* a, std::int64_t lda, const float* b, std::int64_t k, float* c,
                           std::int64_t ldc) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  const float* a0 = a;
  for (std::int64_t i = 0; i < k; ++i, ++a0, b += kNr) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#define GDS_WINOGRAD_ROW(r)                                 \
  if constexpr (R > r) {                                    \
    const __m256 av = _mm256_broadcast_ss(a0 + r * lda);    \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);             \
    c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);             \
  }
    GDS_WINOGRAD_ROW(0) GDS_WINOGRAD_ROW(1) GDS_WINOGRAD_ROW(2) GDS_WINOGRAD_ROW(3) GDS_WINOGRAD_ROW(4)
    GDS_WINOGRAD_ROW(5)
#undef GDS_WINOGRAD_ROW
  }
  const __m256 rows[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * ldc, rows[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, rows[r][1]);
  }
}

GDS_AVX2_FMA void gemmRows(std::int64_t rows, const float* a, std::int64_t lda, const float* b, std::int64_t k,
                           float* c, std::int64_t ldc) {
  std::int64_t r = 0;
  for (; r + kMr <= rows; r += kMr) gemmTile<kMr>(a + r * lda, lda, b, k, c + r * ldc, ldc);
  switch (rows - r) {
    case 5: gemmTile<5>(a + r * lda, lda, b, k, c + r * ldc, ldc); break;
    case 4: gemmTile<4>(a + r * lda, lda, b, k, c + r * ldc, ldc); break;
    case 3: gemmTile<3>(a + r * lda, lda, b, k, c + r * ldc, ldc); break;
    case 2: gemmTile<2>(a + r * lda, lda, b, k, c + r * ldc, ldc); break;
    case 1: gemmTile<1>(a + r * lda, lda, b, k, c + r * ldc, ldc); break;
    default: break;
  }
}

// Lanes [0, n) of 8 (n < 8) for masked loads and stores at a channel tail.
GDS_AVX2_FMA inline __m256i laneMask(std::int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// One chunk of tiles [t0, t0 + count) (numbered over images, rows, columns).
// Channels are padded with zeros to in_cp (a multiple of 8) in V and
// out_cp (of 16) in M and U.
struct Chunk {
  const ConvGeometry& s;
  std::int64_t in_cp, out_cp;
  std::int64_t tiles_h, tiles_w;
  std::int64_t t0, count;
  float* v;  // [36][count][in_cp]
  float* m;  // [36][count][out_cp]

  void tileOrigin(std::int64_t t, std::int64_t* n, std::int64_t* y, std::int64_t* x) const {
    const std::int64_t per_image = tiles_h * tiles_w;
    *n = t / per_image;
    *y = (t % per_image) / tiles_w * 4;
    *x = t % tiles_w * 4;
  }

  // Tiles [t_begin, t_end) of the chunk.
  GDS_AVX2_FMA void transformInput(const float* input, std::int64_t t_begin, std::int64_t t_end) const {
    const std::int64_t in_c = s.in_c, stride = count * in_cp;
    const __m256i tail = laneMask(in_c % 8);
    for (std::int64_t t = t_begin; t < t_end; ++t) {
      std::int64_t n, oy, ox;
      tileOrigin(t0 + t, &n, &oy, &ox);
      const std::int64_t iy = oy - s.pad_top, ix = ox - s.pad_left;
      // The tile's 36 input pixels, null where they lie in the padding.
      const float* px[6][6];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
          const std::int64_t y = iy + i, x = ix + j;
          px[i][j] = y >= 0 && y < s.in_h && x >= 0 && x < s.in_w ? input + ((n * s.in_h + y) * s.in_w + x) * in_c
                                                                   : nullptr;
        }
      float* out = v + t * in_cp;
      for (std::int64_t c = 0; c < in_c; c += 8) {
        __m256 col[6], w[6], tmp[6][6];
        const bool whole = c + 8 <= in_c;
        for (int j = 0; j < 6; ++j) {
          for (int i = 0; i < 6; ++i)
            col[i] = !px[i][j] ? _mm256_setzero_ps()
                     : whole   ? _mm256_loadu_ps(px[i][j] + c)
                               : _mm256_maskload_ps(px[i][j] + c, tail);
          inputTransform6(col, w);
          for (int i = 0; i < 6; ++i) tmp[i][j] = w[i];
        }
        for (int i = 0; i < 6; ++i) {
          inputTransform6(tmp[i], w);
          for (int j = 0; j < 6; ++j) _mm256_storeu_ps(out + (i * 6 + j) * stride + c, w[j]);
        }
      }
    }
  }

  // Output channels [c_begin, c_end) (multiples of 16).
  GDS_AVX2_FMA void multiply(const float* u, std::int64_t c_begin, std::int64_t c_end) const {
    for (std::int64_t p = 0; p < kPositions; ++p) {
      const float* a = v + p * count * in_cp;
      float* c = m + p * count * out_cp;
      const float* b = u + p * in_cp * out_cp;
      for (std::int64_t j = c_begin; j < c_end; j += kNr)
        gemmRows(count, a, in_cp, b + j * in_cp, in_cp, c + j, out_cp);
    }
  }

  // Output channels [c_begin, min(c_end, out_c)) (c_begin a multiple of 8).
  GDS_AVX2_FMA void transformOutput(float* output, const float* bias, Activation activation, bool add_to_output,
                                    std::int64_t c_begin, std::int64_t c_end) const {
    const std::int64_t out_c = s.out_c, stride = count * out_cp;
    const __m256 zero = _mm256_setzero_ps(), six = _mm256_set1_ps(6.0f);
    const __m256i tail = laneMask(out_c % 8);
    for (std::int64_t t = 0; t < count; ++t) {
      std::int64_t n, oy, ox;
      tileOrigin(t0 + t, &n, &oy, &ox);
      const int rows = static_cast<int>(std::min<std::int64_t>(4, s.out_h - oy));
      const int cols = static_cast<int>(std::min<std::int64_t>(4, s.out_w - ox));
      const float* in = m + t * out_cp;
      float* base = output + ((n * s.out_h + oy) * s.out_w + ox) * out_c;
      for (std::int64_t c = c_begin; c < std::min(c_end, out_c); c += 8) {
        __m256 col[6], y[4], tmp[4][6];
        for (int j = 0; j < 6; ++j) {
          for (int i = 0; i < 6; ++i) col[i] = _mm256_loadu_ps(in + (i * 6 + j) * stride + c);
          outputTransform6(col, y);
          for (int i = 0; i < 4; ++i) tmp[i][j] = y[i];
        }
        const __m256 b = _mm256_loadu_ps(bias + c);  // padded to out_cp
        const bool whole = c + 8 <= out_c;
        for (int i = 0; i < rows; ++i) {
          outputTransform6(tmp[i], y);
          for (int j = 0; j < cols; ++j) {
            float* o = base + (i * s.out_w + j) * out_c + c;
            __m256 r = _mm256_add_ps(y[j], b);
            if (add_to_output) r = _mm256_add_ps(r, whole ? _mm256_loadu_ps(o) : _mm256_maskload_ps(o, tail));
            if (activation != Activation::kNone) r = _mm256_max_ps(r, zero);
            if (activation == Activation::kRelu6) r = _mm256_min_ps(r, six);
            if (whole) _mm256_storeu_ps(o, r);
            else _mm256_maskstore_ps(o, tail, r);
          }
        }
      }
    }
  }
};

#endif  // GDS_WINOGRAD_AVX2

}  // namespace

std::int64_t WinogradF43::paddedInputChannels(const ConvGeometry& s) { return (s.in_c + 7) / 8 * 8; }
std::int64_t WinogradF43::paddedOutputChannels(const ConvGeometry& s) { return (s.out_c + kNr - 1) / kNr * kNr; }
std::int64_t WinogradF43::transformedFilterSize(const ConvGeometry& s) {
  return kPositions * paddedInputChannels(s) * paddedOutputChannels(s);
}

bool WinogradF43::supports(const ConvGeometry& s, bool depthwise) {
#ifdef GDS_WINOGRAD_AVX2
  return cpuFeatures().avx2 && !depthwise && s.filter_h == 3 && s.filter_w == 3 && s.stride_h == 1 &&
         s.stride_w == 1 && s.dilation_h == 1 && s.dilation_w == 1 && s.in_c > 0 && s.out_c > 0 && s.out_h > 0 &&
         s.out_w > 0 && s.batch > 0;
#else
  (void)s;
  (void)depthwise;
  return false;
#endif
}

std::unique_ptr<WinogradF43> WinogradF43::create(const ConvGeometry& s, const float* filter, const float* bias,
                                                 Activation activation, bool add_to_output, std::int64_t filter_ld) {
  if (!supports(s, false)) return nullptr;
  std::unique_ptr<WinogradF43> w(new WinogradF43());
  w->s_ = s;
  w->activation_ = activation;
  w->add_to_output_ = add_to_output;
  w->tiles_h_ = (s.out_h + 3) / 4;
  w->tiles_w_ = (s.out_w + 3) / 4;
  const std::int64_t in_c = s.in_c, out_c = s.out_c, ld = filter_ld > 0 ? filter_ld : out_c;
  const std::int64_t in_cp = w->in_cp_ = paddedInputChannels(s), out_cp = w->out_cp_ = paddedOutputChannels(s);
  w->bias_.assign(static_cast<std::size_t>(out_cp), 0.0f);
  if (bias) std::copy(bias, bias + out_c, w->bias_.begin());
  // U = G g G^T in double, rounded once; packed [p][out_cp / 16][in_cp][16],
  // zeros in the padding.
  w->u_.assign(static_cast<std::size_t>(kPositions * in_cp * out_cp), 0.0f);
  for (std::int64_t ci = 0; ci < in_c; ++ci)
    for (std::int64_t co = 0; co < out_c; ++co) {
      double g[3][3], gg[6][3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) g[a][b] = filter[((a * 3 + b) * in_c + ci) * ld + co];
      for (int i = 0; i < 6; ++i)
        for (int b = 0; b < 3; ++b) gg[i][b] = kG[i][0] * g[0][b] + kG[i][1] * g[1][b] + kG[i][2] * g[2][b];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
          const double value = gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2];
          const std::int64_t p = i * 6 + j;
          w->u_[static_cast<std::size_t>(p * in_cp * out_cp + (co / kNr) * in_cp * kNr + ci * kNr + co % kNr)] =
              static_cast<float>(value);
        }
    }
  return w;
}

void WinogradF43::run(const float* input, float* output, const ThreadPool& pool) const {
#ifdef GDS_WINOGRAD_AVX2
  const std::int64_t tiles = s_.batch * tiles_h_ * tiles_w_;
  const std::int64_t tile_bytes = kPositions * (in_cp_ + out_cp_) * static_cast<std::int64_t>(sizeof(float));
  // Tiles per chunk: what fits kChunkBytes, but at least four register
  // tiles (every chunk reads all of U: with many channels U is the larger
  // part), a whole number of register tiles, and one chunk per thread.
  std::int64_t per_chunk = std::max<std::int64_t>(4 * kMr, kChunkBytes / tile_bytes) / kMr * kMr;
  const std::int64_t threads = std::max(1, pool.numThreads());
  const std::int64_t panels = out_cp_ / kNr;
  // Few tiles and many channels (14x14 and smaller with 256+ channels): U
  // outweighs V and M, and splitting the tiles would have every thread read
  // all of U. There the threads split the output channels instead, each
  // reading its share of U, after the input transform of all tiles.
  if (threads > 1 && panels >= threads && in_cp_ * out_cp_ > tiles * (in_cp_ + out_cp_) &&
      tiles * tile_bytes <= kSharedBytes) {
    thread_local std::vector<float> shared;  // the calling thread's, read by the workers during the call
    const std::size_t need = static_cast<std::size_t>(kPositions * tiles * (in_cp_ + out_cp_));
    if (shared.size() < need) shared.resize(need);
    float* v = shared.data();
    const Chunk all{s_, in_cp_, out_cp_, tiles_h_, tiles_w_, 0, tiles, v, v + kPositions * tiles * in_cp_};
    pool.parallelFor(tiles, 1e6, [&](std::int64_t t0, std::int64_t t1) { all.transformInput(input, t0, t1); });
    pool.parallelFor(panels, 1e9, [&](std::int64_t p0, std::int64_t p1) {
      all.multiply(u_.data(), p0 * kNr, p1 * kNr);
      all.transformOutput(output, bias_.data(), activation_, add_to_output_, p0 * kNr, p1 * kNr);
    });
    return;
  }
  per_chunk = std::min(per_chunk, (tiles + threads - 1) / threads);
  const std::int64_t chunks = (tiles + per_chunk - 1) / per_chunk;
  auto runChunks = [&](std::int64_t c0, std::int64_t c1) {
    thread_local std::vector<float> scratch;
    for (std::int64_t ci = c0; ci < c1; ++ci) {
      const std::int64_t t0 = ci * per_chunk, count = std::min(per_chunk, tiles - t0);
      const std::size_t need = static_cast<std::size_t>(kPositions * count * (in_cp_ + out_cp_));
      if (scratch.size() < need) scratch.resize(need);
      float* v = scratch.data();
      Chunk chunk{s_, in_cp_, out_cp_, tiles_h_, tiles_w_, t0, count, v, v + kPositions * count * in_cp_};
      chunk.transformInput(input, 0, count);
      chunk.multiply(u_.data(), 0, out_cp_);
      chunk.transformOutput(output, bias_.data(), activation_, add_to_output_, 0, out_cp_);
    }
  };
  if (chunks == 1) runChunks(0, 1);
  else pool.parallelFor(chunks, 1e9, runChunks);
#else
  (void)input;
  (void)output;
  (void)pool;
#endif
}

}  // namespace gds::engine::ops
