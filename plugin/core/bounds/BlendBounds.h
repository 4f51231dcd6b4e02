#pragma once

#include <array>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/BlendedMesh.h>
#include <bdt/core/geometry/Contact.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Which k-DOP bounds a node in the deformed state.
enum class EDop : std::uint8_t
{
    Box6,  ///< 6-DOP (an AABB): the axes x, y, z.
    Dop14, ///< 14-DOP: the axes and the four body diagonals (±1, ±1, ±1), integer directions as in k-DOP
           ///< trees.
};

/// A k-DOP in world: along each axis a (`DopAxes`: x, y, z, then for a 14-DOP (1,1,1), (1,1,−1), (1,−1,1),
/// (1,−1,−1), not normalised) the interval [lo_a, hi_a] of the projections d_a·x of its points.
struct Dop
{
    std::array<double, 7> lo{};
    std::array<double, 7> hi{};
};

/// The 7 directions of the 14-DOP's axes (the first 3 are the AABB's).
const std::array<Vec3d, 7>& DopAxes();
/// Axes of a kind: 3 or 7.
inline int AxisCount(EDop inKind)
{
    return inKind == EDop::Box6 ? 3 : 7;
}

/// The tight bounds of Steinemann, Otaduy & Gross 2008 for a `BlendedMesh`: a bounding-volume tree (the
/// BD-Tree's median split on the rest mesh, one triangle a leaf) whose node k-DOPs are refitted from the n
/// node transforms alone, O(n) per direction, independent of the vertex count (§5).
///
/// Per node it stores the rest box B₀ of its vertices (an AABB, §4.1) and, for each node j influencing them,
/// the least and largest weight l_j, h_j of j over the node's vertices (0 where a vertex does not name j).
/// The refit (§5.4): each transform T_j maps B₀ to a parallelepiped whose extent along a direction d is
/// b_j = d·(A_j c₀ + t_j) + Σ_i h₀_i |d·A_j e_i| (Lemma 1); every deformed vertex of the node lies in the
/// convex combination Σ w̃_j D_j with w̃ in the limited convex weight space {l ≤ w ≤ h, Σ w = 1} (eq. 8–9); its
/// extreme along d is at most
///
///     b = h_{j1} b_{j1} + (1 − h_{j1} − Σ_{j∉{j1,j2}} l_j) b_{j2} + Σ_{j∉{j1,j2}} l_j b_j         (eq. 12)
///
/// with j1, j2 the nodes of the largest and second largest b_j, which this code proves again in
/// `BlendBounds.cpp` (the greedy maximum of the linear program is never above it). Immutable; shared.
class BlendBoundsTree
{
public:
    /// Builds the tree on `inMesh` (not null; throws `bdt::Error`). Cost O(T log T + Σ_nodes |Λ|·weights).
    static BlendBoundsTree Build(std::shared_ptr<const BlendedMesh> inMesh);

    const BlendedMesh& Mesh() const { return *mMesh; }
    /// The topology: nodes, levels and triangle order (its model is the rest mesh with M = 0).
    const BDTree& Topology() const { return *mTopology; }
    /// Triangle `inTreeTriangle` of the tree's order, as vertex indices of the mesh.
    const Triangle& TreeTriangle(std::uint32_t inTreeTriangle) const
    {
        return mTopology->GetModel().Triangles()[inTreeTriangle];
    }

    /// A node's influence of simulation node `node`: the least and largest weight over the node's vertices.
    struct Influence
    {
        std::uint32_t node = 0;
        float low = 0.0f;  ///< l_j
        float high = 0.0f; ///< h_j
    };
    std::span<const Influence> Influences(std::uint32_t inNode) const
    {
        return std::span<const Influence>(mInfluences)
            .subspan(mInfluenceStart[inNode], mInfluenceStart[inNode + 1] - mInfluenceStart[inNode]);
    }
    /// The rest box of node `inNode`: centre and half extents.
    const Vec3d& RestCentre(std::uint32_t inNode) const { return mRestCentre[inNode]; }
    const Vec3d& RestHalf(std::uint32_t inNode) const { return mRestHalf[inNode]; }
    /// Σ_j l_j of node `inNode` (cached for the refit).
    double LowSum(std::uint32_t inNode) const { return mLowSum[inNode]; }

    /// The unique vertices of node `inNode` (for exact leaf bounds and the optimal bounds of the tests).
    std::span<const std::uint32_t> NodeVertices(std::uint32_t inNode) const
    {
        return std::span<const std::uint32_t>(mVertices).subspan(
            mVertexStart[inNode], mVertexStart[inNode + 1] - mVertexStart[inNode]);
    }

    std::size_t MemoryBytes() const;

private:
    BlendBoundsTree() = default;

    std::shared_ptr<const BlendedMesh> mMesh;
    std::shared_ptr<const BDTree> mTopology;
    std::vector<Vec3d> mRestCentre, mRestHalf;
    std::vector<double> mLowSum;
    std::vector<Influence> mInfluences;
    std::vector<std::uint32_t> mInfluenceStart;
    std::vector<std::uint32_t> mVertices;
    std::vector<std::uint32_t> mVertexStart;
};

/// The k-DOP of node `inNode` from the transforms by eq. 12 (O(n) per direction for n influencing nodes),
/// raised by 1e-9 of the magnitudes involved against rounding (weights are stored in float and sum to 1 only
/// to float precision: that error is covered too). `inTransforms` has the mesh's node count.
Dop RefitDop(const BlendBoundsTree& inTree, std::uint32_t inNode,
             std::span<const AffineTransform> inTransforms, EDop inKind);

/// The tightest k-DOP of the node's deformed vertices (their projections' minima and maxima), raised as
/// `RefitDop` is: the optimal bound, O(|Λ|·weights). What leaves use, and the reference of tightness figures.
Dop ExactDop(const BlendBoundsTree& inTree, std::uint32_t inNode,
             std::span<const AffineTransform> inTransforms, EDop inKind);

/// Half the diagonal of a k-DOP's box part (its x, y, z intervals): the "radius" the paper compares (§6).
double DopRadius(const Dop& inDop);

/// Whether two k-DOPs of the kind overlap (every axis's intervals meet).
bool DopsOverlap(const Dop& inA, const Dop& inB, EDop inKind);

/// Per body: the node transforms of the step and the lazily refitted k-DOPs. A node's k-DOP is refitted on
/// its first visit in a step (eq. 12 for inner nodes, exactly from the deformed vertices at the leaves,
/// §4.2). With front tracking (§4.2), a new step first refits the nodes at the bottom of last step's visited
/// subtree by eq. 12 and every visited node above them by bounding its two children (a few comparisons), so
/// the coarse levels no longer pay O(n) each; below the front, nodes are refitted on demand as before. One
/// thread at a time.
class BlendBoundsState
{
public:
    BlendBoundsState(std::shared_ptr<const BlendBoundsTree> inTree, EDop inKind);

    const BlendBoundsTree& Tree() const { return *mTree; }
    EDop Kind() const { return mKind; }

    /// Starts a step with `inTransforms` (the mesh's node count, all finite; copied). Returns false and keeps
    /// the last step when they are not. With front tracking, refits last step's visited subtree now.
    [[nodiscard]] bool SetTransforms(std::span<const AffineTransform> inTransforms);
    std::span<const AffineTransform> Transforms() const { return mTransforms; }

    void SetFrontTracking(bool inEnabled) { mFrontTracking = inEnabled; }
    bool FrontTracking() const { return mFrontTracking; }

    /// Node `inNode`'s k-DOP at this step, refitted on first use.
    const Dop& Bound(std::uint32_t inNode);

    /// Deformed vertex `inVertex` at this step (double), computed on first use in the step and kept (leaves'
    /// exact bounds and the triangle tests share it).
    const Vec3d& Vertex(std::uint32_t inVertex);

    /// Work since construction: eq. 12 refits, exact (leaf) fits, and fits by bounding two children.
    std::uint64_t Refits() const { return mRefits; }
    std::uint64_t ExactFits() const { return mExactFits; }
    std::uint64_t ChildUnions() const { return mChildUnions; }

private:
    void RefitFront();
    Dop Compute(std::uint32_t inNode);

    std::shared_ptr<const BlendBoundsTree> mTree;
    EDop mKind;
    bool mFrontTracking = false;
    std::vector<AffineTransform> mTransforms;
    std::vector<Dop> mBounds;
    std::vector<std::uint32_t> mStamp;       ///< Step in which the bound was made.
    std::vector<std::uint32_t> mVisited;     ///< Step in which the bound was asked for.
    std::vector<std::uint32_t> mVisitedList; ///< The nodes asked for this step, once each.
    std::vector<Vec3d> mVertices;            ///< Deformed vertices computed this step.
    std::vector<std::uint32_t> mVertexStamp;
    std::uint32_t mEpoch = 1;
    std::uint64_t mRefits = 0, mExactFits = 0, mChildUnions = 0;
};

/// Every pair of intersecting deformed triangles of two blended bodies (world coordinates: their transforms
/// place them), each once, as indices in each tree's triangle order: simultaneous depth-first descent on the
/// k-DOPs, splitting the larger, exact `TrianglesIntersect` at leaf pairs. Adds to `ioStats`.
void CollideBlended(BlendBoundsState& ioA, BlendBoundsState& ioB, std::vector<TrianglePair>& outPairs,
                    QueryStats& ioStats);

} // namespace bdt
