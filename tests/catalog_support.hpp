// Catalogs built by hand for the catalog-format tests (the analyzer that
// computes real ones is another module), and byte-level helpers to damage
// .vpcat files in controlled ways.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"

namespace vp::test {

// Node type "quad": one socket, one host bridge, two PCIe switches, each
// with two GPUs and one NIC (10 components, 18 links, 30 routes), its group
// of order 8 (two GPU swaps and the switch swap), orbits, and three patterns.
catalog::NodeType quad_node_type();

// Node type "duo": one socket, one host bridge, two GPUs and a NIC directly
// below it; group of order 2.
catalog::NodeType duo_node_type();

// Four "quad" nodes on a rail fabric (two rails and a spine).
catalog::Catalog rail_catalog();

// One "quad" node and two "duo" nodes on a single switch.
catalog::Catalog mixed_catalog();

// A single "duo" node without a fabric.
catalog::Catalog single_node_catalog();

// A file taken apart: the header bytes and the sections in table order.
struct Part {
  std::uint32_t type = 0;
  std::uint32_t flags = 0;
  std::vector<std::uint8_t> body;  // the section's bytes, section header included
};
std::vector<Part> split(const std::vector<std::uint8_t>& bytes);
// Put a file together again as the writer would (64-byte aligned sections
// in the given order, sizes, offsets, counts and checksums recomputed),
// keeping the other header fields of `header_from`.
std::vector<std::uint8_t> join(const std::vector<std::uint8_t>& header_from, const std::vector<Part>& parts);

// Recompute every section checksum and the header checksum after editing
// bytes, so that a test reaches the check it targets.
void reseal(std::vector<std::uint8_t>& bytes);

// Offset of the section of `type` (from the section table).
std::uint64_t section_offset(const std::vector<std::uint8_t>& bytes, std::uint32_t type);
// Offset of the section-table entry of `type`.
std::uint64_t entry_offset(const std::vector<std::uint8_t>& bytes, std::uint32_t type);

std::string read_text(const std::string& path);
std::vector<std::uint8_t> read_binary(const std::string& path);
void write_binary(const std::string& path, const std::vector<std::uint8_t>& bytes);

}  // namespace vp::test
