#pragma once

#include <bdt/core/bounds/BDTree.h>

#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Contact proxies at level L (§3.4): the nodes of level L and the leaves above it. Every coarser node is
/// enlarged so its updated sphere holds its proxies' updated spheres for every q (R_n ≥ ‖c_p − c_n‖ + R_p,
/// ΔR_nj ≥ ‖Ū_p,j − Ū_n,j‖ + ΔR_p,j per proxy p below it, eq. 7), so a traversal that stops at the proxies
/// misses no overlap. Built in O(P·L·M) for P proxies; immutable, shared by the bodies at that L.
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

    /// Below `inNode` (< `VisitCount()`): its first child (the second follows), or 0 for a proxy.
    const std::uint32_t& ChildrenBelow(std::uint32_t inNode) const { return mChildrenBelow[inNode]; }

    /// M + 1 bounds b over every row a query may read (largest ‖c‖, then ‖Ū_j‖): an updated centre is within
    /// b_0 + Σ_j b_{j+1}|q_j| of the rest frame's origin.
    std::span<const float> CentreBounds() const { return mCentreBounds; }

    /// M + 2 bounds e over the proxies' rows (largest R, ΔR_j, δR_tight): a proxy's radius changes by at most
    /// max(Σ_j e_{j+1}|Δq_j|, e_{M+1}‖Δq‖₂) when q changes by Δq, under either `EBound`.
    std::span<const float> ProxyRadiusBounds() const { return mProxyRadiusBounds; }

    /// The same bounds over every node a traversal to this level can visit ([0, `VisitCount()`)).
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
