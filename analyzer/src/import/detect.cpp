// Format detection and the import_topology() dispatcher.

#include "vp/base/input_file.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

std::string_view to_string(InputFormat f) {
  switch (f) {
    case InputFormat::auto_detect: return "auto";
    case InputFormat::hwloc_xml: return "hwloc";
    case InputFormat::nccl_xml: return "nccl";
    case InputFormat::nvidia_smi: return "nvidia-smi";
    case InputFormat::json: return "json";
  }
  return "?";
}

std::optional<InputFormat> parse_input_format(std::string_view s) {
  for (auto f : {InputFormat::auto_detect, InputFormat::hwloc_xml, InputFormat::nccl_xml, InputFormat::nvidia_smi,
                 InputFormat::json}) {
    if (to_string(f) == s) return f;
  }
  return std::nullopt;
}

namespace {

// Skip a UTF-8 byte-order mark, white space, an XML declaration and XML
// comments; return the rest.
std::string_view skip_prologue(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  for (;;) {
    std::size_t i = s.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos) return {};
    s.remove_prefix(i);
    if (s.substr(0, 5) == "<?xml") {
      std::size_t end = s.find("?>");
      if (end == std::string_view::npos) return s;
      s.remove_prefix(end + 2);
    } else if (s.substr(0, 4) == "<!--") {
      std::size_t end = s.find("-->");
      if (end == std::string_view::npos) return s;
      s.remove_prefix(end + 3);
    } else if (s.substr(0, 9) == "<!DOCTYPE") {
      // An internal subset "[ ... ]" may hold '>' (<!ENTITY ...>): skip it whole.
      std::size_t end = s.find_first_of("[>");
      if (end != std::string_view::npos && s[end] == '[') {
        std::size_t close = s.find(']', end);
        end = close == std::string_view::npos ? close : s.find('>', close);
      }
      if (end == std::string_view::npos) return s;
      s.remove_prefix(end + 1);
    } else {
      return s;
    }
  }
}

bool looks_like_nvidia_smi(std::string_view s) {
  // The header row starts with GPU0 after optional white space and ANSI colour codes.
  std::size_t line_end = s.find('\n');
  std::string_view first = s.substr(0, line_end);
  return first.find("GPU0") != std::string_view::npos;
}

}  // namespace

InputFormat detect_format(const std::string& path, std::string_view content) {
  std::string_view s = skip_prologue(content);
  if (s.empty()) throw InputError(path, 0, "empty file");
  if (s.substr(0, 9) == "<topology") return InputFormat::hwloc_xml;
  if (s.substr(0, 7) == "<system") return InputFormat::nccl_xml;
  if (s.front() == '{') return InputFormat::json;
  if (looks_like_nvidia_smi(s)) return InputFormat::nvidia_smi;
  throw InputError(path, 0,
                   "unknown format (not hwloc XML, NCCL topology XML, nvidia-smi topo -m output or vp JSON; "
                   "name it with --format)");
}

namespace {

Topology import_content(const std::string& path, InputFormat format, const ImportOptions& opts) {
  std::string content = read_input_file(path);
  if (format == InputFormat::auto_detect) format = detect_format(path, content);
  switch (format) {
    case InputFormat::hwloc_xml: return import_hwloc_xml(path, content, opts);
    case InputFormat::nccl_xml: return import_nccl_xml(path, content, opts);
    case InputFormat::nvidia_smi: return import_nvidia_smi(path, content, opts);
    case InputFormat::json: return import_json(path, content, opts);
    case InputFormat::auto_detect: break;
  }
  throw InputError(path, 0, "unknown format");
}

}  // namespace

Topology import_topology(const std::string& path, InputFormat format, const ImportOptions& opts) {
  return reading_input(path, [&] { return import_content(path, format, opts); });
}

}  // namespace vp
