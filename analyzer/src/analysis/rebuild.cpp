// vp::catalog::rebuild_catalog (declared by the catalog library): the
// analysis `vp-analyze` would run today for a topology, a cluster and the
// options recorded in a catalog's provenance.
#include "vp/catalog/rebuild.hpp"

#include "vp/analysis/build_catalog.hpp"

namespace vp::catalog {

Catalog rebuild_catalog(const std::string& topology_path, const std::string& cluster_path, const std::string& options) {
  AnalysisRequest r;
  r.input = topology_path;
  r.cluster = cluster_path;
  apply_options(r, options);
  LoadedInput in = load_input(r);
  return build_catalog(in, r.search, canonical_options(r));
}

}  // namespace vp::catalog
