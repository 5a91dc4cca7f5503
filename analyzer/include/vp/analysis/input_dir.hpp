// A cluster from one topology file per host (`vp-analyze --input-dir DIR`,
// `vp-analyze gather`): hosts grouped into node types by topology content,
// not by name, and every host that differs from the majority of its group
// reported.
#pragma once

#include <string>
#include <vector>

#include "vp/import/import.hpp"
#include "vp/topology/cluster.hpp"

namespace vp {

struct HostInput {
  std::string host;  // the node's name in the catalog
  std::string path;  // its topology file (hwloc XML, NCCL XML, nvidia-smi text or vp JSON)
};

// The HOST.xml / HOST.json files of `dir`, sorted by host name. Throws
// InputError(dir, 0, ...) when it cannot be read or holds none.
std::vector<HostInput> list_input_dir(const std::string& dir);

// Import every host, group identical topologies into node types ("type1"
// holds the most hosts, ...), and list in *notes the hosts that differ from
// the majority topology of the hosts with the same GPU and CPU models (a
// missing GPU or NIC, a PCIe link at another width or generation). The
// fabric is `fabric` (single_switch when there are several hosts and it is
// none).
ClusterSpec cluster_from_hosts(const std::vector<HostInput>& hosts, const ImportOptions& opts, FabricInfo fabric,
                               std::vector<std::string>* notes);

}  // namespace vp
