#include "vp/import/measured.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "vp/base/input_file.hpp"
#include "vp/base/json_document.hpp"
#include "vp/base/json_field.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"
#include "vpcat/pci_bus_id.hpp"

namespace vp {

namespace {

// "0000:17:00.0" from a domain, bus and device number (function 0: CUDA
// names a device, both tools print no function).
std::string bus_id(unsigned long domain, unsigned long bus, unsigned long device) {
  return fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, device);
}

// (domain, bus, device) of a bus id, "0000:17:00" as nvbandwidth prints it or
// "0000:17:00.0" (vpcat/pci_bus_id.hpp's loose form; the function is not
// compared: CUDA names a device); nullopt if malformed.
std::optional<std::tuple<unsigned long, unsigned long, unsigned long>> split_bus_id(const std::string& id) {
  vpcat::PciBusId b;
  if (!vpcat::parse_pci_bus_id(id, b, vpcat::PciBusIdForm::loose)) return std::nullopt;
  return std::make_tuple(static_cast<unsigned long>(b.domain), static_cast<unsigned long>(b.bus),
                         static_cast<unsigned long>(b.device));
}

// A finite positive figure from text ("276.07"); nullopt otherwise.
std::optional<double> parse_gbps(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// ---------------------------------------------------------------------------
// nvbandwidth --json

// The unidirectional device-to-device testcases, in order of preference, and
// whether the matrix's row is the source (write: row -> column) or the
// destination (read: the row's device reads from the column's).
struct NvbTestcase {
  const char* name;
  bool row_is_source;
};
constexpr NvbTestcase kNvbTestcases[] = {
    {"device_to_device_memcpy_write_ce", true},
    {"device_to_device_memcpy_read_ce", false},
    {"device_to_device_memcpy_write_sm", true},
    {"device_to_device_memcpy_read_sm", false},
};

// The line of a value of `doc` (for MeasuredDevice::line, PairMeasurement::line).
int line_of(const json::Document& doc, const json::Field& f) {
  int line = 0, column = 0;
  json::line_column(doc.text(), doc.offset_of(f.path()), line, column);
  return line;
}

// One entry of "GPU Device list": "0: NVIDIA A10 (00000000:17:00): (host)".
MeasuredDevice nvb_device(const json::Document& doc, const json::Field& entry, std::size_t position) {
  const std::string s = entry.text();
  MeasuredDevice d;
  char* end = nullptr;
  const long index = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != ':' || index < 0 || index > 1024)
    entry.fail(fmt::format("expected \"N: NAME (DOMAIN:BUS:DEVICE)\", got {}", json::describe(entry.json())));
  d.index = static_cast<int>(index);
  // The bus id is the first "(hex:hex:hex)" group.
  const std::size_t open = s.find('(');
  const std::size_t close = open == std::string::npos ? open : s.find(')', open);
  if (open != std::string::npos && close != std::string::npos) {
    auto parts = split_bus_id(s.substr(open + 1, close - open - 1));
    if (parts) d.pci_bus_id = bus_id(std::get<0>(*parts), std::get<1>(*parts), std::get<2>(*parts));
    const auto colon = static_cast<std::size_t>(end - s.c_str());
    std::string name = open > colon ? s.substr(colon + 1, open - colon - 1) : std::string();
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    d.name = name;
  }
  if (d.index != static_cast<int>(position))
    entry.fail(fmt::format("device {} listed at position {} (devices are listed in order)", d.index, position));
  d.line = line_of(doc, entry);
  return d;
}

// A cell of the bandwidth matrix: a rate in GB/s (a number or its text), or
// nullopt for "N/A" (no peer access: not measured).
std::optional<double> nvb_cell(const json::Field& cell) {
  std::optional<double> v;
  if (cell.json().is_number()) {
    v = cell.json().get<double>();
    if (!std::isfinite(*v) || *v < 0) v.reset();
  } else if (cell.json().is_string()) {
    const std::string s = cell.json().get<std::string>();
    if (s == "N/A") return std::nullopt;
    v = parse_gbps(s);
  }
  if (!v) cell.fail("must be a rate in GB/s (a number >= 0 or \"N/A\"), got " + json::describe(cell.json()));
  return v;
}

// nvbandwidth's own format: extra keys (its other testcases' fields, its
// version, ...) are ignored, as json_field.hpp allows for another tool's files.
Measurement parse_nvbandwidth(const std::string& file, const std::string& text) {
  const json::Document doc(file, text);
  const json::Field root(doc);
  Measurement m;
  m.file = file;
  m.format = "nvbandwidth";
  const std::optional<json::Field> found = root.json().is_object() ? root.find("nvbandwidth") : std::nullopt;
  if (!found || !found->json().is_object()) root.fail("not nvbandwidth --json output (no \"nvbandwidth\" object)");
  const json::Field nvb = *found;
  if (const auto error = nvb.find("error"); error && error->json().is_string())
    m.notes.push_back(fmt::format("{}: nvbandwidth reported an error: {}", file, printable(error->text())));
  if (const auto list = nvb.find("GPU Device list")) {
    const std::vector<json::Field> entries = list->items(1024, "GPUs a measurement may list");
    for (std::size_t i = 0; i < entries.size(); ++i) m.devices.push_back(nvb_device(doc, entries[i], i));
  }
  const std::optional<json::Field> cases_field = nvb.find("testcases");
  if (!cases_field || !cases_field->json().is_array()) nvb.fail("no \"testcases\" array (run nvbandwidth -j)");
  const std::vector<json::Field> cases = cases_field->items();
  auto name_of = [](const json::Field& c) {
    const auto name = c.json().is_object() ? c.find("name") : std::nullopt;
    return name && name->json().is_string() ? name->text() : std::string();
  };
  std::optional<std::size_t> chosen;
  const NvbTestcase* kind = nullptr;
  for (const NvbTestcase& want : kNvbTestcases) {
    for (std::size_t i = 0; i < cases.size() && !chosen; ++i) {
      if (name_of(cases[i]) != want.name) continue;
      if (!cases[i].has("bandwidth_matrix")) {
        const auto status = cases[i].find("status");
        m.notes.push_back(fmt::format("{}: testcase {} has no bandwidth_matrix (status {}), ignored", file, want.name,
                                      status && status->json().is_string() ? status->text() : std::string("?")));
        continue;
      }
      chosen = i;
      kind = &want;
    }
    if (chosen) break;
  }
  if (!chosen)
    cases_field->fail("no device-to-device memcpy testcase with a bandwidth_matrix (run nvbandwidth -j -t "
                      "device_to_device_memcpy_write_ce)");
  m.matrix = kind->name;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string name = name_of(cases[i]);
    if (i != *chosen && name.rfind("device_to_device", 0) == 0 && cases[i].has("bandwidth_matrix"))
      m.notes.push_back(fmt::format("{}: testcase {} not used (read: {})", file, printable(name), kind->name));
  }
  const json::Field matrix = cases[*chosen].at("bandwidth_matrix");
  const std::vector<json::Field> rows = matrix.items(1024, "GPUs a measurement may list");
  if (rows.empty()) matrix.fail("must be a non-empty array of rows");
  const std::size_t n = rows.size();
  m.device_count = static_cast<int>(n);
  if (!m.devices.empty() && m.devices.size() != n)
    matrix.fail(fmt::format("{} rows but \"GPU Device list\" lists {} devices", n, m.devices.size()));
  for (std::size_t r = 0; r < n; ++r) {
    if (!rows[r].json().is_array() || rows[r].size() != n)
      rows[r].fail(fmt::format("must be a row of {} cells, got {}", n, json::describe(rows[r].json())));
    const int line = line_of(doc, rows[r]);
    const std::vector<json::Field> cells = rows[r].items();
    for (std::size_t c = 0; c < n; ++c) {
      if (r == c) continue;
      const std::optional<double> v = nvb_cell(cells[c]);
      if (!v || *v == 0) continue;
      const int src = static_cast<int>(kind->row_is_source ? r : c), dst = static_cast<int>(kind->row_is_source ? c : r);
      m.pairs.push_back(PairMeasurement{src, dst, *v, line});
    }
  }
  return m;
}

// ---------------------------------------------------------------------------
// p2pBandwidthLatencyTest text

struct TextMatrix {
  std::string title;
  int title_line = 0;
  std::vector<std::vector<double>> cells;
  std::vector<int> lines;  // per row
};

Measurement parse_p2p(const std::string& file, const std::string& text) {
  Measurement m;
  m.file = file;
  m.format = "p2pBandwidthLatencyTest";
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(l);
    }
  }
  auto fail = [&](std::size_t i, const std::string& why) -> InputError {
    return InputError(file, static_cast<int>(i + 1), why);
  };
  std::set<std::pair<int, int>> no_peer;
  std::vector<TextMatrix> matrices;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("Device: ", 0) == 0) {
      // "Device: 0, NVIDIA A10, pciBusID: 17, pciDeviceID: 0, pciDomainID:0"
      MeasuredDevice d;
      d.line = static_cast<int>(i + 1);
      char* end = nullptr;
      long index = std::strtol(l.c_str() + 8, &end, 10);
      if (end == l.c_str() + 8 || *end != ',' || index < 0 || index > 1024)
        throw fail(i, "expected \"Device: N, NAME, pciBusID: B, pciDeviceID: D, pciDomainID:M\"");
      d.index = static_cast<int>(index);
      auto field = [&](const char* key) -> std::optional<unsigned long> {
        std::size_t at = l.find(key);
        if (at == std::string::npos) return std::nullopt;
        const char* p = l.c_str() + at + std::char_traits<char>::length(key);
        while (*p == ' ') ++p;
        char* e = nullptr;
        unsigned long v = std::strtoul(p, &e, 16);
        if (e == p) return std::nullopt;
        return v;
      };
      auto bus = field("pciBusID:"), dev = field("pciDeviceID:"), dom = field("pciDomainID:");
      if (!bus || !dev || !dom) throw fail(i, "a Device line without pciBusID, pciDeviceID and pciDomainID");
      std::size_t name_start = static_cast<std::size_t>(end - l.c_str()) + 1;
      std::size_t name_end = l.find(", pciBusID:");
      if (name_end != std::string::npos && name_end > name_start) {
        d.name = l.substr(name_start, name_end - name_start);
        d.name.erase(0, d.name.find_first_not_of(' '));
      }
      d.pci_bus_id = bus_id(*dom, *bus, *dev);
      if (d.index != static_cast<int>(m.devices.size()))
        throw fail(i, fmt::format("device {} listed after {} devices (devices are listed in order)", d.index,
                                  m.devices.size()));
      m.devices.push_back(d);
      continue;
    }
    if (l.rfind("Device=", 0) == 0 && l.find("CANNOT Access Peer Device=") != std::string::npos) {
      int a = std::atoi(l.c_str() + 7);
      int b = std::atoi(l.c_str() + l.find("Peer Device=") + 12);
      no_peer.insert({a, b});
      continue;
    }
    if (l.find("Bandwidth") != std::string::npos && l.find("Matrix (GB/s)") != std::string::npos) {
      TextMatrix tm;
      tm.title = l;
      tm.title.erase(0, tm.title.find_first_not_of(' '));
      tm.title_line = static_cast<int>(i + 1);
      if (i + 1 >= lines.size()) throw fail(i, "a bandwidth matrix without its column header (cut off?)");
      std::vector<std::string> header = split_words(lines[i + 1]);
      if (header.empty() || header[0] != "D\\D")
        throw fail(i + 1, "expected the matrix's column header \"D\\D 0 1 ...\"");
      const std::size_t n = header.size() - 1;
      if (n == 0 || n > 1024) throw fail(i + 1, fmt::format("a matrix of {} columns (1 to 1024)", n));
      for (std::size_t c = 0; c < n; ++c)
        if (header[c + 1] != std::to_string(c))
          throw fail(i + 1, fmt::format("column {} is headed \"{}\" (expected {})", c, printable(header[c + 1]), c));
      for (std::size_t r = 0; r < n; ++r) {
        const std::size_t at = i + 2 + r;
        if (at >= lines.size())
          throw fail(at > 0 ? at - 1 : 0, fmt::format("\"{}\": {} of {} rows (cut off?)", tm.title, r, n));
        std::vector<std::string> w = split_words(lines[at]);
        if (w.size() != n + 1 || w[0] != std::to_string(r))
          throw fail(at, fmt::format("\"{}\": expected row {} with {} figures, got \"{}\"", tm.title, r, n,
                                     printable(lines[at])));
        std::vector<double> row;
        for (std::size_t c = 0; c < n; ++c) {
          auto v = parse_gbps(w[c + 1]);
          if (!v) throw fail(at, fmt::format("\"{}\" in row {}, column {}: not a rate in GB/s", printable(w[c + 1]), r, c));
          row.push_back(*v);
        }
        tm.cells.push_back(row);
        tm.lines.push_back(static_cast<int>(at + 1));
      }
      matrices.push_back(tm);
      i += 1 + n;
    }
  }
  // Which matrix: the unidirectional P2P writes (row -> column), else the
  // reads (column -> row), else the bidirectional one halved.
  auto find = [&](auto pred) -> const TextMatrix* {
    for (const TextMatrix& tm : matrices)
      if (pred(tm.title)) return &tm;
    return nullptr;
  };
  auto has = [](const std::string& s, const char* w) { return s.find(w) != std::string::npos; };
  bool row_is_source = true;
  double scale = 1.0;
  const TextMatrix* use = find([&](const std::string& t) {
    return has(t, "Unidirectional") && has(t, "P2P=Enabled") && !has(t, "Reads");
  });
  if (!use) {
    use = find([&](const std::string& t) { return has(t, "Unidirectional") && has(t, "P2P=Enabled"); });
    row_is_source = false;
  }
  if (!use) {
    use = find([&](const std::string& t) { return has(t, "Bidirectional") && has(t, "P2P=Enabled"); });
    row_is_source = true;
    scale = 0.5;
    if (use)
      m.notes.push_back(fmt::format("{}:{}: no unidirectional P2P=Enabled matrix: each direction taken as half of "
                                    "the bidirectional figure",
                                    file, use->title_line));
  }
  if (!use)
    throw InputError(file, 0,
                     matrices.empty()
                         ? "no bandwidth matrix (expected p2pBandwidthLatencyTest output)"
                         : "no P2P=Enabled bandwidth matrix (the P2P=Disabled ones stage through host memory)");
  m.matrix = use->title;
  m.device_count = static_cast<int>(use->cells.size());
  if (!m.devices.empty() && m.devices.size() != use->cells.size())
    throw InputError(file, use->title_line,
                     fmt::format("the matrix has {} rows but the file lists {} devices", use->cells.size(),
                                 m.devices.size()));
  for (const TextMatrix& tm : matrices)
    if (&tm != use) m.notes.push_back(fmt::format("{}:{}: \"{}\" not used", file, tm.title_line, tm.title));
  const std::size_t n = use->cells.size();
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      if (r == c) continue;
      int src = static_cast<int>(row_is_source ? r : c), dst = static_cast<int>(row_is_source ? c : r);
      if (no_peer.count({static_cast<int>(r), static_cast<int>(c)})) {
        m.notes.push_back(fmt::format("{}: device {} cannot access device {} peer-to-peer: pair not used", file, r, c));
        continue;
      }
      double v = use->cells[r][c] * scale;
      if (v > 0) m.pairs.push_back(PairMeasurement{src, dst, v, use->lines[r]});
    }
  return m;
}

std::string trim_left(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a);
}

}  // namespace

Measurement parse_measurement(const std::string& file, const std::string& text) {
  const std::string head = trim_left(text);
  std::optional<Measurement> m;
  if (!head.empty() && head[0] == '{')
    m = parse_nvbandwidth(file, text);
  else if (text.find("Bandwidth") != std::string::npos && text.find("Matrix (GB/s)") != std::string::npos)
    m = parse_p2p(file, text);
  if (m) {
    const std::size_t slash = file.find_last_of('/');
    const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
    // Notes become warnings, and so part of the catalog: by base name. Every
    // text taken from the file or its name is made printable here, once: a
    // matrix title or a device name may hold any byte, and a warning goes into
    // JSON and the catalog's provenance (printable() leaves text it already
    // escaped as it is).
    for (std::string& note : m->notes) {
      if (note.rfind(file, 0) == 0) note = base + note.substr(file.size());
      note = printable(note);
    }
    m->name = printable(base);
    m->matrix = printable(m->matrix);
    for (MeasuredDevice& d : m->devices) d.name = printable(d.name);
    return *m;
  }
  if (text.find("nvbandwidth") != std::string::npos)
    throw InputError(file, 0, "nvbandwidth text output is not read: run nvbandwidth with -j (--json)");
  throw InputError(file, 0,
                   "not a measurement this tool reads (expected `nvbandwidth -j` JSON or p2pBandwidthLatencyTest "
                   "output)");
}

Measurement read_measurement(const std::string& path) {
  return reading_input(path, [&] { return parse_measurement(input_name(path), read_input_file(path)); });
}

std::vector<std::size_t> map_measured_devices(const Topology& t, const Measurement& m, std::string* assumption) {
  const std::size_t n = static_cast<std::size_t>(m.device_count);
  bool by_bus = !m.devices.empty();
  for (ComponentId g : t.gpus) by_bus = by_bus && !t.components[g].pci_bus_id.empty();
  std::vector<std::size_t> out(n);
  if (by_bus) {
    std::set<std::size_t> used;
    for (const MeasuredDevice& d : m.devices) {
      auto want = split_bus_id(d.pci_bus_id);
      std::optional<std::size_t> found;
      for (std::size_t i = 0; i < t.gpus.size() && want; ++i) {
        auto have = split_bus_id(t.components[t.gpus[i]].pci_bus_id);
        if (have && *have == *want) found = i;
      }
      if (!found) {
        std::string list;
        for (ComponentId g : t.gpus) list += (list.empty() ? "" : ", ") + t.components[g].pci_bus_id;
        throw InputError(m.file, d.line,
                         fmt::format("device {} ({}) is not a GPU of the topology (its GPUs: {})", d.index,
                                     d.pci_bus_id, list));
      }
      if (!used.insert(*found).second)
        throw InputError(m.file, d.line, fmt::format("device {}: bus id {} listed twice", d.index, d.pci_bus_id));
      out[static_cast<std::size_t>(d.index)] = *found;
    }
    if (assumption) *assumption = "matched by PCI bus id";
    return out;
  }
  if (n != t.gpus.size())
    throw InputError(m.file, 0,
                     fmt::format("{} devices measured but the topology has {} GPUs, and {} (no bus ids to match them "
                                 "by)",
                                 n, t.gpus.size(),
                                 m.devices.empty() ? "the file lists no devices" : "the topology's GPUs have no bus id"));
  std::iota(out.begin(), out.end(), std::size_t{0});
  if (assumption)
    *assumption = fmt::format("no bus ids to match: CUDA device i taken as GPU i ({})",
                              m.devices.empty() ? "the file lists no devices" : "the topology's GPUs have none");
  return out;
}

namespace {

// An element a measured route runs through: a directed link or a
// component's forwarding capacity.
struct Element {
  bool is_link = true;
  std::uint32_t id = 0;
  friend bool operator<(const Element& a, const Element& b) {
    return std::tie(a.is_link, a.id) < std::tie(b.is_link, b.id);
  }
};

// The lowest common ancestor of two components of a PCIe tree, kNone when
// they hang below different sockets.
ComponentId common_ancestor(const Topology& t, ComponentId a, ComponentId b) {
  std::set<ComponentId> up;
  for (ComponentId c = a; c != kNone; c = t.components[c].parent) up.insert(c);
  for (ComponentId c = b; c != kNone; c = t.components[c].parent)
    if (up.count(c)) return c;
  return kNone;
}

// Where the route turns (the header's step 3).
std::vector<Element> carriers(const Topology& t, ComponentId a, ComponentId b, const Route& r) {
  std::vector<Element> out;
  const ComponentId top = common_ancestor(t, a, b);
  if (top == kNone) {  // across sockets: the inter-socket links
    for (LinkId l : r.links)
      if (t.links[l].kind == LinkKind::inter_socket) out.push_back({true, l});
    return out;
  }
  const ComponentKind k = t.components[top].kind;
  if (k == ComponentKind::host_bridge || k == ComponentKind::cpu) return {{false, top}};
  // Below a PCIe switch: the links into and out of it.
  for (LinkId l : r.links)
    if (t.links[l].src == top || t.links[l].dst == top) out.push_back({true, l});
  return out;
}

std::string pair_name(std::size_t i, std::size_t j) { return fmt::format("GPU{}->GPU{}", i, j); }

}  // namespace

std::vector<std::string> apply_measurements(Topology& t, const std::vector<Measurement>& ms,
                                            const std::vector<std::uint32_t>& pair_orbit) {
  const std::size_t n = t.gpus.size();
  std::vector<std::string> warnings;
  // Samples per ordered pair of topology GPUs, and where each comes from.
  struct Sample {
    double gbps;
    std::string where;  // "p2p.txt:12"
  };
  std::vector<std::vector<Sample>> samples(n * n);
  for (const Measurement& m : ms) {
    std::string assumption;
    std::vector<std::size_t> map = map_measured_devices(t, m, &assumption);
    warnings.push_back(fmt::format("capacities measured: {} ({}, {}): {} GPU pairs, devices {}", m.name, m.format,
                                   m.matrix, m.pairs.size(), assumption));
    for (const std::string& note : m.notes) warnings.push_back(note);
    for (const PairMeasurement& p : m.pairs) {
      std::size_t i = map[static_cast<std::size_t>(p.src)], j = map[static_cast<std::size_t>(p.dst)];
      samples[i * n + j].push_back({p.gbps, source_place(m.name, p.line)});
    }
  }
  // Orbits of pairs: their mean (step 2).
  std::map<std::uint32_t, std::vector<std::size_t>> orbit_pairs;
  for (std::size_t p = 0; p < n * n; ++p) {
    if (p / n == p % n) continue;
    orbit_pairs[pair_orbit.empty() ? static_cast<std::uint32_t>(p) : pair_orbit[p]].push_back(p);
  }
  std::vector<double> target(n * n, 0.0);
  std::vector<std::string> origin(n * n);
  for (const auto& [orbit, pairs] : orbit_pairs) {
    double sum = 0;
    std::size_t count = 0;
    std::size_t lo = n * n, hi = n * n;
    auto mean_of = [&](std::size_t p) {
      double s = 0;
      for (const Sample& x : samples[p]) s += x.gbps;
      return s / static_cast<double>(samples[p].size());
    };
    for (std::size_t p : pairs) {
      if (samples[p].empty()) continue;
      for (const Sample& x : samples[p]) sum += x.gbps;
      count += samples[p].size();
      if (lo == n * n || mean_of(p) < mean_of(lo)) lo = p;
      if (hi == n * n || mean_of(p) > mean_of(hi)) hi = p;
      // One pair measured twice, differently.
      double a = samples[p].front().gbps, b = a;
      for (const Sample& x : samples[p]) a = std::min(a, x.gbps), b = std::max(b, x.gbps);
      if (b > a * (1 + kMeasuredDisagreement))
        warnings.push_back(fmt::format("measured {} differently: {:.2f} and {:.2f} GB/s; the mean is taken",
                                       pair_name(p / n, p % n), a, b));
    }
    if (count == 0) continue;
    // Equal figures keep their exact value (a sum of 32 times 14.2 over 32 is not).
    double smallest = samples[lo].front().gbps, largest = smallest;
    for (std::size_t p : pairs)
      for (const Sample& x : samples[p]) smallest = std::min(smallest, x.gbps), largest = std::max(largest, x.gbps);
    const double mean = smallest == largest ? smallest : sum / static_cast<double>(count);
    if (lo != hi && mean_of(hi) > mean_of(lo) * (1 + kMeasuredDisagreement))
      warnings.push_back(fmt::format(
          "{} ({}) {:.2f} GB/s and {} ({}) {:.2f} GB/s are symmetric (one orbit of the topology) but measured {:.0f}% "
          "apart; the orbit's {} pairs take the mean {:.2f} GB/s",
          pair_name(lo / n, lo % n), samples[lo].front().where, mean_of(lo), pair_name(hi / n, hi % n),
          samples[hi].front().where, mean_of(hi), (mean_of(hi) / mean_of(lo) - 1) * 100, pairs.size(), mean));
    const std::string where = samples[hi].front().where;
    const std::string of_orbit = count > 1 ? fmt::format(", the mean of its orbit's {} figures", count) : "";
    for (std::size_t p : pairs) {
      target[p] = mean;
      origin[p] = (samples[p].empty() ? fmt::format("{}, symmetric to {}", where, pair_name(hi / n, hi % n))
                                      : samples[p].front().where) +
                  of_orbit;
    }
  }
  // Step 3: the highest figure through each element, and which elements carry.
  std::map<Element, std::pair<double, std::size_t>> through;  // element -> (highest figure, its pair)
  std::set<Element> carrier;
  std::vector<Route> routes(n * n);
  for (std::size_t p = 0; p < n * n; ++p) {
    if (target[p] <= 0) continue;
    const ComponentId a = t.gpus[p / n], b = t.gpus[p % n];
    routes[p] = intra_node_route(t, a, b);
    std::vector<Element> els;
    for (LinkId l : routes[p].links) els.push_back({true, l});
    for (ComponentId f : routes[p].forwarders) els.push_back({false, f});
    std::vector<Element> carry = carriers(t, a, b, routes[p]);
    for (const Element& e : carry) {
      carrier.insert(e);
      els.push_back(e);
    }
    for (const Element& e : els) {
      auto it = through.find(e);
      if (it == through.end() || target[p] > it->second.first) through[e] = {target[p], p};
    }
  }
  auto basis_of = [&](std::size_t p) {
    return fmt::format("pair {} ({})", pair_name(p / n, p % n), origin[p]);
  };
  for (const auto& [e, best] : through) {
    const Capacity cap{best.first, CapacitySource::measured, basis_of(best.second)};
    if (e.is_link) {
      Link& l = t.links[e.id];
      if (carrier.count(e) || l.capacity.gbps < best.first) l.capacity = cap;
    } else {
      Component& c = t.components[e.id];
      if (carrier.count(e) || !c.forward || c.forward->gbps < best.first) c.forward = cap;
    }
  }
  // What the model now gives each measured pair.
  for (std::size_t p = 0; p < n * n; ++p) {
    if (target[p] <= 0) continue;
    const Route r = intra_node_route(t, t.gpus[p / n], t.gpus[p % n]);
    if (std::fabs(r.solo_gbps - target[p]) <= 1e-9 * target[p]) continue;
    // The carrier is shared with a faster measurement.
    std::size_t faster = p;
    for (const Element& e : carriers(t, t.gpus[p / n], t.gpus[p % n], r))
      if (through.at(e).first > target[faster]) faster = through.at(e).second;
    warnings.push_back(fmt::format("{} ({}) measured {:.2f} GB/s, but the model gives {:.2f} GB/s: its route turns "
                                   "where {} ({}) measured {:.2f} GB/s",
                                   pair_name(p / n, p % n), origin[p], target[p], r.solo_gbps,
                                   pair_name(faster / n, faster % n), origin[faster], target[faster]));
  }
  for (const std::string& w : warnings) t.warnings.push_back(w);
  return warnings;
}

}  // namespace vp
