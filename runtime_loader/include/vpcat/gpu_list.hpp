// GPU lists ("0-7,16", "gpu01:0-3,gpu02:*", "gpu03:0000:17:00.0"): the one
// grammar of the project. vp-plan, vp-sim and vp-catalog's --gpus, the
// free-GPU file of `vp-catalog place` and the MPI executor's VPCAT_RANK_MAP
// read their lists with it; each resolves NODE its own way (a host name of
// the catalog, or a node index for VPCAT_RANK_MAP).
//
// Grammar: items separated by ','; blanks around an item are ignored. An item
// is one of
//   A, A-B          GPUs by global index (decimal, A <= B, below 2^64)
//   NODE:A, NODE:A-B  GPUs of node NODE by local index
//   NODE:*          every GPU of node NODE
//   NODE:BUS-ID     the GPU of node NODE at that PCI bus id (the loose form
//                   of vpcat/pci_bus_id.hpp: "17:00.0", "0000:17:00.0")
// NODE is what comes before the first ':', a host name (vpcat/hostlist.hpp's
// characters). Anything else is an error naming the item: "a:0-3;b:*" is
// node "a" with the spec "0-3;b:*", which is no range, no '*' and no bus id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vpcat/hostlist.hpp"
#include "vpcat/pci_bus_id.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

enum class GpuListItemKind : std::uint8_t {
  gpus,         // A or A-B: first..last are global GPU indexes
  node_gpus,    // NODE:A or NODE:A-B: first..last are local GPU indexes
  node_all,     // NODE:*
  node_bus_id,  // NODE:BUS-ID
};

enum class GpuListError : std::uint8_t {
  none,
  empty_item,  // "" between two commas, or an empty list
  bad_range,   // no ':' and not A or A-B
  bad_node,    // NODE is empty or holds a character no host name has
  bad_spec,    // after NODE: not A, A-B, * or a bus id
};

struct GpuListItem {
  GpuListItemKind kind = GpuListItemKind::gpus;
  std::string_view text;  // the whole item, blanks trimmed
  std::string_view node;  // NODE (node_* kinds)
  std::string_view spec;  // what follows NODE's ':' (node_* kinds)
  std::uint64_t first = 0, last = 0;  // gpus, node_gpus
  PciBusId bus_id;                    // node_bus_id
};

namespace detail {

inline bool gpu_list_number(std::string_view s, std::uint64_t& v) noexcept {
  if (s.empty()) return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (~std::uint64_t{0} - d) / 10u) return false;
    v = v * 10u + d;
  }
  return true;
}

// "A" or "A-B" with A <= B.
inline bool gpu_list_range(std::string_view s, std::uint64_t& first, std::uint64_t& last) noexcept {
  const std::size_t dash = s.find('-');
  if (dash == std::string_view::npos) return gpu_list_number(s, first) && (last = first, true);
  return gpu_list_number(s.substr(0, dash), first) && gpu_list_number(s.substr(dash + 1), last) && first <= last;
}

inline std::string_view gpu_list_trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace detail

// The next item of `list` from *at (split at ','), blanks trimmed; false
// when the list is used up. An empty list has one empty item.
inline bool next_gpu_list_item(std::string_view list, std::size_t* at, std::string_view* item) noexcept {
  if (*at > list.size()) return false;
  const std::size_t comma = list.find(',', *at);
  const std::size_t end = comma == std::string_view::npos ? list.size() : comma;
  *item = detail::gpu_list_trim(list.substr(*at, end - *at));
  *at = end + 1;
  return true;
}

// Parses one item (as next_gpu_list_item gives it) into *out.
inline GpuListError parse_gpu_list_item(std::string_view item, GpuListItem* out) noexcept {
  item = detail::gpu_list_trim(item);
  GpuListItem r;
  r.text = item;
  if (item.empty()) return GpuListError::empty_item;
  const std::size_t colon = item.find(':');
  if (colon == std::string_view::npos) {
    if (!detail::gpu_list_range(item, r.first, r.last)) return GpuListError::bad_range;
    *out = r;
    return GpuListError::none;
  }
  r.node = item.substr(0, colon);
  r.spec = item.substr(colon + 1);
  if (!is_host_name(r.node)) return GpuListError::bad_node;
  if (r.spec == "*") {
    r.kind = GpuListItemKind::node_all;
  } else if (detail::gpu_list_range(r.spec, r.first, r.last)) {
    r.kind = GpuListItemKind::node_gpus;
  } else if (parse_pci_bus_id(r.spec, r.bus_id, PciBusIdForm::loose)) {
    r.kind = GpuListItemKind::node_bus_id;
  } else {
    return GpuListError::bad_spec;
  }
  *out = r;
  return GpuListError::none;
}

}  // namespace v0_1
}  // namespace vpcat
