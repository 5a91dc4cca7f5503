// The hook through which `vp-catalog validate --against` re-runs the
// analysis. DECLARED here, IMPLEMENTED by the analyzer (issue 3): the
// vp-catalog tool calls it only when configured with
// -DVP_CATALOG_REBUILD=ON, which links the analyzer's library.
#pragma once

#include <string>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog {

// The catalog `vp-analyze` would write today for the topology file
// `topology_path` (any format vp-analyze --input reads) and the cluster
// description `cluster_path` (empty: a single node), analysed with the
// options recorded in a catalog's provenance (`options`, the canonical text
// of Provenance::options). Throws vp::InputError on unreadable input and
// vp::UsageError on options it cannot parse.
Catalog rebuild_catalog(const std::string& topology_path, const std::string& cluster_path, const std::string& options);

}  // namespace vp::catalog
