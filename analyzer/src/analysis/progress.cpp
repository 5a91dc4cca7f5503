#include "vp/analysis/progress.hpp"

#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
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

std::string ProgressReporter::describe(const AnalysisProgress& p, double rate) {
  switch (p.stage) {
    case Stage::symmetry:
      return node_type_head(p) + ": computing its automorphism group";
    case Stage::patterns: {
      std::string s = fmt::format("{}: |Aut| = {}, {} GPU orbits; local-pattern search: {} search nodes", node_type_head(p),
                                  short_decimal(p.group_order), p.gpu_orbits, grouped(p.search_nodes));
      if (rate > 0) s += fmt::format(" ({}/s)", grouped(static_cast<std::uint64_t>(rate)));
      s += fmt::format(", {} pattern orbits found", grouped(p.orbits_found));
      // The search's length is not known in advance; its budget bounds it.
      if (rate > 0 && p.search_budget > p.search_nodes)
        s += fmt::format("; at most {} left (budget {} nodes)",
                         duration_text(static_cast<double>(p.search_budget - p.search_nodes) / rate),
                         grouped(p.search_budget));
      return s;
    }
    case Stage::contention: {
      double share = p.to_check ? 100.0 * static_cast<double>(p.checked) / static_cast<double>(p.to_check) : 100.0;
      std::string s = fmt::format("{}: contention check of the patterns: {} of {} ({:.0f}%)", node_type_head(p),
                                  grouped(p.checked), grouped(p.to_check), share);
      if (rate > 0 && p.to_check > p.checked)
        s += fmt::format(", about {} left", duration_text(static_cast<double>(p.to_check - p.checked) / rate));
      return s;
    }
    case Stage::done:
      return fmt::format("node type {} ({} of {}) done: {} GPUs, |Aut| = {}, {} GPU orbits, {} local pattern orbits "
                         "representing {} patterns{}",
                         p.node_type, p.node_type_index + 1, p.node_types, p.gpus, short_decimal(p.group_order),
                         p.gpu_orbits, grouped(p.orbits_found), short_decimal(p.patterns_represented),
                         p.complete ? "" : " (search stopped at its budget)");
  }
  return {};
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
  write_message(to_, "\r\x1b[K" + fit(prefix_ + text, opt_.columns ? opt_.columns() : terminal_columns(to_)));
  bar_visible_ = true;
}

double ProgressReporter::rate_of(const AnalysisProgress& p, Clock::time_point t) {
  std::string key = fmt::format("{}/{}", p.node_type_index, to_string(p.stage));
  std::uint64_t work = work_of(p);
  if (key != rate_key_ || work < rate_work_) {
    rate_key_ = std::move(key), rate_work_ = work, rate_at_ = t, rate_ = 0;
    return rate_;
  }
  double dt = std::chrono::duration<double>(t - rate_at_).count();
  if (dt >= 1.0) {  // a new sample every second at most: a steady figure
    rate_ = static_cast<double>(work - rate_work_) / dt;
    rate_work_ = work, rate_at_ = t;
  }
  return rate_;
}

void ProgressReporter::report(const AnalysisProgress& p) {
  Clock::time_point t = now();
  double rate = rate_of(p, t);
  if (!showing(t)) return;
  if (p.stage == Stage::done) {  // a summary: always a line of its own
    emit_line(describe(p, rate));
    shown_once_ = true, last_shown_ = t;
    return;
  }
  // The bar redraws five times a second at most; lines come once an interval.
  auto every = opt_.mode == Mode::bar ? std::chrono::milliseconds(200) : opt_.interval;
  if (shown_once_ && t - last_shown_ < every) return;
  if (opt_.mode == Mode::bar) draw_bar(describe(p, rate));
  else emit_line(describe(p, rate));
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
