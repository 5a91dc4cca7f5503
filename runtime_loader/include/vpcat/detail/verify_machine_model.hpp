// Verification, part 4: the optional machine_model section (format 1.2,
// SPEC.md §6.13). Internal to verify.hpp; runs after the string table is
// proven. Absent (a 1.0 or 1.1 file): nothing to check.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "vpcat/detail/verify_context.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class MachineModelVerifier {
 public:
  explicit MachineModelVerifier(const VerifyContext& c) noexcept : c_(c), r_(c.records(SectionType::machine_model)) {}

  Status run() const noexcept {
    if (c_.layout[SectionType::machine_model].offset == 0) return {};
    // The records' kinds: forwarder, family x (0..8), nic, chunk.
    std::uint32_t families = 0;
    for (std::uint32_t i = 0; i < r_.count(); ++i) {
      const std::uint8_t part = r_.u8(i, model_entry::part);
      if (part > static_cast<std::uint8_t>(ModelPart::chunk))
        return Status::in_section(Error::bad_enum, r_.type, r_.at(i, model_entry::part), "record %lu: part %u",
                                  ul(i), static_cast<unsigned>(part));
      const std::uint8_t expected = expected_part(i, families, part);
      if (part != expected)
        return Status::in_section(Error::bad_order, r_.type, r_.at(i, model_entry::part),
                                  "record %lu is a %s record where a %s record belongs (forwarder, its families, nic, "
                                  "chunk)",
                                  ul(i), model_part_name(part), i >= 3 + families ? "no" : model_part_name(expected));
      if (part == static_cast<std::uint8_t>(ModelPart::family) && ++families > kMaxModelFamilies)
        return Status::in_section(Error::bad_count, r_.type, r_.at(i, model_entry::part),
                                  "record %lu: more than %lu CPU families", ul(i), ul(kMaxModelFamilies));
      if (Status s = record(i, static_cast<ModelPart>(part)); !s.ok()) return s;
    }
    if (r_.count() != 3 + families)
      return Status::in_section(Error::bad_count, r_.type, r_.ref.offset + section::count,
                                "%lu records: a forwarder, its %lu families, a nic and a chunk record are %lu",
                                ul(r_.count()), ul(families), ul(3 + families));
    return {};
  }

 private:
  // What record i must be after `families` family records, given it is `part`.
  static std::uint8_t expected_part(std::uint32_t i, std::uint32_t families, std::uint8_t part) noexcept {
    if (i == 0) return static_cast<std::uint8_t>(ModelPart::forwarder);
    if (i == 1 + families && part == static_cast<std::uint8_t>(ModelPart::family))
      return part;  // another family (the count is checked by the caller)
    if (i == 1 + families) return static_cast<std::uint8_t>(ModelPart::nic);
    if (i == 2 + families) return static_cast<std::uint8_t>(ModelPart::chunk);
    return 0xFF;  // nothing after the chunk record
  }

  Status record(std::uint32_t i, ModelPart part) const noexcept {
    const std::uint8_t flags = r_.u8(i, model_entry::flags);
    // A family follows the forwarder's switch: its own bit is reserved.
    const std::uint8_t known = part == ModelPart::family ? 0 : kModelFlagsKnown;
    if ((flags & ~known) != 0)
      return Status::in_section(Error::reserved_flag, r_.type, r_.at(i, model_entry::flags), "record %lu: flags 0x%02x",
                                ul(i), static_cast<unsigned>(flags));
    if (Status s = c_.check_zero(r_.type, nullptr, r_.at(i, model_entry::reserved), 2); !s.ok()) return s;
    if (Status s = c_.check_string(r_, i, model_entry::match, "match"); !s.ok()) return s;
    if (Status s = c_.check_string(r_, i, model_entry::a_source, "a_source"); !s.ok()) return s;
    if (Status s = c_.check_string(r_, i, model_entry::b_source, "b_source"); !s.ok()) return s;
    const std::string_view match = string_at(c_.data, c_.layout, r_.u32(i, model_entry::match));
    if (part == ModelPart::family ? (match.empty() || match.size() > kMaxModelMatchBytes) : !match.empty())
      return Status::in_section(Error::bad_machine_model, r_.type, r_.at(i, model_entry::match),
                                "record %lu: %s", ul(i),
                                part == ModelPart::family ? "a family's match is 1 to 47 bytes"
                                                          : "only a family record has a match");
    const double a = r_.f64(i, model_entry::a), b = r_.f64(i, model_entry::b);
    if (part == ModelPart::chunk) {
      if (!positive_normal(a)) return number(i, model_entry::a, "bytes", a, "must be finite, normal and > 0");
      if (!positive_normal_or_zero(b)) return number(i, model_entry::b, "overhead_us", b, "must be 0 or finite, normal and > 0");
      return {};
    }
    if (!positive_normal_or_zero(a)) return number(i, model_entry::a, "slope", a, "must be 0 or finite, normal and > 0");
    if (!positive_normal(b) || b > 1.0) return number(i, model_entry::b, "floor", b, "must be normal and in (0, 1]");
    return {};
  }

  Status number(std::uint32_t i, std::size_t field, const char* what, double v, const char* why) const noexcept {
    return Status::in_section(Error::bad_number, r_.type, r_.at(i, field), "record %lu: %s %g %s", ul(i), what, v, why);
  }

  const VerifyContext& c_;
  Records r_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
