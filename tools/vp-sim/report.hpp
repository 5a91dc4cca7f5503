// vp-sim's output (schemas/sim.schema.json for --json): one demand's lower
// bound, the route bound of the direct-route schedulers, and per-scheduler
// results, or a sequence's (drift) totals, means, worst cases and every call,
// or a sweep's (--sizes) every size with nccl-tests' bandwidths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare.hpp"
#include "sizes.hpp"
#include "vp/sim/contention.hpp"

namespace vp::sim_cli {

struct RunInfo {
  std::string catalog;
  std::string demand_file;  // or empty
  std::string workload;     // canonical spec, or empty
  std::size_t gpus = 0, nodes = 0;
  std::vector<std::uint64_t> gpu_map;  // a subset's catalog GPU per rank; empty: the whole cluster
  std::string gpu_list;                // the same as "0-7,16" (vp::cli::subset_gpu_list)
  // --calls FIRST:END: the calls run are FIRST.. of the sequence, and every
  // call number in the report is the sequence's; has_first_call: given.
  std::size_t first_call = 0;
  bool has_first_call = false;
  double latency_us = 0.0, completion_epsilon = 0.0;
  PlanningCharge planning;  // --planning-us
  std::string model = "ideal";  // "ideal" or "contention"
  std::string sync = "rank";    // "rank" or "barrier" (SimOptions::sync)
  std::string eager = "off";    // "off", "detached" or "eager" (SimOptions::eager)
  double eager_bytes = 0.0;     // SimOptions::eager_bytes, stated when eager is not "off"
  std::string contention_file;  // the table read, with model "contention" (--contention or the default)
  sim::ContentionModel contention;
};

std::string report_json(const RunInfo& info, const std::vector<CaseResult>& calls);
std::string report_text(const RunInfo& info, const std::vector<CaseResult>& calls);

// One size of a --sizes sweep: what nccl-tests reports as its size and
// count, and the demand at that size judged.
struct SizeResult {
  NcclAlltoallSize size;
  CaseResult result;
};

std::string report_sizes_json(const RunInfo& info, const SizeSweep& sweep, const std::vector<SizeResult>& rows);
std::string report_sizes_text(const RunInfo& info, const SizeSweep& sweep, const std::vector<SizeResult>& rows);

}  // namespace vp::sim_cli
