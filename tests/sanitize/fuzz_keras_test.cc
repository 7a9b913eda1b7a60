// Loop fuzzing of the Keras readers (model/keras) under AddressSanitizer +
// UBSan: the .keras archive (libzip, the JSON config, the HDF5 weights in
// it) and the legacy .h5 model (HDF5 attributes, groups and datasets).
// Seeds are small models written here with libzip and the HDF5 library
// (a Sequential of Dense and BatchNormalization in Keras 3's .keras layout
// and Keras 2's .h5 layout), plus the corpus's small Keras files. Each
// iteration mutates the whole file, or one member of an archive (the config
// or the weights) and zips it again so that the mutation reaches the reader
// behind the zip's checksums; then loads it, summarizes it and compiles it
// for the interpreter. A crash, a sanitizer report or a leak fails; an
// error must name the file. Its ctest runs with the HDF5 library's own leaks
// on corrupt files suppressed (hdf5_leaks.supp; CMakeLists.txt sets the
// environment, which a run by hand needs too beyond about 750 iterations).
#include <gtest/gtest.h>

#include <hdf5.h>
#include <zip.h>

#include <fstream>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/memory_budget.h"
#include "model/summary.h"
#include "tests/sanitize/fuzz_util.h"
#include "tests/test_util.h"

namespace gds::fuzz {
namespace {

// A seed's bytes ("" when unreadable: the seed checks then fail).
void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// An archive of (name, bytes) members, stored uncompressed.
std::string zipMembers(const std::vector<std::pair<std::string, std::string>>& members) {
  const std::string path = test::tempDir() + "/seed.zip";
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!z) return "";
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    const zip_int64_t at = zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE);
    if (at >= 0) zip_set_file_compression(z, static_cast<zip_uint64_t>(at), ZIP_CM_STORE, 0);
  }
  zip_close(z);
  return test::readAll(path);
}

std::vector<std::pair<std::string, std::string>> unzipMembers(const std::string& bytes) {
  std::vector<std::pair<std::string, std::string>> out;
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  zip_t* z = src ? zip_open_from_source(src, ZIP_RDONLY, &error) : nullptr;
  zip_error_fini(&error);
  if (!z) {
    if (src) zip_source_free(src);
    return out;
  }
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0) continue;
    std::string data(static_cast<std::size_t>(st.size), '\0');
    zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
    if (f) {
      zip_fread(f, data.data(), data.size());
      zip_fclose(f);
    }
    out.emplace_back(st.name, std::move(data));
  }
  zip_discard(z);
  return out;
}

// HDF5 writing for the seeds: groups, float datasets, string attributes.
void floatDataset(hid_t file, const std::string& path, const std::vector<hsize_t>& dims, float scale) {
  std::vector<float> values;
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  for (hsize_t i = 0; i < n; ++i) values.push_back(scale * static_cast<float>((i * 37) % 11) / 11.0f - 0.3f);
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t d = H5Dcreate2(file, path.c_str(), H5T_IEEE_F32LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(d);
  H5Pclose(lcpl);
  H5Sclose(space);
}

void stringAttrs(hid_t object, const std::string& name, const std::vector<std::string>& values, bool scalar) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size());
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, width);
  const hsize_t count = values.size();
  hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
  std::string buffer(width * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) buffer.replace(i * width, values[i].size(), values[i]);
  hid_t a = H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, buffer.data());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

const char* kLayers =
    R"([{"class_name": "InputLayer", "config": {"name": "input_layer", "batch_shape": [null, 4], "dtype": "float32"}},
        {"class_name": "Dense", "config": {"name": "dense", "units": 3, "activation": "relu", "use_bias": true}},
        {"class_name": "BatchNormalization", "config": {"name": "batch_normalization", "axis": -1, "epsilon": 0.001}}])";

std::string kerasSeed() {
  const std::string h5 = test::tempDir() + "/model.weights.h5";
  hid_t f = H5Fcreate(h5.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  floatDataset(f, "layers/dense/vars/0", {4, 3}, 1.0f);
  floatDataset(f, "layers/dense/vars/1", {3}, 0.5f);
  for (int k = 0; k < 4; ++k) floatDataset(f, "layers/batch_normalization/vars/" + std::to_string(k), {3}, k == 3 ? 0.1f : 1.0f);
  H5Gclose(H5Gcreate2(f, "vars", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Fclose(f);
  const std::string config = std::string(R"({"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": )") +
                             kLayers + "}}";
  return zipMembers({{"metadata.json", R"({"keras_version": "3.8.0"})"}, {"config.json", config},
                     {"model.weights.h5", test::readAll(h5)}});
}

std::string h5Seed() {
  const std::string path = test::tempDir() + "/seed.h5";
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  std::string layers = kLayers;
  layers.replace(layers.find("batch_shape"), 11, "batch_input_shape");
  stringAttrs(f, "model_config", {std::string(R"({"class_name": "Sequential", "config": {"name": "s", "layers": )") + layers + "}}"}, true);
  stringAttrs(f, "keras_version", {"2.15.0"}, true);
  hid_t g = H5Gcreate2(f, "model_weights", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  stringAttrs(g, "layer_names", {"input_layer", "dense", "batch_normalization"}, false);
  H5Gclose(H5Gcreate2(g, "input_layer", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  hid_t d = H5Gcreate2(g, "dense", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  stringAttrs(d, "weight_names", {"dense/kernel:0", "dense/bias:0"}, false);
  H5Gclose(d);
  hid_t b = H5Gcreate2(g, "batch_normalization", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  stringAttrs(b, "weight_names", {"batch_normalization/gamma:0", "batch_normalization/beta:0",
                                  "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"}, false);
  H5Gclose(b);
  H5Gclose(g);
  floatDataset(f, "model_weights/dense/dense/kernel:0", {4, 3}, 1.0f);
  floatDataset(f, "model_weights/dense/dense/bias:0", {3}, 0.5f);
  for (const char* w : {"gamma:0", "beta:0", "moving_mean:0", "moving_variance:0"})
    floatDataset(f, std::string("model_weights/batch_normalization/batch_normalization/") + w, {3}, 1.0f);
  H5Fclose(f);
  return test::readAll(path);
}

TEST(KerasFuzz, ArchivesAndHdf5Models) {
  // Half of the sanitizer's largest allocation (see fuzz_decode_test.cc).
  model::setMemoryBudget(std::int64_t{256} << 20);
  std::vector<std::string> corpus = {kerasSeed(), h5Seed()};
  for (const auto& s : corpus) ASSERT_GT(s.size(), 100u);
  if (test::sharedAvailable())
    for (const char* f : {"icu_mlp_k3.12.h5", "keypoint_mlp_k3.8.keras", "autompg_normalization_k3.3.keras"})
      corpus.push_back(test::readAll(test::modelPath(std::string("keras/") + f)));
  // The seeds load (the fuzzer starts from valid files).
  const std::string dir = test::tempDir();
  for (std::size_t k = 0; k < 2; ++k) {
    writeBytes(dir + "/check", corpus[k]);
    auto m = model::load(dir + "/check");
    ASSERT_TRUE(m.ok()) << "seed " << k << ": " << m.error();
  }
  auto outcome = forkedLoop("keras", 600, [&](long i) {
    Rng rng = iterationRng(0x4b7, i);
    const std::string& seed = corpus[rng.below(corpus.size())];
    std::string bytes;
    auto members = seed.compare(0, 2, "PK") == 0 ? unzipMembers(seed) : decltype(unzipMembers(seed)){};
    if (!members.empty() && rng.oneIn(2)) {
      // One member mutated (the config's text or the weights' HDF5 bytes),
      // or dropped, then zipped again.
      auto& member = members[rng.below(members.size())];
      if (rng.oneIn(8)) member.second.clear();
      else member.second = mutateBytes({member.second}, rng);
      bytes = zipMembers(members);
    } else {
      bytes = mutateBytes(corpus, rng);
    }
    const std::string path = dir + "/fuzz_" + std::to_string(i) + ".keras";
    writeBytes(path, bytes);
    auto m = model::load(path);
    if (!m.ok()) {
      // The reader runs in a process of its own (model/isolated.h): its
      // sanitizer reports end it with the sanitizer's exit code, and are
      // findings here as in this process.
      if (m.error().find("(exit code 86)") != std::string::npos) {
        std::fprintf(stderr, "the reader process ended with a sanitizer report: %s\n", m.error().c_str());
        std::abort();
      }
      if (m.error().find(path) == std::string::npos) {
        std::fprintf(stderr, "error without the file name: %s\n", m.error().c_str());
        std::abort();
      }
      return;
    }
    auto s = model::summarizeModel(*m);
    if (!s.ok() || s->inputs.empty() || s->outputs.empty()) return;
    auto plan = engine::compileForInference(m->graph, {s->inputs[0].name}, {s->outputs[0].first}, {});
    (void)plan;
  });
  expectClean(outcome);
}

}  // namespace
}  // namespace gds::fuzz
