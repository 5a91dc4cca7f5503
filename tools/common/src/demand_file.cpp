#include "vp/cli/demand_file.hpp"

#include <fmt/format.h>

#include <optional>

#include "vp/base/input_file.hpp"
#include "vp/base/json_field.hpp"
#include "vpcat/planner/demand_check.hpp"

namespace vp::cli {

namespace {

using json::Field;
using json::Json;

// A planner status's message without its place ("demand [2][5]: "): the
// InputError it becomes names the place (the file's line and column, and the
// excerpt).
std::string reason_of(const vpcat::PlanStatus& status) {
  std::string what = status.message();
  const std::string::size_type colon = what.find(": ");
  if (colon != std::string::npos && what.rfind("demand", 0) == 0) what = what.substr(colon + 2);
  return what;
}

// The bytes of cell [s][t], `v`, the element `index` of `parent` (located
// only when refused): the planner's own check (demand_check.hpp), so that a
// file and the planner word a bad value alike.
std::uint64_t byte_count(const Json& v, const Field& parent, std::size_t index, std::uint64_t s, std::uint64_t t) {
  if (!v.is_number()) parent.at(index).number();  // fails: "must be a number, got ..."
  vpcat::PlanStatus status;
  std::uint64_t out = 0;
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
    status = vpcat::check_demand_count(out, s, t);
  } else {
    const double d = v.is_number_integer() ? static_cast<double>(v.get<std::int64_t>()) : v.get<double>();
    status = vpcat::check_demand_count(d, s, t);
    if (status.ok()) out = static_cast<std::uint64_t>(d);
  }
  if (!status.ok()) parent.at(index).fail(reason_of(status));
  return out;
}

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
  const std::string what = reason_of(status);
  if (!dense && status.names_cell() && status.entry_index() < entries.size())
    return document->error_at({std::string("entries"), static_cast<std::size_t>(status.entry_index())}, what);
  if (status.names_cell()) return error_at(status.entry_src(), status.entry_dst(), what);
  return error_at_gpus(what);
}

namespace {

DemandFile from_document(std::shared_ptr<const json::Document> doc) {
  const Field root(*doc);
  DemandFile out;
  out.path = doc->path();
  out.document = doc;
  root.allow_keys({"gpus", "bytes", "entries"});
  const auto n = static_cast<std::uint32_t>(root.at("gpus").integer(1, 0xFFFFFFFF));
  out.gpus = n;
  const std::optional<Field> dense = root.find("bytes"), sparse = root.find("entries");
  if (!dense && !sparse) root.fail("missing key \"bytes\" or \"entries\"");
  if (dense && sparse) {
    std::string second;  // the later of the two
    for (auto it = root.json().begin(); it != root.json().end(); ++it)
      if (it.key() == "bytes" || it.key() == "entries") second = it.key();
    root.at(second).fail("give \"bytes\" or \"entries\", not both");
  }
  out.dense = dense.has_value();
  // Values are read from the tree and located (a Field made) only when one
  // is refused: a matrix of a million numbers makes no million paths.
  if (out.dense) {
    const Json& rows = dense->json();
    dense->size();  // an array
    // Shapes first, in document order, so the first problem is reported.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Field row = dense->at(i);
      row.size();
      for (std::size_t j = 0; j < rows[i].size(); ++j) byte_count(rows[i][j], row, j, i, j);
    }
    if (rows.size() != n) dense->fail(fmt::format("has {} rows (\"gpus\" is {})", rows.size(), n));
    out.bytes.reserve(std::size_t{n} * n);
    for (std::size_t i = 0; i < n; ++i) {
      const Field row = dense->at(i);
      if (rows[i].size() != n) row.fail(fmt::format("has {} entries (\"gpus\" is {})", rows[i].size(), n));
      for (std::size_t j = 0; j < n; ++j) out.bytes.push_back(byte_count(rows[i][j], row, j, i, j));
    }
  } else {
    const Json& list = sparse->json();
    sparse->size();  // an array
    out.entries.reserve(list.size());
    for (std::size_t k = 0; k < list.size(); ++k) {
      const Field entry = sparse->at(k);
      const Json& e = list[k];
      entry.size();  // an array
      for (std::size_t j = 0; j < e.size(); ++j)
        if (!e[j].is_number()) entry.at(j).number();  // fails: "must be a number, got ..."
      if (e.size() != 3) entry.fail(fmt::format("must be [src, dst, bytes] (got {} numbers)", e.size()));
      const auto src = static_cast<std::uint32_t>(entry.at(0).integer(0, 0xFFFFFFFF));
      const auto dst = static_cast<std::uint32_t>(entry.at(1).integer(0, 0xFFFFFFFF));
      const std::uint64_t bytes = byte_count(e[2], entry, 2, src, dst);
      if (src >= n || dst >= n)
        entry.fail(fmt::format("{} {} is not a GPU (\"gpus\" is {})", src >= n ? "src" : "dst", src >= n ? src : dst, n));
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
