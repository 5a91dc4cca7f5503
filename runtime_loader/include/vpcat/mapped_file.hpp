// A read-only file in memory: memory-mapped on POSIX systems, read into a
// heap buffer elsewhere. RAII: the bytes stay valid until the MappedFile is
// destroyed or moved from (moving keeps the bytes at the same address).
//
//   vpcat::CatalogFile cat;
//   vpcat::Status s = vpcat::CatalogFile::open("cluster.vpcat", &cat);
//   if (!s.ok()) { fprintf(stderr, "%s\n", s.message()); return 1; }
//   const vpcat::CatalogView& view = cat.view();
//
// Errors: io_error (cannot open, not a regular file, cannot map or read,
// with the system's reason; a file of size 0 that cannot be read, or that
// reads but states no size, as /proc files do) and file_too_large (checked
// before mapping).
// Thread safety: a MappedFile may be read from any number of threads.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "vpcat/catalog_view.hpp"
#include "vpcat/options.hpp"
#include "vpcat/status.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define VPCAT_HAVE_MMAP 1
#else
#define VPCAT_HAVE_MMAP 0
#endif

namespace vpcat {
inline namespace v0_1 {

class MappedFile {
 public:
  MappedFile() noexcept = default;
  ~MappedFile() { reset(); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), heap_(std::exchange(o.heap_, false)) {}
  MappedFile& operator=(MappedFile&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      heap_ = std::exchange(o.heap_, false);
    }
    return *this;
  }

  // A copy of the `size` bytes at `data` (a catalog read from a pipe, say),
  // owned by *out; `name` names it in errors. Errors: file_too_large (more
  // than max_size), io_error "out of memory". On failure *out is unchanged.
  static Status copy_of(const void* data, std::size_t size, const char* name, MappedFile* out,
                        std::uint64_t max_size = VerifyOptions().max_file_size) noexcept {
    if (size > max_size)
      return Status::at(Error::file_too_large, name, kNoOffset, "%llu bytes, limit max_file_size %llu",
                        static_cast<unsigned long long>(size), static_cast<unsigned long long>(max_size));
    MappedFile f;
    if (size > 0) {
      void* p = std::malloc(size);
      if (!p) return Status::at(Error::io_error, name, kNoOffset, "out of memory");
      std::memcpy(p, data, size);
      f.data_ = static_cast<const std::uint8_t*>(p);
      f.size_ = size;
      f.heap_ = true;
    }
    *out = std::move(f);
    return {};
  }

  // Open `path` read-only. On success *out holds the bytes (an empty file
  // gives data() == nullptr, size() == 0); on failure *out is unchanged.
  static Status open(const char* path, MappedFile* out, std::uint64_t max_size = VerifyOptions().max_file_size) noexcept {
    MappedFile f;
#if VPCAT_HAVE_MMAP
    // O_NONBLOCK: a FIFO with no writer is refused below (not a regular
    // file) instead of blocking open() for ever; it changes nothing for a
    // regular file.
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return system_error(path, "open");
    struct stat st;
    if (::fstat(fd, &st) != 0) return close_with(fd, system_error(path, "fstat"));
    if (!S_ISREG(st.st_mode))
      return close_with(fd, Status::at(Error::io_error, path, kNoOffset, "not a regular file"));
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_size)
      return close_with(fd, Status::at(Error::file_too_large, path, kNoOffset, "%llu bytes, limit max_file_size %llu",
                                       static_cast<unsigned long long>(size), static_cast<unsigned long long>(max_size)));
    if (size == 0) {
      // An empty file, or one whose size the kernel does not report
      // (/proc/self/mem): a read tells them apart, and an unreadable one is
      // an io_error, not an empty catalog.
      unsigned char probe = 0;
      const ::ssize_t got = ::read(fd, &probe, 1);
      if (got < 0) return close_with(fd, system_error(path, "read"));
      if (got > 0) return close_with(fd, Status::at(Error::io_error, path, kNoOffset, "not a regular file (no size)"));
    }
    if (size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) return close_with(fd, system_error(path, "mmap"));
      f.data_ = static_cast<const std::uint8_t*>(p);
      f.size_ = static_cast<std::size_t>(size);
    }
    ::close(fd);
#else
    std::FILE* file = std::fopen(path, "rb");
    if (!file) return system_error(path, "open");
    std::uint8_t chunk[65536];
    std::size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
      if (f.size_ + got > max_size) {
        std::fclose(file);
        return Status::at(Error::file_too_large, path, kNoOffset, "more than max_file_size %llu bytes",
                          static_cast<unsigned long long>(max_size));
      }
      auto* grown = static_cast<std::uint8_t*>(std::realloc(const_cast<std::uint8_t*>(f.data_), f.size_ + got));
      if (!grown) {
        std::fclose(file);
        return Status::at(Error::io_error, path, kNoOffset, "out of memory");
      }
      std::memcpy(grown + f.size_, chunk, got);
      f.data_ = grown;
      f.size_ += got;
    }
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed) return Status::at(Error::io_error, path, kNoOffset, "read failed");
#endif
    *out = std::move(f);
    return {};
  }

  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void reset() noexcept {
    if (!data_) return;
#if VPCAT_HAVE_MMAP
    if (!heap_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
    else std::free(const_cast<std::uint8_t*>(data_));
#else
    std::free(const_cast<std::uint8_t*>(data_));
#endif
    data_ = nullptr;
    size_ = 0;
    heap_ = false;
  }
  static Status system_error(const char* path, const char* call) noexcept {
    return Status::at(Error::io_error, path, kNoOffset, "%s: %s", call, std::strerror(errno));
  }
#if VPCAT_HAVE_MMAP
  static Status close_with(int fd, Status s) noexcept {
    ::close(fd);
    return s;
  }
#endif

  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool heap_ = false;  // malloc'd (copy_of) rather than mapped
};

// A mapped and verified catalog file. Sub-views taken from view() point to
// this object: keep it in place (do not move it) while they are in use.
class CatalogFile {
 public:
  static Status open(const char* path, CatalogFile* out, const VerifyOptions& options = VerifyOptions()) noexcept {
    MappedFile file;
    if (Status s = MappedFile::open(path, &file, options.max_file_size); !s.ok()) return s;
    CatalogView view;
    if (Status s = CatalogView::open(file.data(), file.size(), &view, options); !s.ok()) return s;
    out->file_ = std::move(file);
    out->view_ = view;
    return {};
  }
  // The same for a catalog already in memory (read from a pipe): verified in
  // a copy that *out owns (MappedFile::copy_of), `name` naming it in errors.
  static Status open_copy(const void* data, std::size_t size, const char* name, CatalogFile* out,
                          const VerifyOptions& options = VerifyOptions()) noexcept {
    MappedFile file;
    if (Status s = MappedFile::copy_of(data, size, name, &file, options.max_file_size); !s.ok()) return s;
    CatalogView view;
    if (Status s = CatalogView::open(file.data(), file.size(), &view, options); !s.ok()) return s;
    out->file_ = std::move(file);
    out->view_ = view;
    return {};
  }
  const CatalogView& view() const noexcept { return view_; }

 private:
  MappedFile file_;
  CatalogView view_;
};

}  // namespace v0_1
}  // namespace vpcat
