#include "vp/analysis/progress.hpp"

#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <vector>
#include <cstdlib>

#include "vp/base/messages.hpp"

namespace vp {

namespace {

using Stage = AnalysisProgress::Stage;

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// 42.0 -> "42 s", 125 -> "2 min 5 s", 7300 -> "2 h 1 min".
std::string duration_text(double seconds) {
  auto s = static_cast<std::uint64_t>(std::ceil(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
}

// Long group orders as the summaries print them: "3.64e13019 (13020 digits)".
std::string short_decimal(const std::string& d) {
  if (d.size() <= 24) return d;
  return fmt::format("{}.{}e{} ({} digits)", d[0], d.substr(1, 2), d.size() - 1, d.size());
}

std::string node_type_head(const AnalysisProgress& p) {
  return fmt::format("node type {} ({} of {}, {} GPUs)", p.node_type, p.node_type_index + 1, p.node_types, p.gpus);
}

std::uint64_t work_of(const AnalysisProgress& p) {
  return p.stage == Stage::patterns ? p.search_nodes : p.stage == Stage::contention ? p.checked : 0;
}

// The columns of the terminal `to` writes to, else $COLUMNS, else 80.
int terminal_columns(std::FILE* to) {
  winsize w{};
  if (to != nullptr && ::ioctl(::fileno(to), TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  if (const char* env = std::getenv("COLUMNS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return 80;
}

// `line` cut to fewer than `columns` columns (one per character: a UTF-8
// continuation byte takes none), ending in "..." when cut.
std::string fit(const std::string& line, int columns) {
  const std::size_t room = columns > 4 ? static_cast<std::size_t>(columns - 1) : 3;
  std::size_t shown = 0, cut = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (shown == room - 3) cut = i;
    if (++shown > room) return line.substr(0, cut) + "...";
  }
  return line;
}

}  // namespace

std::string_view to_string(AnalysisProgress::Stage s) {
  switch (s) {
    case Stage::symmetry: return "symmetry";
    case Stage::patterns: return "patterns";
    case Stage::contention: return "contention";
    case Stage::done: return "done";
  }
  return "?";
}

void RateEstimate::reset() { *this = RateEstimate{}; }

void RateEstimate::sample(std::uint64_t work, Clock::time_point t) {
  if (!started_ || work < work_) {
    reset();
    started_ = true, work_ = work, at_ = t;
    return;
  }
  const double dt = std::chrono::duration<double>(t - at_).count();
  if (dt < 1.0) return;  // a sample a second at most: a steady figure
  const double measured = static_cast<double>(work - work_) / dt;
  work_ = work, at_ = t;
  if (rate_ <= 0) {  // the first measured rate (or the first after a stall) is taken as it is
    rate_ = measured;
    samples_ = measured > 0 ? 1 : 0;
    return;
  }
  rate_ += (std::clamp(measured, rate_ / 2, rate_ * 2) - rate_) / 3;
  ++samples_;
}

std::optional<double> RateEstimate::seconds_for(std::uint64_t left) const {
  if (samples_ < 3 || rate_ <= 0) return std::nullopt;
  return static_cast<double>(left) / rate_;
}

namespace {

// The share of the budget a search has used: "3%", "<1%".
std::string budget_used(const AnalysisProgress& p) {
  const double share = 100.0 * static_cast<double>(p.search_nodes) / static_cast<double>(p.search_budget);
  return share < 1 ? "<1%" : fmt::format("{:.0f}%", std::min(share, 100.0));
}

double checked_share(const AnalysisProgress& p) {
  return p.to_check ? 100.0 * static_cast<double>(p.checked) / static_cast<double>(p.to_check) : 100.0;
}

// A part of a bar: its text, the separator before it and its rank (0 is kept
// longest).
struct BarPart {
  std::string text;
  std::string before;
  int rank;
};

std::size_t columns_of(const std::string& s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

std::string ProgressReporter::describe(const AnalysisProgress& p, const ProgressPace& pace, bool verbose) {
  std::string symmetry = verbose ? fmt::format("|Aut| = {}, {} GPU orbits; ", short_decimal(p.group_order), p.gpu_orbits)
                                 : std::string();
  switch (p.stage) {
    case Stage::symmetry:
      return node_type_head(p) + ": computing its automorphism group";
    case Stage::patterns: {
      std::string s = fmt::format("{}: {}local-pattern search: {} search nodes", node_type_head(p), symmetry,
                                  grouped(p.search_nodes));
      if (pace.rate > 0) s += fmt::format(" ({}/s)", grouped(static_cast<std::uint64_t>(pace.rate)));
      s += fmt::format(", {} pattern orbits found", grouped(p.orbits_found));
      // The search's length is not known in advance: no time left, the share
      // of its budget instead.
      if (p.search_budget > 0)
        s += fmt::format(", {} of the budget ({} nodes)", budget_used(p), grouped(p.search_budget));
      return s;
    }
    case Stage::contention: {
      std::string s = fmt::format("{}: contention check of the patterns: {} of {} ({:.0f}%)", node_type_head(p),
                                  grouped(p.checked), grouped(p.to_check), checked_share(p));
      if (pace.rate > 0) s += fmt::format(", {}/s", grouped(static_cast<std::uint64_t>(pace.rate)));
      if (pace.seconds_left) s += fmt::format(", about {} left", duration_text(*pace.seconds_left));
      return s;
    }
    case Stage::done:
      if (verbose)
        return fmt::format("node type {} ({} of {}) done: {} GPUs, |Aut| = {}, {} GPU orbits, {} local pattern orbits "
                           "representing {} patterns{}",
                           p.node_type, p.node_type_index + 1, p.node_types, p.gpus, short_decimal(p.group_order),
                           p.gpu_orbits, grouped(p.orbits_found), short_decimal(p.patterns_represented),
                           p.complete ? "" : " (search stopped at its budget)");
      return fmt::format("node type {} ({} of {}) done: {} GPUs, {} contention-free patterns{}", p.node_type,
                         p.node_type_index + 1, p.node_types, p.gpus, short_decimal(p.patterns_represented),
                         p.complete ? "" : " (search stopped at its budget)");
  }
  return {};
}

std::string ProgressReporter::bar_text(const std::string& prefix, const AnalysisProgress& p, const ProgressPace& pace,
                                       int columns) {
  std::vector<BarPart> parts;
  parts.push_back({prefix, "", 3});
  parts.push_back({fmt::format("{} {}/{}", p.node_type, p.node_type_index + 1, p.node_types), "", 2});
  const std::string rate =
      pace.rate > 0 ? fmt::format("{}/s", grouped(static_cast<std::uint64_t>(pace.rate))) : std::string();
  switch (p.stage) {
    case Stage::symmetry:
      parts.push_back({"symmetry group", ": ", 0});
      break;
    case Stage::patterns:
      parts.push_back({fmt::format("search {} nodes", grouped(p.search_nodes)), ": ", 0});
      if (!rate.empty()) parts.push_back({rate, ", ", 4});
      if (p.search_budget > 0) parts.push_back({budget_used(p) + " of budget", ", ", 1});
      parts.push_back({fmt::format("{} orbits found", grouped(p.orbits_found)), ", ", 5});
      break;
    case Stage::contention:
      parts.push_back({fmt::format("contention {}/{} ({:.0f}%)", grouped(p.checked), grouped(p.to_check),
                                   checked_share(p)),
                       ": ", 0});
      if (!rate.empty()) parts.push_back({rate, ", ", 4});
      if (pace.seconds_left) parts.push_back({"about " + duration_text(*pace.seconds_left) + " left", ", ", 1});
      break;
    case Stage::done:
      return fit(prefix + describe(p, pace), columns);
  }
  const std::size_t room = columns > 4 ? static_cast<std::size_t>(columns - 1) : 3;
  auto join = [&] {
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i)  // the prefix ends in its own separator
      s += (i > 1 ? parts[i].before : "") + parts[i].text;
    return s;
  };
  // Drop the least useful part until the bar fits; the prefix's slot stays,
  // emptied.
  for (;;) {
    std::string s = join();
    if (columns_of(s) <= room) return s;
    auto least = std::max_element(parts.begin(), parts.end(), [](const BarPart& a, const BarPart& b) {
      return a.rank < b.rank;
    });
    if (least->rank == 0) return fit(s, columns);
    if (least == parts.begin()) least->text.clear(), least->rank = -1;
    else parts.erase(least);
  }
}

std::optional<ProgressReporter::Mode> ProgressReporter::choose_mode(std::string_view option, bool quiet,
                                                                    const char* env, bool tty) {
  if (option.empty() && env) option = env;
  Mode chosen;
  if (option.empty() || option == "auto") chosen = tty ? Mode::bar : Mode::lines;
  else if (option == "bar") chosen = Mode::bar;
  else if (option == "lines") chosen = Mode::lines;
  else if (option == "none") chosen = Mode::none;
  else return std::nullopt;
  return quiet ? Mode::none : chosen;
}

ProgressReporter::ProgressReporter(std::FILE* to, std::string prefix, Options options)
    : to_(to), prefix_(std::move(prefix)), opt_(std::move(options)) {
  start_ = now();
}

ProgressReporter::~ProgressReporter() { finish(); }

ProgressReporter::Clock::time_point ProgressReporter::now() const { return opt_.now ? opt_.now() : Clock::now(); }

bool ProgressReporter::showing(Clock::time_point t) const {
  return opt_.mode != Mode::none && t - start_ >= opt_.quiet_start;
}

void ProgressReporter::emit_line(const std::string& text) {
  write_message(to_, (bar_visible_ ? "\r\x1b[K" : "") + prefix_ + text + "\n");
  bar_visible_ = false;
}

void ProgressReporter::draw_bar(const std::string& text) {
  write_message(to_, "\r\x1b[K" + text);
  bar_visible_ = true;
}

ProgressPace ProgressReporter::pace_of(const AnalysisProgress& p, Clock::time_point t) {
  std::string key = fmt::format("{}/{}", p.node_type_index, to_string(p.stage));
  if (key != rate_key_) rate_.reset(), rate_key_ = std::move(key);
  rate_.sample(work_of(p), t);
  ProgressPace pace;
  pace.rate = rate_.per_second();
  if (p.stage == Stage::contention && p.to_check >= p.checked) pace.seconds_left = rate_.seconds_for(p.to_check - p.checked);
  return pace;
}

void ProgressReporter::report(const AnalysisProgress& p) {
  Clock::time_point t = now();
  const ProgressPace pace = pace_of(p, t);
  if (!showing(t)) return;
  if (p.stage == Stage::done) {  // a summary: always a line of its own
    emit_line(describe(p, pace, opt_.verbose));
    shown_once_ = true, last_shown_ = t;
    return;
  }
  // The bar redraws five times a second at most; lines come once an interval.
  auto every = opt_.mode == Mode::bar ? std::chrono::milliseconds(200) : opt_.interval;
  if (shown_once_ && t - last_shown_ < every) return;
  if (opt_.mode == Mode::bar)
    draw_bar(bar_text(prefix_, p, pace, opt_.columns ? opt_.columns() : terminal_columns(to_)));
  else emit_line(describe(p, pace, opt_.verbose));
  shown_once_ = true, last_shown_ = t;
}

void ProgressReporter::note(std::string_view line) {
  Clock::time_point t = now();
  if (!showing(t)) return;
  emit_line(std::string(line));
  shown_once_ = true, last_shown_ = t;
}

void ProgressReporter::finish() {
  if (bar_visible_) {
    write_message(to_, "\r\x1b[K");
    bar_visible_ = false;
  }
}

ProgressFn ProgressReporter::fn() {
  return [this](const AnalysisProgress& p) { report(p); };
}

}  // namespace vp
