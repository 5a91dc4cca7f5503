// The analysis's wall-clock budget (vp-analyze --max-analysis-seconds): the
// symmetry computation with its routing check, the local-pattern search and
// the contention check of the patterns found all look at one deadline, and
// give up with AnalysisTimeout once it has passed. A refusal, never a
// different result.
#pragma once

#include <chrono>
#include <string>

#include "vp/base/errors.hpp"

namespace vp {

using AnalysisClock = std::chrono::steady_clock;

// An analysis that passed its deadline: bad input for the tools (exit 2), as
// a file beyond a size limit is.
class AnalysisTimeout : public ToolError {
 public:
  using ToolError::ToolError;
  ExitCode exit_code() const noexcept override { return ExitCode::bad_input; }
};

// Throws AnalysisTimeout("STAGE passed --max-analysis-seconds") after `deadline`.
inline void check_deadline(AnalysisClock::time_point deadline, const std::string& stage) {
  if (deadline != AnalysisClock::time_point::max() && AnalysisClock::now() > deadline)
    throw AnalysisTimeout(stage + " passed --max-analysis-seconds");
}

// The deadline `seconds` from now; time_point::max() for an infinite budget.
inline AnalysisClock::time_point deadline_after(double seconds) {
  auto left = std::chrono::duration<double>(seconds);
  if (!(left < std::chrono::duration<double>(AnalysisClock::time_point::max() - AnalysisClock::now())))
    return AnalysisClock::time_point::max();
  return AnalysisClock::now() + std::chrono::duration_cast<AnalysisClock::duration>(left);
}

}  // namespace vp
