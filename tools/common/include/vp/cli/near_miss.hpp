// What a user meant by an option or a subcommand the tool does not have.
//
// run_main() asks this when CLI11 refuses a command line: a word that names
// no option (--ouput) or no subcommand (valdate) is the error to report,
// with the nearest name the tool has when one is close (at most two edits,
// and fewer than half the word):
//
//   vp-catalog: error: valdate: not a subcommand (did you mean validate?)
//   vp-analyze: error: --ouput: not an option (did you mean --out?)
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace vp::cli {

// The first word of `args` (argv without the program name) that names no
// option of `app` or of its subcommands, or that stands where a subcommand
// is expected and names none, as a message; nullopt when every word is known.
std::optional<std::string> unknown_word(const CLI::App& app, const std::vector<std::string>& args);

// The number of single-character insertions, deletions, substitutions and
// transpositions of neighbours that turn `a` into `b`.
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace vp::cli
