#pragma once

#include <bdt/core/base/AlignedAllocator.h>
#include <bdt/core/model/Model.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Topology of one BD-Tree node, 16 bytes. Stored breadth first: levels 0..L are the prefix [0, LevelEnd(L)).
struct BDTreeNode
{
    std::uint32_t firstChild = 0;    ///< Index of the first child; the second is firstChild + 1. 0 for a leaf.
    std::uint32_t firstTriangle = 0; ///< First triangle (in the tree's triangle order) under this node.
    std::uint32_t triangleCount = 0; ///< The node covers triangles [firstTriangle, firstTriangle + triangleCount).
    std::uint16_t level = 0;         ///< Depth: the root is level 0.
    std::uint16_t reserved = 0;

    bool IsLeaf() const { return firstChild == 0; }
};
static_assert(sizeof(BDTreeNode) == 16, "BDTreeNode is kept at 16 bytes");

/// Options of `BDTree::Build`.
struct BDTreeSettings
{
    std::uint32_t maxLeafTriangles = 1; ///< A node with more triangles is split (the paper: one per leaf).
};

/// Called by long builds with a stage name and a fraction in [0, 1].
using ProgressCallback = std::function<void(const char* inStage, double inFraction)>;

/// A node's sphere row, `RowStride(M)` floats: [c, R] (eq. 2), per mode [Ū_j, ΔR_j] (eq. 5, 7), then
/// [δR_tight, δR_coherence, 0, 0] (eq. 11); rounded up so the float update (8M flops) stays conservative.
struct NodeRowLayout
{
    static constexpr std::uint32_t RowStride(std::uint32_t inModes) { return 4 * (inModes + 2); }
    static constexpr std::uint32_t TightOffset(std::uint32_t inModes) { return 4 * (inModes + 1); }
};

/// A Bounded Deformation Tree (James & Pai 2004, §3): a wrapped binary sphere tree of the rest model whose
/// spheres are updated from q alone, in any order, at 8M flops each (§3.1 build: docs/TUNING.md#bdtree).
/// Immutable after `Build`; share it with `std::shared_ptr<const BDTree>`. Owns the model, in tree order.
class BDTree
{
public:
    /// Builds the tree on `inModel` (copied, triangles reordered). Cost O(T log T + N·M·depth).
    /// Throws `bdt::Error` if the settings are impossible.
    static BDTree Build(const Model& inModel, const BDTreeSettings& inSettings = {},
                        const ProgressCallback& inProgress = {});

    /// A tree from stored arrays (the asset loader), rows taken as stored. Throws `bdt::Error` on any
    /// inconsistent index or size.
    static BDTree FromParts(std::shared_ptr<const Model> inModel, std::vector<BDTreeNode> inNodes,
                            std::span<const float> inRows, std::vector<std::uint32_t> inTriangleOrder);

    const Model& GetModel() const { return *mModel; }
    const std::shared_ptr<const Model>& ModelPtr() const { return mModel; }
    std::uint32_t ModeCount() const { return mModel->ModeCount(); }

    std::uint32_t NodeCount() const { return static_cast<std::uint32_t>(mNodes.size()); }
    std::span<const BDTreeNode> Nodes() const { return mNodes; }
    const BDTreeNode& Node(std::uint32_t inIndex) const { return mNodes[inIndex]; }

    /// Number of levels (max level + 1).
    std::uint32_t LevelCount() const { return static_cast<std::uint32_t>(mLevelEnd.size()); }
    /// One past the last node of level `inLevel` (clamped to the deepest): levels 0..inLevel are [0, LevelEnd).
    std::uint32_t LevelEnd(std::uint32_t inLevel) const;
    /// First node of level `inLevel`.
    std::uint32_t LevelBegin(std::uint32_t inLevel) const { return inLevel == 0 ? 0 : LevelEnd(inLevel - 1); }

    /// Floats per row, `NodeRowLayout::RowStride(M)`.
    std::uint32_t RowStride() const { return mRowStride; }
    /// Packed row of node `inIndex` (see `NodeRowLayout`).
    const float* Row(std::uint32_t inIndex) const { return mRows.data() + std::size_t(inIndex) * mRowStride; }
    std::span<const float> Rows() const { return {mRows.data(), mRows.size()}; }

    /// Tree triangle k is triangle `TriangleOrder()[k]` of the model given to `Build`.
    std::span<const std::uint32_t> TriangleOrder() const { return mTriangleOrder; }

    /// Bytes held by the tree and its model (for memory budgets).
    std::size_t MemoryBytes() const;

private:
    BDTree() = default;
    void ComputeLevels();

    std::shared_ptr<const Model> mModel;
    std::vector<BDTreeNode> mNodes;
    AlignedVector<float> mRows;
    std::vector<std::uint32_t> mTriangleOrder;
    std::vector<std::uint32_t> mLevelEnd;
    std::uint32_t mRowStride = 0;
};

/// Receives a node's index and its vertices (each once, in first-seen order), indices into the model.
using NodeVerticesCallback = std::function<void(std::uint32_t inNode, std::span<const std::uint32_t> inVertices)>;

/// Calls `inCallback` for every node of `inNodes`, in order, with its triangles' vertices in `inModel` (tree
/// order). O(Σ_nodes 3·triangles).
void ForEachNodeVertices(const Model& inModel, std::span<const BDTreeNode> inNodes, const NodeVerticesCallback& inCallback);

/// The float rounding allowance γ = 4(M+4)·2⁻²⁴ that inflates stored bounds for M modes.
double FloatUpdateSlack(std::uint32_t inModes);

/// `inValue` converted to float and rounded towards +∞ (never smaller than the double).
float RoundUpToFloat(double inValue);

/// ‖A‖₂ of the 3×M matrix of columns `inColumns`, raised by 1e-9 relative to stay above the exact value
/// (δR_tight, δR of eq. 10–11).
double SpectralNorm(std::span<const Vec3d> inColumns);

/// An upper bound on ‖A‖₂, at most √trace(AAᵀ) and a few 1e-9 relative above `SpectralNorm`, several times
/// cheaper (closed form, no iteration): for per-step and per-node loops.
double SpectralNormBound(std::span<const Vec3d> inColumns);

} // namespace bdt
