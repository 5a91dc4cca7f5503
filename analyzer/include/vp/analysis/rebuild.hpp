// The analysis `vp-catalog validate --against` re-runs: part of the
// analyzer (analyzer/src/analysis/rebuild.cpp, the vp_analysis library,
// which vp-catalog links). In namespace vp::catalog beside the Catalog it
// returns.
#pragma once

#include <stdexcept>
#include <string>

#include "vp/catalog/catalog.hpp"

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

}  // namespace vp::catalog
