#include "ranks.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "catalog.hpp"
#include "rank_map.hpp"
#include "vpcat/hostlist.hpp"
#include "vpcat/catalog_view.hpp"

namespace py = pybind11;

namespace vpcat_python {

namespace {

// The catalog's nodes as the MPI executor builds them (vpcat_mpi.cpp
// catalog_nodes): host names from the node groups, GPUs with device names.
std::vector<vpcat_mpi::CatalogNode> nodes_of(const vpcat::CatalogView& v) {
  std::vector<vpcat_mpi::CatalogNode> nodes(v.node_count());
  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    const vpcat::NodeGroupView group = v.node_group(g);
    std::vector<std::string> names;
    vpcat::HostlistError error;
    const std::string expr(group.names);
    if (!vpcat::expand_hostlist(expr, &names, &error))
      throw py::value_error("catalog: node group " + std::to_string(g) + ": names \"" + expr + "\": " + error.what);
    for (std::uint32_t k = 0; k < group.count && group.first_node + k < nodes.size(); ++k)
      nodes[group.first_node + k].name = k < names.size() ? names[k] : "";
  }
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const vpcat::NodeRef node = v.node(n);
    const vpcat::NodeTypeView t = v.node_type(node.node_type);
    nodes[n].first_gpu = node.first_gpu;
    for (std::uint32_t g = 0; g < t.gpu_count(); ++g) nodes[n].device_names.emplace_back(t.component(t.gpu(g)).device_name());
  }
  return nodes;
}

}  // namespace

void register_ranks(py::module_& m) {
  m.def(
      "_map_ranks",
      [](const Catalog& cat, const std::vector<std::tuple<std::string, std::string, std::string>>& infos,
         std::optional<std::string> rank_map, std::vector<int> world_ranks, int world_size) {
        const vpcat::CatalogView& v = cat.view();
        const std::vector<vpcat_mpi::CatalogNode> nodes = nodes_of(v);
        const std::uint64_t gpu_count = v.gpu_count();
        const int ranks = static_cast<int>(infos.size());
        if (static_cast<std::uint64_t>(ranks) > gpu_count)
          throw py::value_error("the group has " + std::to_string(ranks) + " ranks, the catalog " +
                                std::to_string(gpu_count) + " GPUs (one rank per GPU)");
        std::vector<std::int64_t> gpus;
        std::string error;
        if (rank_map) {
          if (world_ranks.empty()) world_size = 0;  // the group's own form only
          world_ranks.resize(static_cast<std::size_t>(ranks), -1);
          if (!vpcat_mpi::parse_rank_map_for(*rank_map, nodes, gpu_count, world_ranks, world_size, &gpus, &error))
            throw py::value_error("VPCAT_RANK_MAP \"" + *rank_map + "\": " + error);
        } else {
          std::vector<vpcat_mpi::RankInfo> ri;
          for (const auto& [host, var, value] : infos) ri.push_back({host, var, value});
          if (!vpcat_mpi::map_by_host(ri, nodes, &gpus, &error))
            throw py::value_error("mapping ranks by host: " + error);
        }
        if (!vpcat_mpi::check_map(gpus, gpu_count, &error))
          throw py::value_error(std::string(rank_map ? "the explicit rank map: " : "mapping ranks by host: ") + error);
        return gpus;
      },
      py::arg("catalog"), py::arg("infos"), py::arg("rank_map") = py::none(),
      py::arg("world_ranks") = std::vector<int>(), py::arg("world_size") = 0,
      "The catalog GPU of every rank, by the MPI executor's rules (docs/mpi.md): `infos` is one (host, "
      "visible-devices variable, its value) per rank; `rank_map` an explicit map (VPCAT_RANK_MAP) or None "
      "(by host): one entry per rank, or one per rank of the world when `world_ranks` (each rank's rank in "
      "the world) and `world_size` are given. Raises ValueError with the reason.");
  m.def(
      "_format_rank_map", [](const std::vector<std::int64_t>& gpus) { return vpcat_mpi::format_rank_map(gpus); },
      py::arg("gpus"), "A map as VPCAT_RANK_MAP text, runs as ranges: [0, 1, 2, 3, 8, 9] -> \"0-3,8-9\".");
}

}  // namespace vpcat_python
