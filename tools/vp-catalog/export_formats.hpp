// The formats of `vp-catalog export`, each the text of one file for a
// scheduler, printed from the ExportModel. Each throws catalog::CatalogError
// (invalid, exit 3), naming the catalog and the node, for a host name the
// format cannot hold.
//
//   slurm-topology  Slurm's topology.yaml (export_slurm.cpp)
//   slurm-gres      Slurm's gres.conf lines, per node type (export_slurm.cpp)
//   k8s-labels      a Kueue Topology and per-node labels (export_k8s.cpp)
//   volcano         Volcano HyperNode objects (export_k8s.cpp)
#pragma once

#include <string>

#include "export_model.hpp"

namespace vp::catalog_cli {

std::string slurm_topology(const ExportModel& m);
std::string slurm_gres(const ExportModel& m);
std::string k8s_labels(const ExportModel& m);
std::string volcano_hypernodes(const ExportModel& m);

}  // namespace vp::catalog_cli
