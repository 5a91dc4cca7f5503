// A growable array of trivially copyable values that never throws: growth
// reports failure instead (the planner turns it into PlanError::out_of_memory),
// so the planner works the same with and without exceptions. Capacity is
// kept by clear() and never shrinks, which is what makes repeated plan()
// calls allocation-free. Memory comes from ::operator new(size, nothrow).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

template <class T>
class PodBuffer {
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                "PodBuffer holds plain values only");

 public:
  PodBuffer() noexcept = default;
  ~PodBuffer() { ::operator delete(data_); }
  PodBuffer(const PodBuffer&) = delete;
  PodBuffer& operator=(const PodBuffer&) = delete;
  PodBuffer(PodBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), cap_(std::exchange(o.cap_, 0)) {}
  PodBuffer& operator=(PodBuffer&& o) noexcept {
    if (this != &o) {
      ::operator delete(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }

  // Room for `n` values; false (and no change) when memory is short or the
  // byte count would overflow.
  bool reserve(std::size_t n) noexcept {
    if (n <= cap_) return true;
    if (n > SIZE_MAX / sizeof(T)) return false;
    std::size_t want = cap_ > SIZE_MAX / sizeof(T) / 2 ? n : cap_ * 2;
    if (want < n) want = n;
    if (want < 16) want = 16;
    if (want > SIZE_MAX / sizeof(T)) want = n;
    void* p = ::operator new(want * sizeof(T), std::nothrow);
    if (p == nullptr) return false;
    if (size_ != 0) std::memcpy(p, data_, size_ * sizeof(T));
    ::operator delete(data_);
    data_ = static_cast<T*>(p);
    cap_ = want;
    return true;
  }
  // Exactly `n` values: new ones are uninitialized.
  bool resize(std::size_t n) noexcept {
    if (!reserve(n)) return false;
    size_ = n;
    return true;
  }
  // Exactly `n` copies of `v`.
  bool assign(std::size_t n, const T& v) noexcept {
    if (!resize(n)) return false;
    for (std::size_t i = 0; i < n; ++i) data_[i] = v;
    return true;
  }
  // Append `n` copies of `v`.
  bool append(std::size_t n, const T& v) noexcept {
    const std::size_t old = size_;
    if (n > SIZE_MAX - old || !resize(old + n)) return false;
    for (std::size_t i = old; i < size_; ++i) data_[i] = v;
    return true;
  }
  bool push_back(const T& v) noexcept {
    if (size_ == cap_ && !reserve(size_ + 1)) return false;
    data_[size_++] = v;
    return true;
  }
  void clear() noexcept { size_ = 0; }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return cap_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0, cap_ = 0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
