// Reading HDF5 files (Keras .h5 models and the model.weights.h5 inside a
// .keras archive) with the HDF5 library: groups, string attributes and
// numeric datasets, nothing else. Every rank, dimension and string size read
// from the file is checked against the memory budget before anything is
// allocated; links other than hard links, external storage and virtual
// datasets (which would make the library read other files) are refused.
//
// The HDF5 library keeps global state (its error stack, open objects), so
// every call into it here holds one process-wide lock: a file can be read
// from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/status.h"
#include "model/tensor.h"

namespace gds::model::keras {

class Hdf5File {
 public:
  // A file on disk, or a file image in memory; `name` is used in errors.
  static Result<Hdf5File> openFile(const std::string& path);
  static Result<Hdf5File> openImage(const std::string& bytes, const std::string& name);

  Hdf5File(Hdf5File&&) noexcept;
  Hdf5File& operator=(Hdf5File&&) noexcept;
  ~Hdf5File();

  const std::string& name() const { return name_; }

  // Paths are '/'-separated from the root ("" is the root). A component may
  // hold any other character (Keras 2.15 on Windows wrote "layers\dense").
  bool isGroup(const std::string& path) const;
  bool isDataset(const std::string& path) const;
  // The names of a group's members (hard links), sorted.
  Result<std::vector<std::string>> children(const std::string& group) const;

  // A string attribute (fixed or variable length), or nullopt when the
  // object has none of that name. A one-element string array counts too.
  Result<std::optional<std::string>> stringAttr(const std::string& object, const std::string& attr) const;
  // A string array attribute; Keras' chunked form (attr0, attr1, ... when
  // the list outgrew an object header) is joined. nullopt when absent.
  Result<std::optional<std::vector<std::string>>> stringListAttr(const std::string& object,
                                                                 const std::string& attr) const;

  // A numeric dataset: floating point (any width, and bfloat16 stored as
  // 2-byte opaque data marked dtype="bfloat16" as Keras 3 writes it) as
  // DT_FLOAT, integers as DT_INT64.
  Result<HostTensor> readDataset(const std::string& path) const;
  // Its shape without reading it.
  Result<Shape> datasetShape(const std::string& path) const;

 private:
  Hdf5File() = default;
  // H5Fopen of `file_name` with the file access list `fapl` (an hid_t); the
  // lock held. `name` is used in errors.
  static Result<Hdf5File> open(const std::string& file_name, std::int64_t fapl, const std::string& name);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string name_;
};

// True when `header` (the first 8 bytes of a file) is HDF5's signature.
bool looksLikeHdf5(const std::string& header);

}  // namespace gds::model::keras
