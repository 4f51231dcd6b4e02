#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bdt
{

/// FNV-1a, 64 bits, fed incrementally: the `.bdt` payload checksum and `World::StateHash`. Every step is a
/// bijection of the running hash for a fixed byte, so any single changed byte changes the result. Not a
/// cryptographic hash. O(bytes), one multiply a byte.
class Fnv1a64
{
public:
    /// Hashes `inSize` bytes at `inData` (their bits as they lie in memory).
    void Add(const void* inData, std::size_t inSize)
    {
        const auto* bytes = static_cast<const unsigned char*>(inData);
        for (std::size_t k = 0; k < inSize; ++k)
            mHash = (mHash ^ bytes[k]) * 0x100000001b3ull;
    }
    void Add(std::span<const std::uint8_t> inBytes) { Add(inBytes.data(), inBytes.size()); }
    std::uint64_t Value() const { return mHash; }

    /// The hash of `inBytes` alone.
    static std::uint64_t Of(std::span<const std::uint8_t> inBytes)
    {
        Fnv1a64 hash;
        hash.Add(inBytes);
        return hash.Value();
    }

private:
    std::uint64_t mHash = 0xcbf29ce484222325ull;
};

} // namespace bdt
