#pragma once

#include <bdt/core/BDTree.h>

#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Contact proxies at a level L (BD-Tree paper §3.4): the nodes of level L, and the leaves above it, are the
/// contact proxies; every coarser node is enlarged so that, for every q, its updated sphere contains the
/// updated spheres of its descendant proxies, not only their vertices. A traversal that stops at the
/// proxies then never misses a proxy overlap.
///
/// Each coarse node n is measured against every proxy p below it, directly:
///
///     R_n  ≥ ‖c_p − c_n‖ + R_p                     (rest spheres nest)
///     ΔR_nj ≥ ‖Ū_p,j − Ū_n,j‖ + ΔR_p,j              (then ‖c'_p − c'_n‖ + R'_p ≤ R'_n for every q, eq. 7)
///     δR_tight,n ≥ ‖Ū_p − Ū_n‖₂ + δR_tight,p        (the same for the tight bound)
///
/// each term raised by the float rounding of both updates, and δR of eq. 11 is the largest of the node's and
/// its proxies'. The rest centre c_n is chosen for the proxies' balls (`EnclosingBallsCentre`, or the node's
/// own centre if that reaches less); the Ū_nj stay the node's own. Composing child by child instead
/// (R_n ≥ ‖c_ch − c_n‖ + R_ch, linear in the nodes) adds the triangle inequality's slack at every level, so the
/// coarse spheres of a deep tree grow well beyond their minimal ones and a tree-vs-tree descent tests many
/// more of them. The direct measure costs O(P·L·M) for P proxies (milliseconds for an 18k-triangle model),
/// paid once per L and shared by every body.
///
/// Immutable; share it between bodies that use the same L.
class ContactProxies
{
public:
    /// Proxies at level `inLevel` (clamped to the deepest level) of `inTree`.
    ContactProxies(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel);

    const BDTree& Tree() const { return *mTree; }
    const std::shared_ptr<const BDTree>& TreePtr() const { return mTree; }
    /// The proxy level L.
    std::uint32_t Level() const { return mLevel; }
    /// Nodes [0, WrappedCount()) have enlarged rows here; the others use the tree's own rows.
    std::uint32_t WrappedCount() const { return mWrappedCount; }
    /// Nodes a traversal to this level can visit: [0, VisitCount()).
    std::uint32_t VisitCount() const { return mTree->LevelEnd(mLevel); }

    /// True for the contact proxies: nodes at level L and leaves above it.
    bool IsProxy(std::uint32_t inNode) const
    {
        const BDTreeNode& node = mTree->Node(inNode);
        return node.level == mLevel || (node.level < mLevel && node.IsLeaf());
    }

    /// Where a traversal to the proxies goes below `inNode` (< `VisitCount()`): its first child (the second is
    /// the next index), or 0 for a proxy. One load from a table of 4 bytes a node, shared by every body.
    const std::uint32_t& ChildrenBelow(std::uint32_t inNode) const { return mChildrenBelow[inNode]; }

    /// Bounds on the rows' centres: entry 0 the largest ‖c‖, entry j + 1 the largest ‖Ū_j‖, over every row
    /// a query may read (the wrapped rows and all the tree's), so ‖c + Σ_j Ū_j q_j‖ ≤ b_0 + Σ_j b_{j+1}|q_j|
    /// for any node: how far from the rest frame's origin an updated centre can be (M + 1 entries).
    std::span<const float> CentreBounds() const { return mCentreBounds; }

    /// Bounds on the proxies' radius terms (M + 2 entries): entry 0 the largest rest radius R, entry j + 1 the
    /// largest ΔR_j, entry M + 1 the largest δR_tight, over the proxies' rows. A proxy's updated radius is at
    /// most e_0 + Σ_j e_{j+1}|q_j|, and changes by at most max(Σ_j e_{j+1}|Δq_j|, e_{M+1}‖Δq‖₂) when q changes
    /// by Δq, under either bound (`EBound`): what `ProxyPairCache` needs to know how far a proxy can move.
    std::span<const float> ProxyRadiusBounds() const { return mProxyRadiusBounds; }

    /// The same bounds over every node a traversal to this level can visit ([0, `VisitCount()`), wrapped rows
    /// above the proxies): how far any visited node's updated radius can change when q changes by Δq, at most
    /// max(Σ_j e_{j+1}|Δq_j|, e_{M+1}‖Δq‖₂) (M + 2 entries). What a `TraversalFront` needs to carry a missed
    /// pair's clearance from one step to the next.
    std::span<const float> NodeRadiusBounds() const { return mNodeRadiusBounds; }

    /// The row to use for `inNode` (enlarged when above the proxies).
    const float* Row(std::uint32_t inNode) const
    {
        return inNode < mWrappedCount ? mRows.data() + std::size_t(inNode) * mTree->RowStride() : mTree->Row(inNode);
    }

    std::size_t MemoryBytes() const
    {
        return mRows.size() * sizeof(float) + mChildrenBelow.size() * sizeof(std::uint32_t) +
               (mCentreBounds.size() + mProxyRadiusBounds.size() + mNodeRadiusBounds.size()) * sizeof(float);
    }

private:
    std::shared_ptr<const BDTree> mTree;
    std::uint32_t mLevel = 0;
    std::uint32_t mWrappedCount = 0;
    AlignedVector<float> mRows;
    std::vector<std::uint32_t> mChildrenBelow; ///< `ChildrenBelow` of the visited nodes.
    std::vector<float> mCentreBounds;          ///< `CentreBounds`.
    std::vector<float> mProxyRadiusBounds;     ///< `ProxyRadiusBounds`.
    std::vector<float> mNodeRadiusBounds;      ///< `NodeRadiusBounds`.
};

} // namespace bdt
