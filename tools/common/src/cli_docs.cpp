#include "vp/cli/cli_docs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>

#include "vp/cli/output.hpp"
#include "vp/cli/run_main.hpp"
#include "vpcat/version.hpp"

namespace vp::cli {

namespace {

// ---- the walk ---------------------------------------------------------------

// "TEXT:{ideal,contention}" -> {"ideal", "contention"}; nothing without braces.
std::vector<std::string> choices_of(const std::string& type_name) {
  std::vector<std::string> out;
  const std::size_t open = type_name.find('{');
  const std::size_t close = type_name.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return out;
  std::string item;
  for (std::size_t i = open + 1; i <= close; ++i) {
    if (type_name[i] == ',' || i == close) {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (type_name[i] != ' ') {
      item += type_name[i];
    }
  }
  return out;
}

OptionDoc describe_option(const CLI::Option& opt) {
  OptionDoc d;
  d.positional = opt.get_positional() && opt.get_lnames().empty() && opt.get_snames().empty();
  if (d.positional) {
    d.names.push_back(opt.get_name(true, false));
  } else {
    for (const std::string& s : opt.get_snames()) d.names.push_back("-" + s);
    for (const std::string& l : opt.get_lnames()) d.names.push_back("--" + l);
  }
  d.takes_value = opt.get_type_size_max() > 0 && opt.get_expected_max() > 0;
  d.repeatable = d.positional && opt.get_items_expected_max() > 1;
  d.required = opt.get_required();
  const std::string type = opt.get_type_name();
  d.value_name = type.substr(0, type.find(':'));
  if (d.value_name.empty() && d.takes_value) d.value_name = "VALUE";
  d.choices = choices_of(type);
  d.description = opt.get_description();
  d.group = opt.get_group();
  d.default_value = opt.get_default_str();
  return d;
}

void add_options(const CLI::App& app, CommandDoc& doc) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    doc.options.push_back(describe_option(*opt));
  }
  // Option groups are nameless subcommands: their options are the command's.
  for (const CLI::App* group : app.get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
    add_options(*group, doc);
}

// ---- text helpers -----------------------------------------------------------

// The text after "vp-plan: " of the App's description.
std::string summary_of(const Tool& tool, const std::string& description) {
  const std::string prefix = std::string(tool.name) + ": ";
  if (description.rfind(prefix, 0) == 0) return description.substr(prefix.size());
  return description;
}

// roff: backslashes escaped, '-' as \- (so that options can be searched and
// copied), a break point (\:) after ',' and '/', a line starting with '.' or
// '\'' protected.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c == '\n') {
      out += "\n.br\n";
    } else if (c == ',' || c == '/') {
      out += c;
      out += "\\:";  // a break point: "moe[:zipf=S,hidden=H,...]" may not fit a line
    } else {
      out += c;
    }
  }
  std::string protected_out;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i <= out.size(); ++i) {
    if (i == out.size() || out[i] == '\n') {
      std::string_view line(out.data() + line_start, i - line_start);
      if (!line.empty() && (line[0] == '.' || line[0] == '\'') && line != ".br") protected_out += "\\&";
      protected_out += line;
      if (i != out.size()) protected_out += '\n';
      line_start = i + 1;
    }
  }
  return protected_out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// An identifier for shell function and state names: vp-catalog -> vp_catalog.
std::string ident(std::string_view s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += sep;
    out += i;
  }
  return out;
}

// ---- man page ---------------------------------------------------------------

void man_options(std::string& out, const CommandDoc& cmd, bool top_level) {
  std::vector<std::string> groups;
  for (const OptionDoc& o : cmd.options)
    if (!o.positional && std::find(groups.begin(), groups.end(), o.group) == groups.end()) groups.push_back(o.group);
  bool first_group = true;
  for (const std::string& group : groups) {
    if (!first_group || group != "Options") {
      if (top_level) {
        out += fmt::format(".SS \"{}\"\n", roff(group));
      } else {
        out += fmt::format(".PP\n\\fI{}:\\fR\n", roff(group));
      }
    }
    first_group = false;
    for (const OptionDoc& o : cmd.options) {
      if (o.positional || o.group != group) continue;
      out += ".TP\n";
      std::vector<std::string> names;
      for (const std::string& n : o.names) names.push_back("\\fB" + roff(n) + "\\fR");
      std::string line = join(names, ", ");
      if (o.takes_value) line += " \\fI" + roff(o.value_name) + "\\fR";
      out += line + "\n";
      std::string text = o.description;
      if (!o.choices.empty()) text += " (one of: " + join(o.choices, ", ") + ")";
      if (!o.default_value.empty() && o.description.find("default") == std::string::npos)
        text += " (default " + o.default_value + ")";
      if (o.required) text += " (required)";
      out += roff(text) + "\n";
    }
  }
}

void man_positionals(std::string& out, const CommandDoc& cmd) {
  for (const OptionDoc& o : cmd.options) {
    if (!o.positional) continue;
    out += ".TP\n\\fI" + roff(o.names.front()) + "\\fR" + (o.repeatable ? "..." : "") + "\n";
    out += roff(o.description + (o.required ? "" : " (optional)")) + "\n";
  }
}

std::string synopsis_args(const CommandDoc& cmd) {
  std::string out = " [\\fIOPTIONS\\fR]";
  for (const OptionDoc& o : cmd.options) {
    if (!o.positional) continue;
    std::string p = "\\fI" + roff(o.names.front()) + "\\fR" + (o.repeatable ? "..." : "");
    out += " " + (o.required ? p : "[" + p + "]");
  }
  return out;
}

void man_command(std::string& out, const std::string& path, const CommandDoc& cmd) {
  out += fmt::format(".SS \"{}\"\n", roff(path));
  out += ".B " + roff(path) + "\n" + synopsis_args(cmd).substr(1) + "\n.PP\n";
  out += roff(cmd.description) + "\n";
  man_positionals(out, cmd);
  man_options(out, cmd, false);
  for (const CommandDoc& sub : cmd.subcommands) man_command(out, path + " " + sub.name, sub);
}

// ---- bash -------------------------------------------------------------------

// The options a command takes: its own, then those of its parents it does not
// redefine (a subcommand may have its own --input beside the tool's).
std::vector<const OptionDoc*> with_own_options(const CommandDoc& cmd, const std::vector<const OptionDoc*>& inherited) {
  std::vector<const OptionDoc*> out;
  for (const OptionDoc& o : cmd.options)
    if (!o.positional) out.push_back(&o);
  const std::size_t own = out.size();
  for (const OptionDoc* parent : inherited) {
    bool redefined = false;
    for (std::size_t i = 0; i < own && !redefined; ++i)
      for (const std::string& n : parent->names)
        redefined = redefined || std::find(out[i]->names.begin(), out[i]->names.end(), n) != out[i]->names.end();
    if (!redefined) out.push_back(parent);
  }
  return out;
}

struct BashState {
  std::string state;  // "root", "root_inspect"
  const CommandDoc* cmd;
  std::vector<const OptionDoc*> options;  // the command's and, through fallthrough, its parents'
};

void bash_states(const CommandDoc& cmd, const std::string& state, std::vector<const OptionDoc*> inherited,
                 std::vector<BashState>& out) {
  inherited = with_own_options(cmd, inherited);
  out.push_back({state, &cmd, inherited});
  // A subcommand takes its own options and those of its parents (run_main
  // sets fallthrough), except the parents' --help and --version.
  std::vector<const OptionDoc*> passed;
  for (const OptionDoc* o : inherited)
    if (std::find(o->names.begin(), o->names.end(), "--help") == o->names.end() &&
        std::find(o->names.begin(), o->names.end(), "--version") == o->names.end())
      passed.push_back(o);
  for (const CommandDoc& sub : cmd.subcommands) bash_states(sub, state + "_" + ident(sub.name), passed, out);
}

// ---- zsh --------------------------------------------------------------------

// Text inside an _arguments spec, itself inside single quotes: ' closed and
// reopened, and the characters _arguments gives a meaning escaped.
std::string zsh_quoted(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else if (c == '[' || c == ']' || c == ':' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string zsh_action(const OptionDoc& o) {
  if (!o.choices.empty()) return "(" + join(o.choices, " ") + ")";
  if (o.value_name == "INT" || o.value_name == "UINT" || o.value_name == "FLOAT" || o.value_name == "SIZE")
    return " ";
  return "_files";
}

std::string zsh_spec(const OptionDoc& o) {
  const std::string desc = "[" + zsh_quoted(o.description) + "]";
  std::string value;
  if (o.takes_value) value = ":" + zsh_quoted(o.value_name) + ":" + zsh_action(o);
  if (o.names.size() == 1) {
    return "'" + o.names.front() + (o.takes_value && o.names.front().rfind("--", 0) == 0 ? "=" : "") + desc + value +
           "'";
  }
  // Aliases exclude each other: '(-h --help)'{-h,--help}'[...]'.
  std::vector<std::string> names;
  for (const std::string& n : o.names) names.push_back(n + (o.takes_value && n.rfind("--", 0) == 0 ? "=" : ""));
  return "'(" + join(o.names, " ") + ")'{" + join(names, ",") + "}'" + desc + value + "'";
}

void zsh_arguments(std::string& out, const CommandDoc& cmd, const std::vector<const OptionDoc*>& options,
                   const std::string& indent, bool with_subcommands) {
  out += indent + "_arguments -s -S" + (with_subcommands ? " -C" : "") + " \\\n";
  for (const OptionDoc* o : options) out += indent + "  " + zsh_spec(*o) + " \\\n";
  int position = 1;
  for (const OptionDoc& o : cmd.options) {
    if (!o.positional) continue;
    const std::string where = o.repeatable ? "*" : std::to_string(position++);
    out += indent + "  '" + where + ":" + zsh_quoted(o.names.front()) + ":_files' \\\n";
  }
  if (with_subcommands) out += indent + "  '1: :->command' \\\n" + indent + "  '*:: :->arguments' \\\n";
  out += indent + "  && return 0\n";
}

void zsh_function(std::string& out, const std::string& fn, const CommandDoc& cmd,
                  std::vector<const OptionDoc*> inherited) {
  inherited = with_own_options(cmd, inherited);
  out += fn + "() {\n  local curcontext=\"$curcontext\" state line ret=1\n  typeset -A opt_args\n";
  const bool subs = !cmd.subcommands.empty();
  zsh_arguments(out, cmd, inherited, "  ", subs);
  if (subs) {
    out += "  case $state in\n    command)\n      local -a commands\n      commands=(\n";
    for (const CommandDoc& sub : cmd.subcommands)
      out += "        '" + zsh_quoted(sub.name) + ":" + zsh_quoted(sub.description) + "'\n";
    out += "      )\n      _describe -t commands 'command' commands && ret=0\n      ;;\n";
    out += "    arguments)\n      curcontext=\"${curcontext%:*:*}:" + cmd.name + "-$line[1]:\"\n";
    out += "      case $line[1] in\n";
    for (const CommandDoc& sub : cmd.subcommands)
      out += "        " + sub.name + ") " + fn + "_" + ident(sub.name) + " && ret=0 ;;\n";
    out += "      esac\n      ;;\n  esac\n";
  }
  out += "  return ret\n}\n\n";
  std::vector<const OptionDoc*> passed;
  for (const OptionDoc* o : inherited)
    if (std::find(o->names.begin(), o->names.end(), "--help") == o->names.end() &&
        std::find(o->names.begin(), o->names.end(), "--version") == o->names.end())
      passed.push_back(o);
  for (const CommandDoc& sub : cmd.subcommands) zsh_function(out, fn + "_" + ident(sub.name), sub, passed);
}

}  // namespace

CommandDoc describe(const CLI::App& app) {
  CommandDoc doc;
  doc.name = app.get_name();
  doc.description = app.get_description();
  doc.subcommand_required = app.get_require_subcommand_min() > 0;
  add_options(app, doc);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); }))
    doc.subcommands.push_back(describe(*sub));
  return doc;
}

std::string man_page(const Tool& tool, const CommandDoc& doc) {
  const std::string version =
      fmt::format("{}.{}.{}", vpcat::kLibraryVersionMajor, vpcat::kLibraryVersionMinor, vpcat::kLibraryVersionPatch);
  std::string out;
  out += fmt::format(".\\\" Generated by {} {} from its command-line definition; do not edit.\n", tool.name,
                     kGenerateDocsFlag);
  out += fmt::format(".TH \"{}\" 1 \"\" \"vpcat {}\" \"VarioPath catalog tools\"\n", upper(tool.name), version);
  out += ".nh\n";  // no hyphenation: option names stay whole
  const std::string summary = summary_of(tool, doc.description);
  out += ".SH NAME\n" + roff(tool.name) + " \\- " + roff(summary) + "\n";
  out += ".SH SYNOPSIS\n";
  if (doc.subcommands.empty() || !doc.subcommand_required)
    out += ".B " + roff(tool.name) + "\n" + synopsis_args(doc).substr(1) + "\n.br\n";
  if (!doc.subcommands.empty()) out += ".B " + roff(tool.name) + "\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  std::string sentence = summary;
  if (!sentence.empty()) sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
  if (!sentence.empty() && sentence.back() != '.' && sentence.back() != ')') sentence += '.';
  out += ".SH DESCRIPTION\n" + roff(sentence) + "\n";
  if (!doc.subcommands.empty()) {
    out += ".PP\nCommands:\n";
    for (const CommandDoc& sub : doc.subcommands)
      out += ".TP\n.B " + roff(sub.name) + "\n" + roff(sub.description) + "\n";
  }
  if (std::any_of(doc.options.begin(), doc.options.end(), [](const OptionDoc& o) { return o.positional; })) {
    out += ".SH ARGUMENTS\n";
    man_positionals(out, doc);
  }
  out += ".SH OPTIONS\n";
  man_options(out, doc, true);
  if (!doc.subcommands.empty()) {
    out += ".SH COMMANDS\nEach command also takes the options of " + roff(tool.name) +
           " itself (\\fB\\-\\-max\\-input\\-bytes\\fR, \\fB\\-\\-max\\-input\\-wait\\fR, ...).\n";
    for (const CommandDoc& sub : doc.subcommands) man_command(out, std::string(tool.name) + " " + sub.name, sub);
  }
  out += ".SH EXIT STATUS\n";
  out += ".TP\n.B 0\nsuccess\n.TP\n.B 1\nusage error (a bad command line)\n";
  out += ".TP\n.B 2\nbad input: a file that cannot be read or is malformed, a demand the planner refuses, an output "
         "that cannot be written\n";
  out += ".TP\n.B 3\ninvalid catalog\n.TP\n.B 4\ninternal error (a bug: please report it)\n";
  out += ".PP\nErrors are printed on standard error as \\fItool\\fR: error: \\fIwhere\\fR: \\fIwhat\\fR (\\fIwhy\\fR).\n";
  out += ".SH SEE ALSO\n";
  std::vector<std::string> others;
  for (const char* t : {"vp-analyze", "vp-catalog", "vp-plan", "vp-sim"})
    if (std::string_view(t) != tool.name) others.push_back(".BR " + roff(t) + " (1)");
  out += join(others, ",\n") + "\n";
  // The options cite the guides as docs/NAME.md: where the package puts them.
  out += ".PP\n" + roff("The guides the options cite (docs/NAME.md) and the catalog format's SPEC.md are installed "
                         "with the tools in share/doc/vpcat-tools/docs/ (/usr/share/doc/vpcat-tools/docs/ from the "
                         "vpcat-tools package), the bundled example platforms in "
                         "share/doc/vpcat-tools/examples/platforms/.") + "\n";
  return out;
}

std::string bash_completion(const Tool& tool, const CommandDoc& doc) {
  std::vector<BashState> states;
  bash_states(doc, "root", {}, states);
  const std::string fn = "_" + ident(tool.name);
  std::string out;
  out += fmt::format("# bash completion for {}; generated by {} {} from its command-line definition.\n", tool.name,
                     tool.name, kGenerateDocsFlag);
  out += fn + "() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=\n";
  out += "  (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  out += "  local state=root word i\n";
  out += "  for (( i = 1; i < COMP_CWORD; i++ )); do\n    word=${COMP_WORDS[i]}\n    case \"$state:$word\" in\n";
  for (const BashState& s : states)
    for (const CommandDoc& sub : s.cmd->subcommands)
      out += fmt::format("      '{}:{}') state={}_{} ;;\n", s.state, sub.name, s.state, ident(sub.name));
  out += "    esac\n  done\n";
  out += "  local opts= valued= commands=\n  case $state in\n";
  for (const BashState& s : states) {
    std::vector<std::string> opts, valued, commands;
    for (const OptionDoc* o : s.options)
      for (const std::string& n : o->names) {
        opts.push_back(n);
        if (o->takes_value) valued.push_back(n);
      }
    for (const CommandDoc& sub : s.cmd->subcommands) commands.push_back(sub.name);
    out += fmt::format("    {}) opts='{}' valued='{}' commands='{}' ;;\n", s.state, join(opts, " "), join(valued, " "),
                       join(commands, " "));
  }
  out += "  esac\n";
  // The value of an option: its choices, else a file name.
  out += "  case \"$state:$prev\" in\n";
  for (const BashState& s : states)
    for (const OptionDoc* o : s.options)
      if (!o->choices.empty())
        for (const std::string& n : o->names)
          out += fmt::format("    '{}:{}') COMPREPLY=($(compgen -W '{}' -- \"$cur\")); return 0 ;;\n", s.state, n,
                             join(o->choices, " "));
  out += "  esac\n";
  out += "  if [[ -n $prev && \" $valued \" == *\" $prev \"* ]]; then\n";
  out += "    COMPREPLY=($(compgen -f -- \"$cur\")); return 0\n  fi\n";
  out += "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n";
  out += "  else\n    COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n  fi\n";
  out += "  return 0\n}\n";
  out += "complete -o filenames -F " + fn + " " + tool.name + "\n";
  return out;
}

std::string zsh_completion(const Tool& tool, const CommandDoc& doc) {
  std::string out = fmt::format("#compdef {}\n# zsh completion for {}; generated by {} {} from its command-line "
                                "definition.\n\n",
                                tool.name, tool.name, tool.name, kGenerateDocsFlag);
  const std::string fn = "_" + ident(tool.name);
  zsh_function(out, fn, doc, {});
  out += fn + " \"$@\"\n";
  return out;
}

void write_cli_docs(const Tool& tool, const CLI::App& app, const std::string& dir) {
  const CommandDoc doc = describe(app);
  const std::string man = man_page(tool, doc);
  const std::string bash = bash_completion(tool, doc);
  const std::string zsh = zsh_completion(tool, doc);
  const auto bytes = [](const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); };
  write_outputs({{dir + "/" + tool.name + ".1", bytes(man), man.size()},
                 {dir + "/" + tool.name + ".bash", bytes(bash), bash.size()},
                 {dir + "/_" + tool.name, bytes(zsh), zsh.size()}});
}

}  // namespace vp::cli
