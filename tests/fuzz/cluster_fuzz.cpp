// Fuzz target: the cluster-description reader, `vp-analyze --cluster FILE`
// (load_cluster_spec(), the host-list expander, expand_cluster()), with
// --input the nvidia-smi fixture nvlink-bridges-2s4g2n.txt. The description
// is written beside copies of small node-type files it may name:
//   a.txt  fixtures/nvidia-smi/old-driver-soc-2s4g1n.txt
//   b.json fixtures/platforms/aws-g5-48xl.json
//   c.xml  fixtures/real/nccl-topo/aws-g5.48xl-topo.xml
// An accepted cluster of at most kExpandedComponents components is expanded
// and, when small, taken on to the next stages (reader_fuzz.hpp). Larger
// ones are only read: expanding a cluster the reader allows (up to
// kMaxClusterComponents, about 2 GB) would hit libFuzzer's memory limit, and
// bounding that is the limits' job, not a finding of this target.
// Seeds in tests/fuzz/corpus/cluster/.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "reader_fuzz.hpp"
#include "vp/import/cluster_spec.hpp"
#include "vp/topology/cluster.hpp"

namespace {

constexpr std::uint64_t kExpandedComponents = 20000;

void copy_node_types() {
  namespace fs = std::filesystem;
  const fs::path fixtures = VP_FIXTURES_DIR;
  const std::pair<const char*, const char*> files[] = {{"a.txt", "nvidia-smi/old-driver-soc-2s4g1n.txt"},
                                                       {"b.json", "platforms/aws-g5-48xl.json"},
                                                       {"c.xml", "real/nccl-topo/aws-g5.48xl-topo.xml"}};
  for (const auto& [name, from] : files)
    fs::copy_file(fixtures / from, vp::fuzz::scratch_dir() / name, fs::copy_options::overwrite_existing);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool copied = (copy_node_types(), true);
  (void)copied;
  const std::string path = vp::fuzz::write_scratch("cluster.json", data, size);
  vp::ImportOptions opts;
  vp::Topology input;
  if (!vp::fuzz::accepts("the --input fixture", [&] {
        input = vp::import_topology(VP_FIXTURES_DIR "/nvidia-smi/nvlink-bridges-2s4g2n.txt",
                                    vp::InputFormat::nvidia_smi, opts);
      }))
    vp::fuzz::finding("harness", "the --input fixture does not import");
  vp::LoadedInput in;
  if (!vp::fuzz::accepts("load_cluster_spec", [&] { in.cluster = vp::load_cluster_spec(path, &input, opts); }))
    return 0;
  std::uint64_t components = 0;
  for (const vp::NodeInfo& n : in.cluster.nodes)
    for (const vp::NodeTypeSpec& t : in.cluster.node_types)
      if (t.name == n.type) components += t.topology.components.size();
  if (components > kExpandedComponents) return 0;
  if (!vp::fuzz::accepts("expand_cluster", [&] { in.topology = vp::expand_cluster(in.cluster); }))
    vp::fuzz::finding("expand_cluster", "a cluster the reader accepted cannot be expanded");
  in.origin = path;
  vp::fuzz::topology_stages(in.topology);
  vp::fuzz::catalog_stages(in);
  return 0;
}
