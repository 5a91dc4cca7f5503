#include "vp/cli/near_miss.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "vp/base/errors.hpp"

namespace vp::cli {

namespace {

// Every long option ("--out") and every subcommand name of `app`, its
// subcommands included (run_main lets a subcommand's unknown options fall
// through to its parent).
void collect(const CLI::App& app, std::vector<std::string>& options, std::vector<std::string>& subcommands) {
  for (const CLI::Option* o : app.get_options())
    for (const std::string& name : o->get_lnames()) options.push_back("--" + name);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    subcommands.push_back(sub->get_name());
    collect(*sub, options, subcommands);
  }
}

std::size_t common_prefix(const std::string& a, const std::string& b) {
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first -
                                  a.begin());
}

// The known word nearest to `word`, when it is near enough to be a slip; of
// two as near, the one that starts more like it (--ouput: --out, not --input).
std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& known) {
  std::optional<std::string> best;
  std::size_t best_distance = 0, best_prefix = 0;
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(word, k);
    if (d > 2 || 2 * d >= word.size()) continue;
    const std::size_t prefix = common_prefix(word, k);
    if (!best || d < best_distance || (d == best_distance && prefix > best_prefix))
      best = k, best_distance = d, best_prefix = prefix;
  }
  return best;
}

std::string message(const std::string& word, const char* what, const std::optional<std::string>& meant) {
  return fmt::format("{}: not {}{}", printable_line(word), what,
                     meant ? fmt::format(" (did you mean {}?)", *meant) : std::string());
}

}  // namespace

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: three rows of the dynamic program.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> unknown_word(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> options, subcommands;
  collect(app, options, subcommands);
  // A subcommand is the first word when the tool has some and the word is no option.
  if (!subcommands.empty() && !args.empty() && !args.front().empty() && args.front()[0] != '-' &&
      std::find(subcommands.begin(), subcommands.end(), args.front()) == subcommands.end())
    return message(args.front(), "a subcommand", nearest(args.front(), subcommands));
  for (const std::string& arg : args) {
    if (arg == "--") break;  // what follows is no option
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(options.begin(), options.end(), name) == options.end())
      return message(name, "an option", nearest(name, options));
  }
  return std::nullopt;
}

}  // namespace vp::cli
