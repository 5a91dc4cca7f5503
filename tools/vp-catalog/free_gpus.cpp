#include "free_gpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/cli/subset_arg.hpp"
#include "vp/topology/cluster.hpp"

namespace vp::catalog_cli {

namespace {

std::string trimmed(std::string line) {
  const std::size_t hash = line.find('#');
  if (hash != std::string::npos) line.resize(hash);
  line.erase(0, line.find_first_not_of(" \t\r"));
  line.erase(line.find_last_not_of(" \t\r") + 1);
  return line;
}

// The parser's message without the option it would name.
std::string reason_of(const ToolError& e) {
  std::string what = e.what();
  if (const auto* input = dynamic_cast<const InputError*>(&e)) what = input->reason();
  if (what.rfind("--gpus ", 0) == 0) what.erase(0, 7);
  return what;
}

}  // namespace

FreeGpus read_free_gpus(const std::string& path, const vpcat::CatalogView& view) {
  std::istringstream in(read_input_file(path));
  const std::string name = input_name(path);
  FreeGpus out;
  out.by_node.resize(view.node_count());
  std::map<std::uint64_t, int> line_of;  // catalog GPU -> the line that listed it
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string entry = trimmed(raw);
    if (entry.empty()) continue;
    const std::size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
      throw InputError(name, line, fmt::format("'{}': not HOSTS:GPUS (gpu03:0-3, gpu[05-08]:*)", printable_line(entry)));
    std::string list;
    try {
      for (const std::string& host : expand_hostlist(entry.substr(0, colon), name)) {
        std::size_t start = colon + 1;
        while (start <= entry.size()) {
          std::size_t comma = entry.find(',', start);
          if (comma == std::string::npos) comma = entry.size();
          list += (list.empty() ? "" : ",") + host + ":" + entry.substr(start, comma - start);
          start = comma + 1;
        }
      }
      vpcat::Subset subset;
      cli::parse_subset(view, list, "", subset);
      for (std::uint32_t r = 0; r < subset.gpu_count(); ++r) {
        const std::uint64_t gpu = subset.catalog_gpu(r);
        const auto [it, fresh] = line_of.emplace(gpu, line);
        std::uint32_t node = 0, local = 0;
        view.locate_gpu(gpu, &node, &local);
        if (!fresh)
          throw InputError(name, line, fmt::format("GPU {} of node {} is already listed on line {}", local,
                                                   printable_line(entry.substr(0, colon)), it->second));
        out.by_node[node].push_back(local);
        ++out.total;
      }
    } catch (const InputError& e) {
      if (e.file() == name && e.line() == line) throw;
      throw InputError(name, line, reason_of(e));
    } catch (const ToolError& e) {
      throw InputError(name, line, reason_of(e));
    }
  }
  if (out.total == 0) throw InputError(name, 0, "no free GPU listed (one HOSTS:GPUS entry per line)");
  for (std::vector<std::uint32_t>& gpus : out.by_node) std::sort(gpus.begin(), gpus.end());
  return out;
}

std::vector<std::uint64_t> free_gpu_list(const vpcat::CatalogView& view, const FreeGpus& free) {
  std::vector<std::uint64_t> out;
  out.reserve(free.total);
  for (std::uint32_t n = 0; n < view.node_count(); ++n)
    for (std::uint32_t local : free.by_node[n]) out.push_back(view.node(n).first_gpu + local);
  return out;
}

}  // namespace vp::catalog_cli
