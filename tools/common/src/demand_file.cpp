#include "vp/cli/demand_file.hpp"

#include <fmt/format.h>

#include <cmath>

#include "vp/base/input_file.hpp"

namespace vp::cli {

namespace {

using json::Json;
using json::Path;

constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 63;

// "a string", "an object": a value that is not a number, in messages.
std::string kind_of(const Json& j) {
  if (j.is_string()) return "a string";
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  return "a number";
}

class Reader {
 public:
  explicit Reader(const json::Document& doc) : doc_(doc) {}

  [[noreturn]] void fail(const Path& where, const std::string& what) const { throw doc_.error_at(where, what); }
  // The number as written ("-1", "1e3"), for messages.
  std::string text(const Path& where) const { return std::string(doc_.source_of(where)); }

  std::uint32_t gpus(const Json& v) const {
    const Path where{std::string("gpus")};
    if (!v.is_number()) fail(where, fmt::format("\"gpus\" must be a positive integer (got {})", kind_of(v)));
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 || v.get<std::uint64_t>() > 0xFFFFFFFFu)
      fail(where, fmt::format("\"gpus\" must be a positive integer (got {})", text(where)));
    return static_cast<std::uint32_t>(v.get<std::uint64_t>());
  }

  // A whole number of bytes from 0 to 2^63.
  std::uint64_t byte_count(const Json& v, const Path& where, const std::string& name) const {
    if (!v.is_number()) fail(where, fmt::format("{} must be a number (got {})", name, kind_of(v)));
    bool ok = false;
    std::uint64_t out = 0;
    if (v.is_number_unsigned()) {
      out = v.get<std::uint64_t>();
      ok = out <= kMaxBytes;
    } else if (v.is_number_integer()) {
      ok = v.get<std::int64_t>() == 0;  // -0
    } else {
      const double d = v.get<double>();
      ok = d >= 0 && d == std::floor(d) && d <= 9.2233720368547758e18;
      if (ok) out = static_cast<std::uint64_t>(d);
    }
    if (!ok)
      fail(where, fmt::format("{} is not a byte count ({}: must be a whole number from 0 to 2^63)", name, text(where)));
    return out;
  }

  std::uint32_t gpu_index(const Json& v, const Path& where, const std::string& name) const {
    if (!v.is_number()) fail(where, fmt::format("{} must be a number (got {})", name, kind_of(v)));
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 0xFFFFFFFFu)
      fail(where, fmt::format("{} is not a GPU index ({}: must be a whole number >= 0)", name, text(where)));
    return static_cast<std::uint32_t>(v.get<std::uint64_t>());
  }

  const Json& array(const Json& v, const Path& where, const std::string& name) const {
    if (!v.is_array()) fail(where, fmt::format("{} must be an array (got {})", name, kind_of(v)));
    return v;
  }

 private:
  const json::Document& doc_;
};

}  // namespace

vpcat::Demand DemandFile::view() const {
  if (dense) return vpcat::Demand::dense(bytes.data(), gpus);
  return vpcat::Demand::sparse(entries.data(), entries.size(), gpus);
}

InputError DemandFile::error_at_gpus(const std::string& reason) const {
  return document->error_at({std::string("gpus")}, reason);
}

InputError DemandFile::error_at(std::uint64_t src, std::uint64_t dst, const std::string& reason) const {
  if (dense) {
    if (src < gpus && dst < gpus) return document->error_at({std::string("bytes"), src, dst}, reason);
  } else {
    for (std::size_t k = 0; k < entries.size(); ++k)
      if (entries[k].src == src && entries[k].dst == dst) return document->error_at({std::string("entries"), k}, reason);
  }
  return error_at_gpus(reason);
}

InputError DemandFile::refusal(const vpcat::PlanStatus& status) const {
  std::string what = status.message();
  const std::string::size_type colon = what.find(": ");
  if (colon != std::string::npos && what.rfind("demand", 0) == 0) what = what.substr(colon + 2);
  if (!dense && status.names_cell() && status.entry_index() < entries.size())
    return document->error_at({std::string("entries"), static_cast<std::size_t>(status.entry_index())}, what);
  if (status.names_cell()) return error_at(status.entry_src(), status.entry_dst(), what);
  return error_at_gpus(what);
}

namespace {

DemandFile from_document(std::shared_ptr<const json::Document> doc) {
  const Json& root = doc->root();
  const Reader r(*doc);
  DemandFile out;
  out.path = doc->path();
  out.document = doc;
  if (!root.is_object())
    r.fail({}, fmt::format("the demand must be an object {{\"gpus\": n, \"bytes\" or \"entries\": [...]}} (got {})",
                           kind_of(root)));
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.key() != "gpus" && it.key() != "bytes" && it.key() != "entries")
      r.fail({it.key()}, fmt::format("unknown key \"{}\" (expected \"gpus\", \"bytes\" or \"entries\")", it.key()));
  const auto gpus = root.find("gpus");
  if (gpus == root.end()) r.fail({}, "missing key \"gpus\" (the number of GPUs)");
  const std::uint32_t n = r.gpus(*gpus);
  out.gpus = n;
  const auto dense = root.find("bytes");
  const auto sparse = root.find("entries");
  if (dense == root.end() && sparse == root.end()) r.fail({}, "missing key \"bytes\" or \"entries\"");
  if (dense != root.end() && sparse != root.end()) {
    std::string second;  // the later of the two
    for (auto it = root.begin(); it != root.end(); ++it)
      if (it.key() == "bytes" || it.key() == "entries") second = it.key();
    r.fail({second}, "give \"bytes\" or \"entries\", not both");
  }
  out.dense = dense != root.end();
  if (out.dense) {
    const Json& rows = r.array(*dense, {std::string("bytes")}, "\"bytes\"");
    // Shapes first, in document order, so the first problem is reported.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string name = fmt::format("bytes[{}]", i);
      const Json& row = r.array(rows[i], {std::string("bytes"), i}, name);
      for (std::size_t j = 0; j < row.size(); ++j)
        r.byte_count(row[j], {std::string("bytes"), i, j}, fmt::format("{}[{}]", name, j));
    }
    if (rows.size() != n)
      r.fail({std::string("bytes")}, fmt::format("bytes has {} rows (\"gpus\" is {})", rows.size(), n));
    out.bytes.reserve(std::size_t{n} * n);
    for (std::size_t i = 0; i < n; ++i) {
      if (rows[i].size() != n)
        r.fail({std::string("bytes"), i}, fmt::format("bytes[{}] has {} entries (\"gpus\" is {})", i, rows[i].size(), n));
      for (std::size_t j = 0; j < n; ++j) out.bytes.push_back(r.byte_count(rows[i][j], {std::string("bytes"), i, j}, ""));
    }
  } else {
    const Json& list = r.array(*sparse, {std::string("entries")}, "\"entries\"");
    out.entries.reserve(list.size());
    for (std::size_t k = 0; k < list.size(); ++k) {
      const Path where{std::string("entries"), k};
      const std::string name = fmt::format("entries[{}]", k);
      const Json& e = r.array(list[k], where, name);
      if (e.size() != 3) {
        for (std::size_t j = 0; j < e.size(); ++j)
          if (!e[j].is_number())
            r.fail({std::string("entries"), k, j}, fmt::format("{}[{}] must be a number (got {})", name, j, kind_of(e[j])));
        r.fail(where, fmt::format("{} must be [src, dst, bytes] (got {} numbers)", name, e.size()));
      }
      const std::uint32_t src = r.gpu_index(e[0], {std::string("entries"), k, std::size_t{0}}, name + "[0]");
      const std::uint32_t dst = r.gpu_index(e[1], {std::string("entries"), k, std::size_t{1}}, name + "[1]");
      const std::uint64_t bytes = r.byte_count(e[2], {std::string("entries"), k, std::size_t{2}}, name + "[2]");
      if (src >= n || dst >= n)
        r.fail(where, fmt::format("{}: {} {} is not a GPU (\"gpus\" is {})", name, src >= n ? "src" : "dst",
                                  src >= n ? src : dst, n));
      out.entries.push_back({src, dst, bytes});
    }
  }
  return out;
}

}  // namespace

DemandFile parse_demand(const std::string& path, const std::string& text) {
  return from_document(std::make_shared<const json::Document>(path, text, json::ParseOptions{true}));
}

DemandFile read_demand_file(const std::string& path) {
  return reading_input(path, [&] {
    return from_document(std::make_shared<const json::Document>(json::Document::read_file(path, json::ParseOptions{true})));
  });
}

}  // namespace vp::cli
