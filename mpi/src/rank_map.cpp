#include "rank_map.hpp"

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string_view>

#include "vpcat/gpu_list.hpp"

namespace vpcat_mpi {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A whole decimal number below 2^63; false otherwise.
bool parse_u64(const std::string& s, std::uint64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t k = s.find(sep, start);
    out.push_back(s.substr(start, k == std::string::npos ? std::string::npos : k - start));
    if (k == std::string::npos) return out;
    start = k + 1;
  }
}

std::string short_name(const std::string& host) { return host.substr(0, host.find('.')); }

}  // namespace

namespace {

// The entries of an explicit map, GPU by GPU, at most `limit` of them (a
// range is not expanded further); false and *error at a bad entry.
bool parse_entries(const std::string& text, const std::vector<CatalogNode>& nodes, std::uint64_t gpu_count,
                   std::size_t limit, std::vector<std::int64_t>* gpus, std::string* error) {
  gpus->clear();
  // The GPU-list grammar of vpcat/gpu_list.hpp, NODE a node index.
  auto add = [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t g = first; g <= last && gpus->size() < limit; ++g)
      gpus->push_back(static_cast<std::int64_t>(g));
  };
  std::size_t at = 0;
  std::string_view entry;
  while (vpcat::next_gpu_list_item(text, &at, &entry)) {
    const std::string e(entry);
    vpcat::GpuListItem item;
    const vpcat::GpuListError bad = vpcat::parse_gpu_list_item(entry, &item);
    std::uint64_t a = 0;
    if (bad == vpcat::GpuListError::bad_node || bad == vpcat::GpuListError::bad_spec ||
        (bad == vpcat::GpuListError::none && item.kind != vpcat::GpuListItemKind::gpus &&
         (item.kind == vpcat::GpuListItemKind::node_bus_id || !parse_u64(std::string(item.node), &a))))
      return *error = "entry \"" + e + "\": want NODE:LOCAL_GPU, NODE:A-B or NODE:* with NODE a node index", false;
    if (bad != vpcat::GpuListError::none)
      return *error = "entry \"" + e + "\": want a GPU index, a range N-M (N <= M) or NODE:LOCAL_GPU", false;
    if (item.kind == vpcat::GpuListItemKind::gpus) {
      if (item.last >= gpu_count)
        return *error = "entry \"" + e + "\": GPU " + std::to_string(item.last) + " is not in the catalog (" +
                        std::to_string(gpu_count) + " GPUs)",
               false;
      add(item.first, item.last);
      continue;
    }
    if (a >= nodes.size())
      return *error = "entry \"" + e + "\": node " + std::to_string(a) + " is not in the catalog (" +
                      std::to_string(nodes.size()) + " nodes)",
             false;
    const std::uint64_t count = nodes[a].device_names.size();
    const std::uint64_t first = item.kind == vpcat::GpuListItemKind::node_all ? 0 : item.first;
    const std::uint64_t last = item.kind == vpcat::GpuListItemKind::node_all ? count - 1 : item.last;
    if (count == 0 || last >= count)
      return *error = "entry \"" + e + "\": node " + std::to_string(a) + " has " + std::to_string(count) + " GPUs",
             false;
    add(nodes[a].first_gpu + first, nodes[a].first_gpu + last);
  }
  return true;
}

}  // namespace

bool parse_rank_map(const std::string& text, const std::vector<CatalogNode>& nodes, std::uint64_t gpu_count,
                    int ranks, std::vector<std::int64_t>* gpus, std::string* error) {
  const std::size_t want = static_cast<std::size_t>(ranks);
  if (!parse_entries(text, nodes, gpu_count, want + 1, gpus, error)) return false;
  if (gpus->size() != want)
    return *error = "names " + std::to_string(gpus->size()) + (gpus->size() > want ? "+" : "") + " GPUs for " +
                    std::to_string(ranks) + " ranks (one entry per rank)",
           false;
  return true;
}

bool parse_rank_map_for(const std::string& text, const std::vector<CatalogNode>& nodes, std::uint64_t gpu_count,
                        const std::vector<int>& world_rank, int world_size, std::vector<std::int64_t>* gpus,
                        std::string* error) {
  const std::size_t ranks = world_rank.size();
  const bool world_form =
      world_size > 0 && static_cast<std::size_t>(world_size) != ranks &&
      std::all_of(world_rank.begin(), world_rank.end(), [&](int w) { return w >= 0 && w < world_size; });
  const std::size_t limit = std::max(ranks, world_form ? static_cast<std::size_t>(world_size) : 0) + 1;
  std::vector<std::int64_t> entries;
  if (!parse_entries(text, nodes, gpu_count, limit, &entries, error)) return false;
  if (entries.size() == ranks) {
    *gpus = entries;
    return true;
  }
  if (world_form && entries.size() == static_cast<std::size_t>(world_size)) {
    gpus->resize(ranks);
    for (std::size_t r = 0; r < ranks; ++r) (*gpus)[r] = entries[static_cast<std::size_t>(world_rank[r])];
    return true;
  }
  const bool more = entries.size() >= limit;
  *error = "names " + std::to_string(entries.size()) + (more ? "+" : "") + " GPUs for " +
           std::to_string(ranks) + " ranks (one entry per rank" +
           (world_form ? ", or one per rank of MPI_COMM_WORLD's " + std::to_string(world_size) : std::string()) + ")";
  return false;
}

namespace {

// "a, b, c, ..." of the first three names.
std::string some_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += ", ...";
  return out;
}

// node0, node1, ...: what the analyzer names nodes when it knows no host.
bool generated_name(const std::string& name) {
  return name.size() > 4 && name.compare(0, 4, "node") == 0 &&
         name.find_first_not_of("0123456789", 4) == std::string::npos;
}

}  // namespace

bool map_by_host(const std::vector<RankInfo>& ranks, const std::vector<CatalogNode>& nodes,
                 std::vector<std::int64_t>* gpus, std::string* error) {
  gpus->assign(ranks.size(), -1);
  std::map<std::string, std::size_t> exact, shortn;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    exact.emplace(nodes[n].name, n);
    shortn.emplace(short_name(nodes[n].name), n);
  }
  // A catalog that names none of the job's hosts was built for other hosts
  // (or without host names): say that, not which rank failed first.
  std::vector<std::string> hosts, node_names;
  bool any = false, generated = !nodes.empty();
  for (const RankInfo& ri : ranks) {
    if (exact.count(ri.host) || shortn.count(short_name(ri.host))) any = true;
    if (std::find(hosts.begin(), hosts.end(), ri.host) == hosts.end()) hosts.push_back(ri.host);
  }
  for (const CatalogNode& n : nodes) node_names.push_back(n.name), generated = generated && generated_name(n.name);
  if (!any && !ranks.empty())
    return *error = "the catalog's node names match none of the job's hosts: its " + std::to_string(nodes.size()) +
                    " nodes are " + some_names(node_names) + ", the job's " + std::to_string(hosts.size()) +
                    (hosts.size() == 1 ? " host is " : " hosts are ") + some_names(hosts) +
                    (generated ? " (the catalog has generated names, not host names: rebuild it with vp-analyze "
                                 "--hostname NAME or --hosts LIST"
                               : " (a catalog of another cluster? rebuild it for these hosts") +
                    ", or set VPCAT_RANK_MAP to map ranks explicitly)",
           false;
  std::map<std::string, int> seen;  // host -> ranks so far: the local rank
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankInfo& ri = ranks[r];
    const int local = seen[ri.host]++;
    const std::string where = "rank " + std::to_string(r) + " (host \"" + ri.host + "\")";
    std::size_t node_index = nodes.size();
    if (auto it = exact.find(ri.host); it != exact.end()) node_index = it->second;
    else if (auto st = shortn.find(short_name(ri.host)); st != shortn.end()) node_index = st->second;
    if (node_index == nodes.size()) {
      std::string some;
      for (std::size_t n = 0; n < nodes.size() && n < 3; ++n) some += (n ? ", " : "") + nodes[n].name;
      if (nodes.size() > 3) some += ", ...";
      return *error = where + ": host not among the catalog's " + std::to_string(nodes.size()) + " node names (" +
                      some + "; set VPCAT_RANK_MAP to map ranks explicitly)",
             false;
    }
    const CatalogNode& node = nodes[node_index];
    const std::size_t node_gpus = node.device_names.size();
    std::size_t g = static_cast<std::size_t>(local);
    if (!ri.visible_var.empty()) {
      std::vector<std::string> devs = split(ri.visible_devices, ',');
      std::string dev = trim(devs.size() == 1 ? devs[0] : (static_cast<std::size_t>(local) < devs.size() ? devs[local] : ""));
      if (dev.empty())
        return *error = where + ": " + ri.visible_var + "=\"" + ri.visible_devices + "\" names no device for local rank " +
                        std::to_string(local),
               false;
      const std::string prefix = ri.visible_var == "CUDA_VISIBLE_DEVICES" ? "cuda" : "rsmi";
      std::uint64_t k = 0;
      const bool numeric = parse_u64(dev, &k);
      g = node_gpus;
      for (std::size_t i = 0; i < node_gpus && g == node_gpus; ++i) {
        if (node.device_names[i] == dev || (numeric && node.device_names[i] == prefix + dev)) g = i;
      }
      if (g == node_gpus && numeric && k < node_gpus) g = static_cast<std::size_t>(k);
      if (g == node_gpus)
        return *error = where + ": " + ri.visible_var + " device \"" + dev + "\" is none of node \"" + node.name +
                        "\"'s " + std::to_string(node_gpus) + " GPUs",
               false;
    } else if (g >= node_gpus) {
      return *error = where + ": local rank " + std::to_string(local) + ", but node \"" + node.name + "\" has " +
                      std::to_string(node_gpus) + " GPUs",
             false;
    }
    (*gpus)[r] = static_cast<std::int64_t>(node.first_gpu + g);
  }
  return true;
}

std::string format_rank_map(const std::vector<std::int64_t>& gpus) {
  std::string out;
  for (std::size_t i = 0; i < gpus.size();) {
    std::size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(gpus[i]);
    if (j > i) out += "-" + std::to_string(gpus[j]);
    i = j + 1;
  }
  return out;
}

bool check_map(const std::vector<std::int64_t>& gpus, std::uint64_t gpu_count, std::string* error) {
  std::map<std::int64_t, std::size_t> owner;
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    if (gpus[r] < 0 || static_cast<std::uint64_t>(gpus[r]) >= gpu_count)
      return *error = "rank " + std::to_string(r) + ": GPU " + std::to_string(gpus[r]) + " is not in the catalog (" +
                      std::to_string(gpu_count) + " GPUs)",
             false;
    auto [it, fresh] = owner.emplace(gpus[r], r);
    if (!fresh)
      return *error = "ranks " + std::to_string(it->second) + " and " + std::to_string(r) + " both map to GPU " +
                      std::to_string(gpus[r]),
             false;
  }
  return true;
}

}  // namespace vpcat_mpi
