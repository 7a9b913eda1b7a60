#include "model/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace gds::model {
namespace {

std::atomic<std::int64_t> g_override{0};

std::int64_t defaultBudget() {
  std::int64_t budget = std::int64_t{1} << 32;  // when the system will not say
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) budget = static_cast<std::int64_t>(pages) * page / 2;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    // Half of the address space: the program, its libraries and the other
    // tensors of a run need the rest.
    std::int64_t half = static_cast<std::int64_t>(as.rlim_cur / 2);
    if (half < budget) budget = half;
  }
  return budget;
}

std::int64_t environmentOrDefault() {
  if (const char* env = std::getenv("GDS_MEMORY_BUDGET"); env && *env) {
    auto v = parseByteSize(env, "GDS_MEMORY_BUDGET");
    if (v.ok()) return *v;
    std::fprintf(stderr, "warning: %s; using the default budget\n", v.error().c_str());
  }
  return defaultBudget();
}

}  // namespace

std::int64_t memoryBudget() {
  std::int64_t o = g_override.load(std::memory_order_relaxed);
  if (o > 0) return o;
  static const std::int64_t budget = environmentOrDefault();
  return budget;
}

void setMemoryBudget(std::int64_t bytes) { g_override.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed); }

std::string formatBytes(std::int64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes);
  int unit = -1;
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, kUnits[unit]);
  return buf;
}

Result<std::int64_t> parseByteSize(const std::string& text, const std::string& what) {
  auto bad = [&] {
    return Status::Error(what + " expects a size in bytes such as 2000000000, 512M or 2G, got '" + text + "'");
  };
  size_t i = 0;
  std::int64_t v = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text[i] - '0', &v)) return bad();
    ++i;
  }
  if (i == 0) return bad();
  std::int64_t scale = 1;
  if (i < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
      case 'K': scale = std::int64_t{1} << 10; break;
      case 'M': scale = std::int64_t{1} << 20; break;
      case 'G': scale = std::int64_t{1} << 30; break;
      case 'T': scale = std::int64_t{1} << 40; break;
      default: return bad();
    }
    ++i;
    if (i < text.size() && (text[i] == 'B' || text[i] == 'b')) ++i;
    if (i != text.size()) return bad();
  }
  if (__builtin_mul_overflow(v, scale, &v) || v <= 0) return bad();
  return v;
}

Status checkBytes(std::int64_t bytes, const std::string& what) {
  const std::int64_t budget = memoryBudget();
  if (bytes < 0)
    return Status::Error(what + ": the size overflows 64 bits (more than the memory budget of " +
                         formatBytes(budget) + ")");
  if (bytes > budget)
    return Status::Error(what + ": " + formatBytes(bytes) + " exceed the memory budget of " + formatBytes(budget) +
                         " (set GDS_MEMORY_BUDGET to change it)");
  return Status::Ok();
}

Status checkAllocation(std::int64_t elements, std::int64_t element_size, const std::string& what) {
  std::int64_t bytes = -1;
  if (elements >= 0 && element_size >= 0 && __builtin_mul_overflow(elements, element_size, &bytes)) bytes = -1;
  const std::int64_t budget = memoryBudget();
  if (bytes < 0)
    return Status::Error(what + ": " + (elements < 0 ? std::string("the element count overflows 64 bits")
                                                     : std::to_string(elements) + " elements overflow 64 bits in bytes") +
                         " (memory budget " + formatBytes(budget) + ")");
  if (bytes > budget)
    return Status::Error(what + ": " + std::to_string(elements) + " elements (" + formatBytes(bytes) +
                         ") exceed the memory budget of " + formatBytes(budget) + " (set GDS_MEMORY_BUDGET to change it)");
  return Status::Ok();
}

Result<std::int64_t> checkedElements(const std::int64_t* dims, std::size_t rank, std::int64_t element_size,
                                     const std::string& what) {
  std::int64_t n = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return Status::Error(what + ": dimension " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                           "; expected a size >= 0");
    // An overflowing product is refused even when a later dimension is 0
    // (NumPy refuses such a shape too: "array is too big").
    if (__builtin_mul_overflow(n, dims[i], &n)) {
      n = -1;
      break;
    }
  }
  GDS_RETURN_IF_ERROR(checkAllocation(n, element_size, what));
  return n;
}

}  // namespace gds::model
