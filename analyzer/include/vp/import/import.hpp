// Topology importers (docs/design.md §2). Each reads one source of topology facts
// and returns a single-node Topology (the JSON importer may return a whole
// cluster), canonicalized and finalized, with capacities derived through
// ImportOptions::defaults.
//
// Errors: every importer throws InputError naming the file, the line where the
// format has lines, and the reason. It never crashes on malformed input.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vp/topology/topology.hpp"

namespace vp {

enum class InputFormat : unsigned char { auto_detect, hwloc_xml, nccl_xml, nvidia_smi, json };
std::string_view to_string(InputFormat f);  // "auto", "hwloc", "nccl", "nvidia-smi", "json"
std::optional<InputFormat> parse_input_format(std::string_view s);

struct ImportOptions {
  CapacityDefaults defaults;
  // Node type name given to the imported node ("" = derived from the file name).
  std::string node_type;
  // The folder a cluster description's node-type files must lie in ("" =
  // the description's own folder; vp-analyze --cluster-root).
  std::string cluster_root;
};

// Guess the format from the content (not the file name): "<topology" ->
// hwloc_xml, "<system" -> nccl_xml, '{' -> json, a "GPU0" header row ->
// nvidia_smi. Throws InputError(path, 0, ...) when nothing matches.
InputFormat detect_format(const std::string& path, std::string_view content);

// Read `path` and import it in `format` (auto_detect: detect_format()).
Topology import_topology(const std::string& path, InputFormat format, const ImportOptions& opts);

// ---- the importers, one file each under analyzer/src/import/ -------------------
// hwloc XML v1/v2 through libhwloc (hwloc_import.cpp): `content` is the
// file's bytes, `path` names it in messages; the second form reads `path`
// with read_input_file() (the input limits, "-" for standard input).
Topology import_hwloc_xml(const std::string& path, std::string_view content, const ImportOptions& opts);
Topology import_hwloc_xml(const std::string& path, const ImportOptions& opts);
// Live probe of this machine through libhwloc (hwloc_import.cpp). Throws
// InputError("local machine", 0, "no GPU found ...") on a machine without GPUs.
Topology probe_local_machine(const ImportOptions& opts);
// NCCL topology XML, <system version="1"> (nccl_import.cpp).
Topology import_nccl_xml(const std::string& path, std::string_view content, const ImportOptions& opts);
// `nvidia-smi topo -m` text (nvsmi_import.cpp).
Topology import_nvidia_smi(const std::string& path, std::string_view content, const ImportOptions& opts);
// Our JSON (schemas/topology.schema.json) (json_topology.cpp).
Topology import_json(const std::string& path, std::string_view content, const ImportOptions& opts);

}  // namespace vp
