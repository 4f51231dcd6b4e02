#pragma once

#include <bdt/core/base/AlignedAllocator.h>
#include <bdt/core/bounds/BDTree.h>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace bdt
{

/// A BD-AABB row of `RowStride(M)` floats per node: [c, 0][h, 0] (rest centre, half extents), then per mode j
/// [Ū_j, 0][ΔB_j, 0] (centre velocity, half-extent growth): one 8-wide multiply-add a mode (§3.5, 12M flops).
struct NodeBoxLayout
{
    static constexpr std::uint32_t RowStride(std::uint32_t inModes) { return 8 * (inModes + 1); }
};

/// An updated box, axis-aligned in the body's rest frame: centre and half extents (model units).
struct alignas(32) UpdatedBox
{
    float center[3];
    float pad0;
    float halfExtents[3];
    float pad1;
};

/// A BD-AABB (§3.5): one box row per node of a `BDTree`, whose update c' = c + Σ_j Ū_j q_j,
/// h' = h + Σ_j ΔB_j |q_j| (eq. 6–7 per axis) holds every deformed vertex of the node, float rounding included.
/// Immutable after `Build`; share it between bodies. 32(M+1) bytes a node (a sphere row: 16(M+2)).
class BDAabbTree
{
public:
    /// Box rows for every node of `inTree`; throws `bdt::Error` if it is null. O(Σ_nodes |Λ|·M).
    static BDAabbTree Build(std::shared_ptr<const BDTree> inTree);

    const BDTree& Tree() const { return *mTree; }
    const std::shared_ptr<const BDTree>& TreePtr() const { return mTree; }
    std::uint32_t ModeCount() const { return mTree->ModeCount(); }

    /// Floats per row, `NodeBoxLayout::RowStride(M)`.
    std::uint32_t RowStride() const { return mRowStride; }
    /// Packed row of node `inNode` (see `NodeBoxLayout`).
    const float* Row(std::uint32_t inNode) const { return mRows.data() + std::size_t(inNode) * mRowStride; }

    /// Bytes of the box rows (the shared tree not counted).
    std::size_t MemoryBytes() const { return mRows.size() * sizeof(float); }

private:
    BDAabbTree() = default;

    std::shared_ptr<const BDTree> mTree;
    AlignedVector<float> mRows;
    std::uint32_t mRowStride = 0;
};

/// Fills `outQq` (8M floats) with (q_j, q_j, q_j, 0, |q_j|, |q_j|, |q_j|, 0) per mode: `UpdateBox`'s input.
inline void MakeBoxUpdateInput(std::span<const float> inQ, float* outQq)
{
    for (std::size_t j = 0; j < inQ.size(); ++j)
    {
        const float q = inQ[j];
        const float a = q < 0.0f ? -q : q;
        const float values[8] = {q, q, q, 0.0f, a, a, a, 0.0f};
        std::memcpy(outQq + 8 * j, values, sizeof(values));
    }
}

/// The BD-AABB update of one row into `outBox` (12M flops), `inQq` from `MakeBoxUpdateInput`.
inline void UpdateBox(const float* inRow, const float* inQq, std::uint32_t inModes, UpdatedBox& outBox)
{
#if defined(__GNUC__) || defined(__clang__)
    typedef float Float8 __attribute__((vector_size(32)));
    Float8 acc0, acc1 = {};
    std::memcpy(&acc0, inRow, sizeof(Float8));
    std::uint32_t j = 0;
    for (; j + 2 <= inModes; j += 2) // two independent chains
    {
        Float8 h0, h1, q0, q1;
        std::memcpy(&h0, inRow + 8 * (j + 1), sizeof(Float8));
        std::memcpy(&h1, inRow + 8 * (j + 2), sizeof(Float8));
        std::memcpy(&q0, inQq + 8 * j, sizeof(Float8));
        std::memcpy(&q1, inQq + 8 * (j + 1), sizeof(Float8));
        acc0 += h0 * q0;
        acc1 += h1 * q1;
    }
    if (j < inModes)
    {
        Float8 h0, q0;
        std::memcpy(&h0, inRow + 8 * (j + 1), sizeof(Float8));
        std::memcpy(&q0, inQq + 8 * j, sizeof(Float8));
        acc0 += h0 * q0;
    }
    acc0 += acc1;
    std::memcpy(&outBox, &acc0, sizeof(Float8));
#else
    float acc[8];
    std::memcpy(acc, inRow, sizeof(acc));
    for (std::uint32_t j = 0; j < inModes; ++j)
        for (int k = 0; k < 8; ++k)
            acc[k] += inRow[8 * (j + 1) + k] * inQq[8 * j + k];
    std::memcpy(&outBox, acc, sizeof(acc));
#endif
}

} // namespace bdt
