// The C API, opening and verifying a catalog (vpcat.h, section of the same name).
#include <cstring>
#include <new>

#include "c_api.hpp"

using namespace vpcat_c;

// ---- opening --------------------------------------------------------------------------------

vpcat_verify_options vpcat_verify_options_default(void) {
  const vpcat::VerifyOptions d;
  vpcat_verify_options o{};
  o.struct_size = sizeof o;
  o.max_sections = d.max_sections;
  o.max_file_size = d.max_file_size;
  o.max_nodes = d.max_nodes;
  o.max_tree_depth = d.max_tree_depth;
  return o;
}

vpcat_status vpcat_catalog_open_file(const char* path, const vpcat_verify_options* options, vpcat_catalog** out,
                                     vpcat_error* err) {
  static const char where[] = "vpcat_catalog_open_file";
  if (path == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "path is NULL");
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  vpcat::VerifyOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, where, &s)) return s;
  auto* cat = new (std::nothrow) vpcat_catalog;
  if (cat == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the catalog handle");
  vpcat::Status st = vpcat::MappedFile::open(path, &cat->file, o.max_file_size);
  if (st.ok()) st = vpcat::CatalogView::open(cat->file.data(), cat->file.size(), &cat->view, o);
  if (!st.ok()) {
    delete cat;
    return from(st, err);
  }
  *out = cat;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_open_buffer(const void* data, std::size_t size, unsigned flags,
                                       const vpcat_verify_options* options, vpcat_catalog** out, vpcat_error* err) {
  static const char where[] = "vpcat_catalog_open_buffer";
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  if ((flags & ~VPCAT_OPEN_COPY) != 0)
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "unknown flag bits 0x%x", flags & ~VPCAT_OPEN_COPY);
  vpcat::VerifyOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, where, &s)) return s;
  if (size > o.max_file_size)  // before copying anything
    return from(vpcat::Status::at(vpcat::Error::file_too_large, "buffer", vpcat::kNoOffset,
                                  "%llu bytes, limit max_file_size %llu", static_cast<unsigned long long>(size),
                                  static_cast<unsigned long long>(o.max_file_size)),
                err);
  auto* cat = new (std::nothrow) vpcat_catalog;
  if (cat == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the catalog handle");
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  if ((flags & VPCAT_OPEN_COPY) != 0 && data != nullptr && size != 0) {
    cat->copy = static_cast<unsigned char*>(::operator new(size, std::nothrow));
    if (cat->copy == nullptr) {
      delete cat;
      return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "copying %llu bytes", static_cast<unsigned long long>(size));
    }
    std::memcpy(cat->copy, data, size);
    bytes = cat->copy;
  }
  const vpcat::Status st = vpcat::CatalogView::open(bytes, size, &cat->view, o);
  if (!st.ok()) {
    delete cat;
    return from(st, err);
  }
  *out = cat;
  return VPCAT_OK;
}

vpcat_status vpcat_verify_buffer(const void* data, std::size_t size, const vpcat_verify_options* options,
                                 vpcat_error* err) {
  vpcat::VerifyOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, "vpcat_verify_buffer", &s)) return s;
  return from(vpcat::verify(static_cast<const std::uint8_t*>(data), size, nullptr, o), err);
}

void vpcat_catalog_destroy(vpcat_catalog* cat) { delete cat; }

