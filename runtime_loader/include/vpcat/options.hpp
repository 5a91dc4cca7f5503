// Limits applied while verifying an untrusted .vpcat buffer. Every count in a
// file is also bounded by the bytes that hold it, so memory use stays
// proportional to the file size whatever the limits; these options bound the
// file size itself and the quantities bytes cannot bound.
#pragma once

#include <cstdint>

#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

struct VerifyOptions {
  std::uint64_t max_file_size = std::uint64_t{1} << 30;  // bytes (1 GiB)
  std::uint32_t max_sections = 64;                       // section-table entries (at most kMaxSectionCount)
  std::uint32_t max_nodes = 1u << 20;                    // nodes in the cluster (sum of node group counts)
  std::uint32_t max_tree_depth = 32;                     // PCIe parent chain length, component to socket
};

}  // namespace v0_1
}  // namespace vpcat
