// The four tools as the tests of vp_tools_cli_tests run them: their binaries
// (VP_*_BIN, set by CMake), a run with arguments, and the check of a failed
// run's whole standard error.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "support.hpp"

namespace vp::test {

inline const std::string kAnalyze = VP_ANALYZE_BIN;
inline const std::string kCatalog = VP_CATALOG_BIN;
inline const std::string kPlan = VP_PLAN_BIN;
inline const std::string kSim = VP_SIM_BIN;

// `bin args` through /bin/sh (args are shell words: quote paths).
inline RunResult tool(const std::string& bin, const std::string& args) { return run(shell_quote(bin) + " " + args); }

// Exit `code`, exactly `err` on standard error, nothing on standard output.
inline void check(const RunResult& r, int code, const std::string& err) {
  CHECK(r.exit_code == code);
  CHECK(r.err == err);
  CHECK(r.out.empty());
}

// The bytes of the file `path` ("" when it cannot be read).
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace vp::test
