// Fuzz target: the measured-capacity reader, `vp-analyze --measured FILE`
// (nvbandwidth -j JSON or p2pBandwidthLatencyTest text, measured.cpp, through
// load_input() as vp-analyze runs it) on the 8-GPU evaluation node
// (fixtures/platforms/pcie-gen4-2s4sw8g.json), so that accepted figures become
// capacities and go on through the next stages (reader_fuzz.hpp): the
// topology printers, the analysis, the catalog writer and the verifier.
// Seeds in tests/fuzz/corpus/measured/ (the files of fixtures/measured/).
#include <cstddef>
#include <cstdint>
#include <string>

#include "reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vp::AnalysisRequest r;
  r.input = VP_FIXTURES_DIR "/platforms/pcie-gen4-2s4sw8g.json";
  r.format = "json";
  r.measured = {vp::fuzz::write_scratch("measured.txt", data, size)};
  vp::LoadedInput in;
  if (!vp::fuzz::accepts("load_input --measured", [&] { in = vp::load_input(r); })) return 0;
  vp::fuzz::topology_stages(in.topology);
  vp::fuzz::catalog_stages(in);
  return 0;
}
