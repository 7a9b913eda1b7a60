// The memory budget: the most bytes one allocation whose size comes from the
// input (a tensor shape, a Const's contents, an image header, a flag value)
// may take. Sizes are checked against it before anything is allocated, so a
// small file that declares a huge tensor is refused with an error naming what
// asked for it instead of aborting with std::bad_alloc.
//
// Default: half of physical memory, and no more than half of the process's
// address-space limit (ulimit -v) when one is set. GDS_MEMORY_BUDGET (bytes,
// or with a K, M, G or T suffix, powers of 1024) sets it for the CLI and the
// window alike; setMemoryBudget() overrides both (tests, --memory_budget).
#pragma once

#include <cstdint>
#include <string>

#include "model/status.h"

namespace gds::model {

std::int64_t memoryBudget();
// bytes <= 0 restores the default.
void setMemoryBudget(std::int64_t bytes);

// "1.5 GiB", "640 MiB", "12 KiB", "100 bytes": sizes in messages.
std::string formatBytes(std::int64_t bytes);

// Parses "4000000000", "512M", "2G" (K, M, G, T: powers of 1024). Errors name
// `what` (a flag or variable).
Result<std::int64_t> parseByteSize(const std::string& text, const std::string& what);

// Ok when `elements` elements of `element_size` bytes fit the budget, else an
// error "<what>: <n> elements of <k> bytes (<size>) exceed the memory budget
// of <budget> (GDS_MEMORY_BUDGET)". Negative element counts (an overflowing
// shape) are refused too.
Status checkAllocation(std::int64_t elements, std::int64_t element_size, const std::string& what);
// The same for a size in bytes.
Status checkBytes(std::int64_t bytes, const std::string& what);

// The element count of `dims`, or an error naming `what` when a dimension is
// negative or the product overflows int64 or exceeds the budget at
// `element_size` bytes each.
Result<std::int64_t> checkedElements(const std::int64_t* dims, std::size_t rank, std::int64_t element_size,
                                     const std::string& what);

}  // namespace gds::model
