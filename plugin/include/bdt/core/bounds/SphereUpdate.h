#pragma once

#include <bdt/core/bounds/BDTree.h>

#include <cstdint>
#include <cstring>

namespace bdt
{

/// The tight bound's radius: the smaller of the paper's `inPaperRadius` and R + δR_tight·‖q‖₂.
inline float TightRadius(const float* inRow, std::uint32_t inModes, float inQNorm, float inPaperRadius)
{
    const float tight = inRow[3] + inRow[NodeRowLayout::TightOffset(inModes)] * inQNorm;
    return tight < inPaperRadius ? tight : inPaperRadius;
}

/// The sphere update (§3.2, eq. 5, 7) of one `NodeRowLayout` row into `outSphere` as (c', R'):
/// c' = c + Σ_j Ū_j q_j, R' = R + Σ_j ΔR_j |q_j| (8M flops), or `TightRadius` if `Tight`.
/// `inQq` holds (q_j, q_j, q_j, |q_j|) per mode; `inQNorm` is ‖q‖₂.
template <bool Tight>
inline void UpdateSphere(const float* inRow, const float* inQq, std::uint32_t inModes, float inQNorm, float* outSphere)
{
#if defined(__GNUC__) || defined(__clang__)
    // Modes are taken two at a time as one 8-wide multiply-add (a single AVX instruction where available,
    // two SSE ones otherwise), on two independent chains.
    typedef float Float4 __attribute__((vector_size(16)));
    typedef float Float8 __attribute__((vector_size(32)));
    Float8 acc0 = {}, acc1 = {};
    const float* h = inRow + 4;
    std::uint32_t j = 0;
    for (; j + 4 <= inModes; j += 4)
    {
        Float8 h0, h1, q0, q1;
        std::memcpy(&h0, h + 4 * j, sizeof(Float8));
        std::memcpy(&h1, h + 4 * j + 8, sizeof(Float8));
        std::memcpy(&q0, inQq + 4 * j, sizeof(Float8));
        std::memcpy(&q1, inQq + 4 * j + 8, sizeof(Float8));
        acc0 += h0 * q0;
        acc1 += h1 * q1;
    }
    for (; j + 2 <= inModes; j += 2)
    {
        Float8 h0, q0;
        std::memcpy(&h0, h + 4 * j, sizeof(Float8));
        std::memcpy(&q0, inQq + 4 * j, sizeof(Float8));
        acc0 += h0 * q0;
    }
    acc0 += acc1;
    Float4 sum, base;
    std::memcpy(&base, inRow, sizeof(Float4));
    sum = base + Float4{acc0[0], acc0[1], acc0[2], acc0[3]} + Float4{acc0[4], acc0[5], acc0[6], acc0[7]};
    if (j < inModes)
    {
        Float4 h0, q0;
        std::memcpy(&h0, h + 4 * j, sizeof(Float4));
        std::memcpy(&q0, inQq + 4 * j, sizeof(Float4));
        sum += h0 * q0;
    }
    if constexpr (Tight)
        sum[3] = TightRadius(inRow, inModes, inQNorm, sum[3]);
    // One 16-byte store: a readback of the sphere then forwards from it (a separate store of the radius
    // would stall that load by a dozen cycles).
    std::memcpy(outSphere, &sum, sizeof(Float4));
#else
    float acc[4] = {inRow[0], inRow[1], inRow[2], inRow[3]};
    for (std::uint32_t j = 0; j < inModes; ++j)
        for (int k = 0; k < 4; ++k)
            acc[k] += inRow[4 + 4 * j + k] * inQq[4 * j + k];
    if constexpr (Tight)
        acc[3] = TightRadius(inRow, inModes, inQNorm, acc[3]);
    std::memcpy(outSphere, acc, sizeof(acc));
#endif
}

} // namespace bdt

namespace bdt
{

/// Updates `inCount` consecutive rows (stride `NodeRowLayout::RowStride(inModes)`) into `outSpheres`, 4 floats
/// each, in one branch-free loop.
using SphereBatchKernel = void (*)(const float* inRows, std::uint32_t inCount, const float* inQq,
                                   std::uint32_t inModes, float inQNorm, float* outSpheres);

/// The batch kernel for a bound and a mode count: specialised (fully unrolled) for M ≤ 16, generic above.
SphereBatchKernel SelectSphereKernel(bool inTight, std::uint32_t inModes);

} // namespace bdt
