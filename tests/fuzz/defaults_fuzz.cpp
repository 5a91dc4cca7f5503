// Fuzz target: the capacity table reader, `vp-analyze --defaults FILE`
// (CapacityDefaults::load_file through load_input()), on a fixed small
// node: the nvidia-smi fixture nvlink-bridges-2s4g2n.txt or the NCCL fixture
// aws-g5.48xl-topo.xml (by the parity of the input's last byte: a final
// newline picks nvidia-smi, a final "}" NCCL), so that the overrides
// reach the capacities and, through the next stages (reader_fuzz.hpp), the
// catalog writer and the verifier. Seeds in tests/fuzz/corpus/defaults/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vp::AnalysisRequest r;
  r.defaults_file = vp::fuzz::write_scratch("defaults.json", data, size);
  const bool nccl = size > 0 && (data[size - 1] & 1) != 0;
  r.input = nccl ? VP_FIXTURES_DIR "/real/nccl-topo/aws-g5.48xl-topo.xml"
                 : VP_FIXTURES_DIR "/nvidia-smi/nvlink-bridges-2s4g2n.txt";
  r.format = nccl ? "nccl" : "nvidia-smi";
  vp::LoadedInput in;
  if (!vp::fuzz::accepts("load_input --defaults", [&] { in = vp::load_input(r); })) return 0;
  vp::fuzz::topology_stages(in.topology);
  vp::fuzz::catalog_stages(in);
  return 0;
}
