#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace bdt
{

/// Minimal allocator that aligns every block to `Alignment` bytes (a cache line by default), so the
/// packed per-node rows of a tree start on a cache line and SIMD loads never straddle an allocation.
template <class T, std::size_t Alignment = 64> struct AlignedAllocator
{
    using value_type = T;
    template <class U> struct rebind
    {
        using other = AlignedAllocator<U, Alignment>;
    };

    AlignedAllocator() = default;
    template <class U> AlignedAllocator(const AlignedAllocator<U, Alignment>&) noexcept {}

    T* allocate(std::size_t inCount)
    {
        return static_cast<T*>(::operator new(inCount * sizeof(T), std::align_val_t(Alignment)));
    }
    void deallocate(T* inPointer, std::size_t) noexcept { ::operator delete(inPointer, std::align_val_t(Alignment)); }

    template <class U> bool operator==(const AlignedAllocator<U, Alignment>&) const noexcept { return true; }
};

/// A std::vector whose storage starts on a 64-byte boundary.
template <class T> using AlignedVector = std::vector<T, AlignedAllocator<T>>;

} // namespace bdt
