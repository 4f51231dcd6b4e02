#pragma once

#include <bdt/core/BDTree.h>

#include <cstdint>
#include <cstring>

namespace bdt
{

/// The BD-Tree sphere update (paper §3.2, eq. 5 and 7) of one node row (`NodeRowLayout`):
///
///     c' = c + Σ_j Ū_j q_j,   R' = R + Σ_j ΔR_j |q_j|        (8M flops)
///
/// and with `Tight`, R' = min(R + ΔRᵀ|q|, R + δR_tight·‖q‖₂), both conservative (two more flops and a min).
/// `inQq` holds (q_j, q_j, q_j, |q_j|) for each mode, so every mode is one 4-wide multiply-add.
/// `inQNorm` is ‖q‖₂ (read only when `Tight`). Writes (c'.x, c'.y, c'.z, R') to `outSphere`.
/// Two independent accumulators (even and odd modes) keep two multiply-add chains in flight.
template <bool Tight>
inline void UpdateSphere(const float* inRow, const float* inQq, std::uint32_t inModes, float inQNorm, float* outSphere)
{
#if defined(__GNUC__) || defined(__clang__)
    typedef float Float4 __attribute__((vector_size(16)));
    Float4 acc0, acc1 = {0.0f, 0.0f, 0.0f, 0.0f};
    std::memcpy(&acc0, inRow, sizeof(Float4));
    const float* h = inRow + 4;
    std::uint32_t j = 0;
    for (; j + 1 < inModes; j += 2)
    {
        Float4 h0, h1, q0, q1;
        std::memcpy(&h0, h + 4 * j, sizeof(Float4));
        std::memcpy(&h1, h + 4 * j + 4, sizeof(Float4));
        std::memcpy(&q0, inQq + 4 * j, sizeof(Float4));
        std::memcpy(&q1, inQq + 4 * j + 4, sizeof(Float4));
        acc0 += h0 * q0;
        acc1 += h1 * q1;
    }
    if (j < inModes)
    {
        Float4 h0, q0;
        std::memcpy(&h0, h + 4 * j, sizeof(Float4));
        std::memcpy(&q0, inQq + 4 * j, sizeof(Float4));
        acc0 += h0 * q0;
    }
    acc0 += acc1;
    std::memcpy(outSphere, &acc0, sizeof(Float4));
#else
    float acc[4] = {inRow[0], inRow[1], inRow[2], inRow[3]};
    for (std::uint32_t j = 0; j < inModes; ++j)
        for (int k = 0; k < 4; ++k)
            acc[k] += inRow[4 + 4 * j + k] * inQq[4 * j + k];
    std::memcpy(outSphere, acc, sizeof(acc));
#endif
    if constexpr (Tight)
    {
        const float tight = inRow[3] + inRow[NodeRowLayout::TightOffset(inModes)] * inQNorm;
        outSphere[3] = tight < outSphere[3] ? tight : outSphere[3];
    }
}

} // namespace bdt
