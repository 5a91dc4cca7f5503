// The free GPUs of a cluster, as `vp-catalog place --free FILE` reads them:
// one `HOSTS:GPUS` entry per line, HOSTS a hostlist (`gpu[01-04]`) and GPUS
// what a node's part of `--gpus` takes (local indexes and ranges joined by
// commas, `*` for all, or PCI bus ids): `gpu03:0-3,6`, `gpu[05-08]:*`. '#'
// starts a comment; blank lines are skipped; a node absent from the file has
// no free GPU. Each entry goes through the --gpus parser
// (vp/cli/subset_arg.hpp), so the grammar and its checks are one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vpcat/catalog_view.hpp"

namespace vp::catalog_cli {

struct FreeGpus {
  // Per catalog node, its free local GPU indexes, ascending.
  std::vector<std::vector<std::uint32_t>> by_node;
  std::uint64_t total = 0;
};

// Read `path`. Throws vp::InputError(path, line, reason) for an unreadable
// file, a malformed entry, a host or GPU the catalog does not have, a GPU
// listed twice (naming both lines) or a file that lists no GPU.
FreeGpus read_free_gpus(const std::string& path, const vpcat::CatalogView& view);

// The free GPUs as catalog-wide GPU indexes, node by node, ascending: what
// vpcat::place() (vpcat/placement.hpp) takes.
std::vector<std::uint64_t> free_gpu_list(const vpcat::CatalogView& view, const FreeGpus& free);

}  // namespace vp::catalog_cli
