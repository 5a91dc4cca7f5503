// The demand file of vp-plan and vp-sim (docs/planner.md "Demand files"):
//
//   {"gpus": n, "bytes": [[...], ...]}                dense, row = source GPU
//   {"gpus": n, "entries": [[src, dst, bytes], ...]}  sparse; repeated pairs add up
//
// Byte counts are whole numbers from 0 to 2^63 (1e6 and 4096.0 are fine,
// 1.5 is not), checked by the planner's own check
// (vpcat/planner/demand_check.hpp), in its words. Read through the
// located-JSON front end and its typed fields (vp/base/json_field.hpp): every
// problem is a vp::InputError at the line and column of the offending value,
// with that line and a caret:
//
//   D.json:4:3: bytes[1][0]: demand entry is not a byte count (-1: bytes must be a finite whole number >= 0)
//     [-1, 0]]}
//      ^
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/base/json_document.hpp"
#include "vpcat/planner/demand.hpp"
#include "vpcat/planner/status.hpp"

namespace vp::cli {

struct DemandFile {
  std::string path;
  std::uint32_t gpus = 0;
  bool dense = false;
  std::vector<std::uint64_t> bytes;         // dense: gpus x gpus
  std::vector<vpcat::DemandEntry> entries;  // sparse

  vpcat::Demand view() const;

  // An InputError at the value of pair (src, dst): dense bytes[src][dst], or
  // the first sparse entry of that pair; at "gpus" when there is none.
  InputError error_at(std::uint64_t src, std::uint64_t dst, const std::string& reason) const;
  // An InputError at "gpus".
  InputError error_at_gpus(const std::string& reason) const;
  // A refusal of the planner as an InputError at the entry its status names
  // (PlanStatus::entry_index() for a sparse demand, else the pair
  // entry_src(), entry_dst()), at "gpus" when it names none; the message
  // without its "demand...: " prefix.
  InputError refusal(const vpcat::PlanStatus& status) const;

  std::shared_ptr<const json::Document> document;  // the text, to locate errors
};

// Read and check a demand file. Throws vp::InputError.
DemandFile read_demand_file(const std::string& path);

// The same from text (`path` only names it in messages).
DemandFile parse_demand(const std::string& path, const std::string& text);

}  // namespace vp::cli
