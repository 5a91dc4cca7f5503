// The machine model a catalog carries (format 1.2's machine_model section,
// SPEC.md §6.13) as the planner's MachineModel. Planner::init reads it, and
// plans under it unless PlanOptions::machine says otherwise.
//
//   vpcat::MachineModel m;
//   if (!vpcat::catalog_machine_model(view, &m)) m = vpcat::MachineModel();  // a 1.0 or 1.1 file: class defaults
#pragma once

#include <cstdint>
#include <cstring>

#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/machine_model.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// True, with *out the catalog's model, when `catalog` (verified) has a
// machine_model section; false, *out untouched, when it has none. The
// verifier proved the records' order, the values' ranges, at most
// MachineModel::kMaxFamilies families and each match within
// ForwarderFamily::kMatchBytes - 1 bytes, so the result is always valid
// (MachineModel::invalid_field() is nullptr).
inline bool catalog_machine_model(const CatalogView& catalog, MachineModel* out) noexcept {
  static_assert(MachineModel::kMaxFamilies == kMaxModelFamilies, "the format's family limit is the planner's");
  static_assert(ForwarderFamily::kMatchBytes == kMaxModelMatchBytes + 1, "a match and its NUL fill the planner's");
  if (!catalog.has_machine_model()) return false;
  MachineModel m = MachineModel::ideal();
  m.family_count = 0;
  for (std::uint32_t i = 0; i < catalog.model_entry_count(); ++i) {
    const ModelEntryView e = catalog.model_entry(i);
    switch (e.part) {
      case ModelPart::forwarder: m.forwarder = LossCurve{e.on, e.a, e.b}; break;
      case ModelPart::family: {
        ForwarderFamily& f = m.families[m.family_count++];
        f = ForwarderFamily{};
        std::memcpy(f.match, e.match.data(), e.match.size());
        f.curve = LossCurve{true, e.a, e.b};
        break;
      }
      case ModelPart::nic: m.nic = LossCurve{e.on, e.a, e.b}; break;
      case ModelPart::chunk:
        m.chunk_on = e.on;
        m.chunk_bytes = e.a;
        m.chunk_overhead_us = e.b;
        break;
    }
  }
  *out = m;
  return true;
}

}  // namespace v0_1
}  // namespace vpcat
