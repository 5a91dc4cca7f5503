// Fuzz target: the `nvidia-smi topo -m` text (nvsmi_import.cpp) importer as
// `vp-analyze --input FILE --format nvidia-smi` runs it (load_input() on the
// bytes written to a scratch file), with format detection on the same bytes;
// an accepted topology goes on to the next stages (reader_fuzz.hpp). Built
// like verify_fuzz.cpp: a corpus replay under ctest (any compiler), a
// libFuzzer binary in the `fuzz` preset; seeds in tests/fuzz/corpus/nvsmi/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view content(reinterpret_cast<const char*>(data), size);
  vp::fuzz::accepts("detect_format", [&] { (void)vp::detect_format("input.txt", content); });
  vp::fuzz::analyze_file(vp::fuzz::write_scratch("input.txt", data, size), "nvidia-smi");
  return 0;
}
