// Verify an untrusted .vpcat buffer once; afterwards CatalogView reads it
// without further checks.
//
//   vpcat::Layout layout;
//   vpcat::Status s = vpcat::verify(data, size, &layout);
//   if (!s.ok()) fprintf(stderr, "%s\n", s.message());
//
// What is checked, in this order (SPEC.md "Verification" lists every rule):
// size limit, signature, major version, header fields, declared file size,
// header checksum, reserved header bytes; the section table (order, flags,
// alignment, bounds with overflow-proof `size <= file && offset <= file -
// size`); no overlap and zero padding; every section's CRC-32C; every
// required section present; each section's count against its size before
// anything is read from it; the string table; every cross reference (ids
// below their counts, ranges tiling their arrays, parents acyclic and linked,
// routes as paths between the right endpoints, their forwarders and solo
// rates as their paths imply, the machine model's records and values
// (format 1.2, when present), generators as kind-preserving permutations,
// orbits, orbit sizes against the group order, pattern roles in range and
// paired, node group prefix sums, fabric consistent with the nodes); every
// capacity a reader divides by finite, > 0 (or 0 where 0 means none) and
// normal; bus ids in one syntax.
//
// Guarantees: never reads outside [data, data + size) whatever the bytes;
// reports the first failure with its code, section and byte offset; work is
// linear in the file size (times max_tree_depth for the PCIe tree); the only
// allocation is one scratch byte per component of the largest node type,
// made after the counts were checked against the section sizes.
// Thread safety: none needed; verify() touches only its arguments.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/detail/verify_cluster.hpp"
#include "vpcat/detail/verify_machine_model.hpp"
#include "vpcat/detail/verify_node_types.hpp"
#include "vpcat/detail/verify_structure.hpp"
#include "vpcat/layout.hpp"
#include "vpcat/options.hpp"
#include "vpcat/status.hpp"

namespace vpcat {
inline namespace v0_1 {

// Verify `size` bytes at `data` (any alignment). On success fills *layout
// (when non-null) for CatalogView and returns an ok Status; on failure
// returns the first problem found and leaves *layout unspecified.
inline Status verify(const std::uint8_t* data, std::size_t size, Layout* layout,
                     const VerifyOptions& options = VerifyOptions()) noexcept {
  Layout local;
  detail::VerifyContext c{data, size, options, layout ? *layout : local};
  c.layout = Layout();
  if (data == nullptr && size != 0) return Status::at(Error::io_error, "file", kNoOffset, "no buffer");
  Status s = detail::verify_header(c);
  if (s.ok()) s = detail::verify_entries(c);
  if (s.ok()) s = detail::verify_placement(c);
  if (s.ok()) s = detail::verify_checksums(c);
  if (s.ok()) s = detail::verify_section_headers(c);
  if (s.ok()) s = detail::verify_strings(c);
  if (s.ok()) s = detail::NodeTypeVerifier(c).run();
  if (s.ok()) s = detail::ClusterVerifier(c).run();
  if (s.ok()) s = detail::MachineModelVerifier(c).run();
  return s;
}

}  // namespace v0_1
}  // namespace vpcat
