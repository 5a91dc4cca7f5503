// Text names of the catalog's codes, shared by the JSON mirror, the diff and
// the tools: the same words as `vp-analyze topology --json`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog {

// The kinds' names: the runtime's (vpcat/format.hpp), one set for every layer.
using vpcat::parse_component_kind;  // "cpu", "host_bridge", "pcie_switch", "gpu", "nic", "net_switch"
using vpcat::parse_fabric_kind;     // "none", "single_switch", "rail", "leaf_spine"
using vpcat::parse_link_kind;       // "pcie", "inter_socket", "network"
using vpcat::to_string;

// A pattern role as text: "idle", "gpu3", "nic0"; "role 77" for an invalid code.
std::string role_text(std::int32_t role);

// A permutation in cycle notation, fixed points omitted: "(4 5)(6 7)";
// "()" for the identity.
std::string cycles_text(const std::vector<std::uint32_t>& images);
// The inverse of cycles_text() for a permutation of n points; nullopt when
// the text is malformed, names a point >= n, or repeats a point.
std::optional<std::vector<std::uint32_t>> parse_cycles(std::string_view text, std::size_t n);

}  // namespace vp::catalog
