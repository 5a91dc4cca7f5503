// The demand file of vp-plan (docs/planner.md "Demand files"):
//
//   {"gpus": n, "bytes": [[...], ...]}          dense, row = source GPU
//   {"gpus": n, "entries": [[src, dst, bytes], ...]}   sparse; repeated pairs add up
//
// Byte counts are whole numbers from 0 to 2^63 (1e6 and 4096.0 are fine,
// 1.5 is not). Every problem is a vp::InputError naming the file and the line
// of the offending value: "D.json:4: bytes[1][2] is not a byte count (-1:
// must be a whole number from 0 to 2^63)".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vpcat/planner/demand.hpp"

namespace vp::plan_cli {

struct DemandFile {
  std::string path;
  std::uint32_t gpus = 0;
  int gpus_line = 1;                          // where "gpus" is
  bool dense = false;
  std::vector<std::uint64_t> bytes;           // dense: gpus x gpus
  std::vector<vpcat::DemandEntry> entries;    // sparse
  std::vector<int> lines;                     // dense: per value; sparse: per entry

  vpcat::Demand view() const;
  // Line of the value the planner names: dense [src][dst], or sparse entry k.
  int line_of(std::uint64_t src, std::uint64_t dst) const;
};

// Read and check a demand file. Throws vp::InputError(path, line, reason).
DemandFile read_demand_file(const std::string& path);

// The same from text (`path` only names it in messages).
DemandFile parse_demand(const std::string& path, const std::string& text);

}  // namespace vp::plan_cli
