#pragma once

// What the fuzz targets share: their invariants' check and a reader of the input's bytes as values.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

namespace bdt::fuzz
{

/// Aborts with `inWhat` on stderr when `inFact` is false: a broken invariant is a crash to the fuzzer (and a
/// failure to the replay test), like a sanitizer report.
inline void Require(bool inFact, const char* inWhat)
{
    if (!inFact)
    {
        std::fprintf(stderr, "fuzz invariant broken: %s\n", inWhat);
        std::abort();
    }
}

/// The library's errors are one line (the tools prefix the file name): non-empty, no newline.
inline void CheckOneLine(const char* inMessage)
{
    Require(inMessage != nullptr && inMessage[0] != '\0', "an error without a message");
    Require(std::strchr(inMessage, '\n') == nullptr, "an error message of several lines");
}

/// Reads the input's bytes as values, from the end backwards (the front is the file itself, which the
/// fuzzer mutates for the parser); past the start it yields zeros.
class ByteSource
{
public:
    explicit ByteSource(std::span<const std::uint8_t> inBytes) : mBytes(inBytes), mEnd(inBytes.size()) {}

    std::uint32_t U32()
    {
        std::uint32_t value = 0;
        for (int k = 0; k < 4; ++k)
            value = (value << 8) | (mEnd > 0 ? mBytes[--mEnd] : 0u);
        return value;
    }
    /// Any float bit pattern: NaN, infinities, denormals and huge values included.
    float Float()
    {
        const std::uint32_t bits = U32();
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }

private:
    std::span<const std::uint8_t> mBytes;
    std::size_t mEnd;
};

} // namespace bdt::fuzz
