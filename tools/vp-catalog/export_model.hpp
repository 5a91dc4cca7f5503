// What `vp-catalog export` writes, read once from a catalog: the nodes with
// their host names and their place in the fabric, and per node type the
// GPUs with their socket, PCIe switch group and the path types between them.
// Each format (export_formats.hpp) only prints this model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"
#include "vp/topology/routes.hpp"

namespace vp::catalog_cli {

struct ExportGpu {
  std::uint32_t index = 0;   // local GPU index (File=/dev/nvidiaN, the device plugin's index)
  std::uint32_t socket = 0;  // local index of the CPU socket above it
  std::string switch_group;  // the topmost PCIe switch above it, else its host bridge (or socket)
  std::string pci_bus_id;
  std::string model;         // "NVIDIA L40S"; empty when unknown
};

struct ExportNodeType {
  std::string name;
  std::vector<std::string> hosts;          // its nodes' names, in node order
  std::vector<ExportGpu> gpus;             // by local index
  std::vector<std::vector<PathType>> paths;  // GPU x GPU path types (LOC on the diagonal)
};

struct ExportNode {
  std::string name;
  std::uint32_t type = 0;
  std::string leaf;  // the switch (group) its NICs reach: "switch0", "leafK", "rails"; "" without a fabric
};

struct ExportModel {
  std::string origin;  // the catalog as named on the command line
  catalog::FabricKind fabric = catalog::FabricKind::none;
  std::vector<std::string> leaves;  // distinct leaf names, in order
  bool spine = false;               // a logical spine above two or more leaves ("spine")
  std::vector<ExportNode> nodes;
  std::vector<ExportNodeType> types;
};

// The model of `catalog` (read from `origin`). Throws catalog::CatalogError
// (invalid, exit 3) naming `origin` when the catalog's node names do not
// expand to its node counts (sim::catalog_topology's check).
ExportModel export_model(const catalog::Catalog& catalog, const std::string& origin);

// "gpu[01-04],login" for {"gpu01", ..., "gpu04", "login"}: runs of names that
// differ only in a decimal suffix of one width, as Slurm's hostlist reads them.
std::string compress_hostlist(const std::vector<std::string>& names);

// The error for node `name` that `format` cannot hold (`why`): catalog::CatalogError
// (invalid, exit 3) naming the catalog and the node.
[[noreturn]] void bad_host_name(const ExportModel& m, const std::string& name, const std::string& format,
                                const std::string& why);

}  // namespace vp::catalog_cli
