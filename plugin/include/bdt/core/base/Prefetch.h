#pragma once

#include <cstddef>

namespace bdt
{

/// Hints the processor to cache the `inBytes` bytes at `inAddress`, one instruction per 64-byte line; no effect
/// on any result, and harmless for a null or dangling address. For loops over scattered items, a few ahead.
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
