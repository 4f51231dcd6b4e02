#pragma once

#include <cstddef>

namespace bdt
{

/// Asks the processor to bring the `inBytes` bytes at `inAddress` into its cache, a cache line (64 bytes) at a
/// time: a hint for loops whose next items are scattered in memory (bodies, shapes, manifolds), issued a few
/// items ahead so the loop waits on one miss at a time instead of a chain of them. No effect on any result; a
/// null or dangling address is harmless (a prefetch never faults). One instruction per line.
inline void PrefetchBytes(const void* inAddress, std::size_t inBytes)
{
#if defined(__GNUC__) || defined(__clang__)
    for (std::size_t offset = 0; offset < inBytes; offset += 64)
        __builtin_prefetch(static_cast<const char*>(inAddress) + offset);
#else
    (void)inAddress;
    (void)inBytes;
#endif
}

} // namespace bdt
