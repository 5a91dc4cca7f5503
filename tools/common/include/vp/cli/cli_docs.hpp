// Man pages and shell completion generated from a tool's CLI11 App: one
// source for --help, the man page (section 1), the bash completion and the
// zsh completion. run_main() answers the hidden build-time entry
//
//   vp-plan --vp-generate-cli-docs DIR
//
// by writing DIR/vp-plan.1, DIR/vp-plan.bash and DIR/_vp-plan from the App
// as main() built it (subcommands, options, flags, positionals, groups,
// help texts, defaults, IsMember choices), after run_main() added --version
// and the input limits; CMake runs it after linking each tool
// (cmake/VpCliDocs.cmake) and installs the files.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace vp::cli {

struct Tool;

// One option, flag or positional of a command.
struct OptionDoc {
  std::vector<std::string> names;  // "-h", "--help"; a positional: its name ("FILE")
  bool positional = false;
  bool takes_value = false;  // an option with an argument, not a flag
  bool repeatable = false;   // a positional that takes several words
  bool required = false;
  std::string value_name;  // "TEXT", "UINT", ... (CLI11's type name, before any ':')
  std::string description;
  std::string group;  // "Options", "Input limits", ...
  std::string default_value;
  std::vector<std::string> choices;  // from an IsMember check: "{ideal,contention}"
};

// A command: the tool itself or one of its subcommands (recursively).
struct CommandDoc {
  std::string name;  // "vp-catalog", "inspect"
  std::string description;
  std::vector<OptionDoc> options;  // in the order --help shows them
  std::vector<CommandDoc> subcommands;
  bool subcommand_required = false;
};

CommandDoc describe(const CLI::App& app);

std::string man_page(const Tool& tool, const CommandDoc& doc);
std::string bash_completion(const Tool& tool, const CommandDoc& doc);
std::string zsh_completion(const Tool& tool, const CommandDoc& doc);

// The hidden entry point: writes the three files into `dir` (which must
// exist); throws vp::InputError when a file cannot be written.
void write_cli_docs(const Tool& tool, const CLI::App& app, const std::string& dir);

// The hidden flag run_main() recognises as argv[1].
inline constexpr const char* kGenerateDocsFlag = "--vp-generate-cli-docs";

}  // namespace vp::cli
