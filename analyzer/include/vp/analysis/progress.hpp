// What a running analysis reports about itself, and how the tools show it.
//
// build_catalog() calls a ProgressFn at the start of each stage of each node
// type and, inside the long stages, every few thousand units of work: the
// local-pattern search every 4,096 search nodes, the contention check every 64
// patterns. A report never changes what the analysis computes; it only
// describes it (the catalog is byte-identical with or without one).
//
// ProgressReporter turns those reports into what a person watching sees on
// standard error: a bar redrawn in place on a terminal, or plain lines at a
// fixed interval when standard error is a file or a pipe (a batch job's log).
// Nothing is shown for an analysis that is over within about a second.
//
// What a report says is what the reporter knows: the stage, the work done and
// its rate. A time left is shown only where the work left is known (the
// contention check), from a smoothed rate (RateEstimate), so that it never
// jumps; the search's length is not known, so it shows how much of its budget
// it has used instead.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace vp {

struct AnalysisProgress {
  enum class Stage {
    symmetry,    // the node type's automorphism group and its routing check
    patterns,    // the local-pattern search
    contention,  // the contention check of the patterns found
    done,        // the node type is analysed (summary fields below are set)
  };
  Stage stage = Stage::symmetry;
  std::string node_type;        // its name
  std::size_t node_type_index = 0;  // 0-based
  std::size_t node_types = 0;       // how many the analysis has
  std::size_t gpus = 0;             // GPUs of the node type
  // Stage::patterns: search nodes so far, the budget (PatternSearchOptions::
  // max_search_nodes) and the pattern orbits found so far.
  std::uint64_t search_nodes = 0;
  std::uint64_t search_budget = 0;
  std::uint64_t orbits_found = 0;
  // Stage::contention: patterns checked so far, of `to_check`.
  std::uint64_t checked = 0;
  std::uint64_t to_check = 0;
  // Set from Stage::patterns on (symmetry is then known) and at Stage::done.
  std::string group_order;   // |Aut| in decimal
  std::size_t gpu_orbits = 0;
  std::string patterns_represented;  // at Stage::done
  bool complete = true;              // at Stage::done: false if the search stopped at its budget
};

using ProgressFn = std::function<void(const AnalysisProgress&)>;

std::string_view to_string(AnalysisProgress::Stage s);  // "symmetry", "patterns", "contention", "done"

// A rate of work per second, smoothed so that a time left drawn from it never
// jumps. Samples closer than a second to the last one counted are ignored;
// each one counted moves the rate a third of the way towards the rate it
// measured, after clamping that to between half and twice the current rate:
// one sample moves the rate by a factor between 0.83 and 1.34 at most, and a
// time left for the same work left by as much (never 10x between redraws).
class RateEstimate {
 public:
  using Clock = std::chrono::steady_clock;
  // `work` done so far at `t`. Work that goes back starts the estimate over.
  void sample(std::uint64_t work, Clock::time_point t);
  void reset();
  // Units of work per second; 0 until a second has been measured.
  double per_second() const { return rate_; }
  // The seconds `left` more units take at the smoothed rate, once three
  // samples (three seconds) have been counted; nullopt before, or at rate 0.
  std::optional<double> seconds_for(std::uint64_t left) const;

 private:
  bool started_ = false;
  std::uint64_t work_ = 0;
  Clock::time_point at_{};
  double rate_ = 0;
  int samples_ = 0;
};

// What a reporter knows of a stage's pace when it shows a report.
struct ProgressPace {
  double rate = 0;                    // units of work per second (0: not known yet)
  std::optional<double> seconds_left;  // only where the work left is known
};

class ProgressReporter {
 public:
  enum class Mode {
    none,   // silent (--quiet, --progress none)
    bar,    // one line redrawn in place (a terminal)
    lines,  // a plain line every `interval` (a log)
  };
  using Clock = std::chrono::steady_clock;

  struct Options {
    Mode mode = Mode::none;
    // Nothing is shown before this much time has passed since construction.
    std::chrono::milliseconds quiet_start{1000};
    // lines: at most one line per interval (node-type summaries excepted).
    // A bar is redrawn five times a second at most.
    std::chrono::milliseconds interval{10000};
    // For tests: the clock (Clock::now by default).
    std::function<Clock::time_point()> now;
    // The width a bar may take, in columns: by default the terminal's
    // (TIOCGWINSZ on the stream), else $COLUMNS, else 80. A bar longer than
    // the width less one is cut, ending in "...": a line that wraps cannot be
    // redrawn in place, and each redraw would leave a stale copy behind.
    std::function<int()> columns;
    // --verbose: the node type's group order and GPU orbits too.
    bool verbose = false;
  };

  // Writes to `to` (stderr for the tools), prefixing every line with `prefix`
  // ("vp-analyze: ").
  ProgressReporter(std::FILE* to, std::string prefix, Options options);
  ~ProgressReporter();  // finish()
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  void report(const AnalysisProgress& p);
  // A line of its own (e.g. "gathered 32 probes"), shown like a stage summary.
  void note(std::string_view line);
  // Clears a bar that is showing. Idempotent.
  void finish();
  // A ProgressFn that forwards to this reporter (which must outlive it).
  ProgressFn fn();

  // The mode a tool uses: `option` is --progress's value (auto, bar, lines,
  // none; empty = auto), `quiet` is --quiet, `env` is VP_PROGRESS's value
  // (nullptr if unset; the default for --progress), `tty` whether standard
  // error is a terminal. auto = bar on a terminal, lines otherwise. Returns
  // nullopt for a value that is none of those four (the caller's usage error).
  static std::optional<Mode> choose_mode(std::string_view option, bool quiet, const char* env, bool tty);

  // The text of one report without prefix or terminal codes (what a line in
  // a log shows, never cut). `pace` is what the reporter measured.
  static std::string describe(const AnalysisProgress& p, const ProgressPace& pace, bool verbose = false);

  // The bar of one report: `prefix` and a compact text of `p`, in fewer than
  // `columns` columns (a line that wraps cannot be redrawn in place). What
  // does not fit goes, least useful first: the patterns found, the prefix,
  // the rate, the time left or budget used, the node type; a stage that still
  // does not fit is cut, ending in "...".
  static std::string bar_text(const std::string& prefix, const AnalysisProgress& p, const ProgressPace& pace,
                              int columns);

 private:
  Clock::time_point now() const;
  bool showing(Clock::time_point t) const;
  void emit_line(const std::string& text);
  void draw_bar(const std::string& text);
  ProgressPace pace_of(const AnalysisProgress& p, Clock::time_point t);

  std::FILE* to_;
  std::string prefix_;
  Options opt_;
  Clock::time_point start_;
  Clock::time_point last_shown_{};
  bool shown_once_ = false;
  bool bar_visible_ = false;
  RateEstimate rate_;
  std::string rate_key_;  // node type + stage the samples belong to
};

}  // namespace vp
