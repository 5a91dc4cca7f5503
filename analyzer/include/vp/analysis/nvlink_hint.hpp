// Whether a node type is an NVLink machine, from what its topology keeps.
//
// The model is PCIe only: GPU-to-GPU NVLink (DGX, HGX, SXM boards, the cloud
// instances built on them) is neither imported nor analysed, so such a
// machine is drawn and analysed as if its GPUs talked over PCIe alone, and
// the figures understate it. The importers keep no NVLink (the NCCL importer
// warns when an input lists <nvlink> elements), so this reads the signs that
// remain: a GPU model naming an SXM board or a DGX/HGX system, a GPU PCI id of
// an SXM board, a node type name naming a DGX/HGX or a cloud instance type
// built on NVLink (AWS p4d, p4de, p5, p5e, p5en; Azure ND v2, v4, v5).
#pragma once

#include <string>
#include <string_view>

#include "vp/topology/topology.hpp"

namespace vp {

// The warning for node type `name` (one line, without the tool's prefix), or
// "" when nothing says it has NVLink. `node` is the node type's topology.
std::string nvlink_warning(std::string_view name, const Topology& node);

}  // namespace vp
