#pragma once

#include <bdt/core/AlignedAllocator.h>
#include <bdt/core/Model.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Topology of one BD-Tree node. Nodes are stored breadth first, so the nodes of levels 0..L are the
/// prefix [0, LevelEnd(L)) of the array: a body that traverses no deeper than L only ever touches, and
/// only caches, that prefix. 16 bytes.
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

/// The packed per-node data that the sphere update reads, one row of `RowStride(M)` floats per node:
///
///     [ c.x  c.y  c.z  R ]                     rest centre and wrapped radius (eq. 2)
///     [ Ū_j.x Ū_j.y Ū_j.z ΔR_j ]  j = 0..M-1   centre velocity per mode (eq. 5) and radius growth (eq. 7)
///     [ δR_tight  δR_coherence  0  0 ]         ‖U_i − Ū‖₂ and ‖U_i‖₂ maxima (tight bound and eq. 11)
///
/// so that one update is c' = c + Σ Ū_j q_j and R' = R + Σ ΔR_j |q_j|: a 4-wide multiply-add per mode,
/// exactly the paper's 8M flops. All values are rounded up and inflated by the float rounding error of
/// that update (see BDTree.cpp), so the float result is conservative for the exact deformed vertices.
struct NodeRowLayout
{
    static constexpr std::uint32_t RowStride(std::uint32_t inModes) { return 4 * (inModes + 2); }
    static constexpr std::uint32_t TightOffset(std::uint32_t inModes) { return 4 * (inModes + 1); }
};

/// A Bounded Deformation Tree (James & Pai 2004, §3): a binary sphere tree built on the undeformed model
/// whose spheres are updated from q alone, in any order, at 8M flops each.
///
/// Construction (§3.1): top-down median split of triangle centroids along the longest axis of their box,
/// one triangle per leaf by default; the model's triangles are reordered so each node covers a contiguous
/// range. Every node's sphere is the exact minimal enclosing sphere (Welzl) of its vertices, a *wrapped*
/// hierarchy. Per node and mode, Ū_j and ΔR_j are the centre and radius of the minimal sphere enclosing the
/// mode's displacement vectors {U_ij}: the smallest ΔR_j that eq. 6–7 allow with any Ū_j (the paper's
/// mean β_i = 1/|Λ| is one admissible choice; the centre of this sphere is another convex combination,
/// so eq. 5 still tracks an average point motion).
///
/// Immutable after `Build`; share it between bodies with `std::shared_ptr<const BDTree>`. It owns the
/// model, with triangles in tree order.
class BDTree
{
public:
    /// Builds the tree on `inModel` (copied, triangles reordered). Cost O(T log T + N·M·depth).
    /// Throws `bdt::Error` if the settings are impossible.
    static BDTree Build(const Model& inModel, const BDTreeSettings& inSettings = {},
                        const ProgressCallback& inProgress = {});

    /// Assembles a tree from stored arrays (the asset loader). Validates every index and size, and
    /// re-derives nothing: the rows are taken as stored. Throws `bdt::Error` on any inconsistency.
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
    /// One past the last node of level `inLevel` (clamped to the deepest level): nodes of levels
    /// 0..inLevel are [0, LevelEnd(inLevel)).
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

/// Calls `inCallback` for every node of `inNodes`, in order, with the vertices of the node's triangles of
/// `inModel` (the model in tree order): what every per-node bound is computed from. Cost O(Σ_nodes
/// 3·triangles) and one stamp per vertex.
void ForEachNodeVertices(const Model& inModel, std::span<const BDTreeNode> inNodes, const NodeVerticesCallback& inCallback);

/// The float rounding allowance γ used to inflate stored bounds for M modes: 4(M+4)·2⁻²⁴, a few times the
/// worst-case relative error of an (M+1)-term float dot product.
double FloatUpdateSlack(std::uint32_t inModes);

/// `inValue` converted to float and rounded towards +∞ (never smaller than the double).
float RoundUpToFloat(double inValue);

/// ‖A‖₂, the largest singular value of the 3×M matrix A whose columns are `inColumns`, from the eigenvalues
/// of A·Aᵀ, raised by 1e-9 relative so it is never below the exact value. Used for δR_tight and δR (eq. 10–11).
double SpectralNorm(std::span<const Vec3d> inColumns);

/// An upper bound on ‖A‖₂ for the same A, from the closed-form eigenvalues of the 3×3 A·Aᵀ (Eigen's
/// `computeDirect`) raised by 1e-9 of its trace, far above that solver's rounding, and never above
/// √trace (the Frobenius norm). Up to a few 1e-9 relative above `SpectralNorm`, and several times cheaper
/// (no iteration): for per-step bounds (`ProxyPairCache`'s turn) and per-node bake loops (`ContactProxies`).
double SpectralNormBound(std::span<const Vec3d> inColumns);

} // namespace bdt
