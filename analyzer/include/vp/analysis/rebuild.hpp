// The analysis `vp-catalog validate --against` re-runs: part of the
// analyzer (analyzer/src/analysis/rebuild.cpp, the vp_analysis library,
// which vp-catalog links). In namespace vp::catalog beside the Catalog it
// returns.
#pragma once

#include <stdexcept>
#include <string>

#include "vp/catalog/catalog.hpp"
#include "vp/topology/topology.hpp"

namespace vp::catalog {

// The options recorded in a catalog are not a text vp-analyze writes. The
// caller reports it as an invalid catalog (vp-catalog: exit 3), naming the
// file.
class RecordedOptionsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The catalog `vp-analyze` would write today for the topology file
// `topology_path` (any format vp-analyze --input reads) and the cluster
// description `cluster_path` (empty: none), analysed with the options
// recorded in a catalog's provenance (`options`, the canonical text of
// Provenance::options: pattern budget, --set overrides, --nodes/--fabric
// shortcuts, --format). Throws
//  * RecordedOptionsError when `options` is not a text vp-analyze writes:
//    an unknown key, a repeated key, a value out of vp-analyze's range; the
//    message reads "provenance options \"...\": what (why)";
//  * vp::InputError on an unreadable or malformed topology or cluster file;
//  * vp::UsageError when the recorded options cannot apply to these files
//    (e.g. a --nodes shortcut with a topology that already is a cluster).
Catalog rebuild_catalog(const std::string& topology_path, const std::string& cluster_path, const std::string& options);

// The one node `vp-catalog validate --probe` compares with its node type:
// the topology file `topology_path` read in `format` (auto, hwloc, nccl,
// nvidia-smi, json), or this machine probed with hwloc when the path is
// empty, imported with the capacity overrides recorded in `options` (its
// set.KEY entries; the cluster shortcuts and the recorded format describe
// the catalog's own input, not this one). Canonical and finalized, as the
// analysis sees a node. Throws RecordedOptionsError as rebuild_catalog does,
// vp::InputError for an unreadable or malformed file, a machine without GPU
// ("local machine": no GPU found) or a file that describes several nodes,
// and vp::UsageError for an unknown format.
vp::Topology rebuild_node(const std::string& topology_path, const std::string& format, const std::string& options);

}  // namespace vp::catalog
