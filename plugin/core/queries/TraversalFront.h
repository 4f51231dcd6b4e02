#pragma once

#include <bdt/core/base/Math.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bdt
{

/// Where the last tree-vs-tree proxy descent of one pair of bodies stopped, kept for the next step: temporal
/// coherence by front tracking (the BD-Tree paper's §6 names it as future work; Ehmann & Lin's generalised
/// front tracking of the bounding-volume test tree).
///
/// The front is a set of node pairs (a, b) whose subtrees partition every pair of proxies: the pairs whose
/// spheres did not overlap, and the proxy pairs reached. The next query tests the front instead of
/// descending from the roots: a pair that still misses costs one test, one that now overlaps is descended
/// from, and the proxy pairs are re-tested. Because the coarse spheres wrap their proxies (`ContactProxies`), a
/// missing pair has no overlapping proxy pair below it, so the answer is exactly that of the descent from
/// the roots, in a different order.
///
/// Each missed pair also keeps its clearance: by how much its spheres missed (A's model units, after the
/// test's own reach and slack). The next query bounds how far any pair's gap can have closed since: each
/// body's nodes move in its rest frame by their modes, Σ_j b_j|Δq_j| (`ContactProxies::CentreBounds`), and grow
/// by max(Σ_j e_j|Δq_j|, δ‖Δq‖₂) (`ContactProxies::NodeRadiusBounds`); B's frame moves in A's by
/// ‖N' − N‖·‖c_B‖ + ‖u' − u‖ (B's centres mapped by N c + u); the test's slack may grow; and every float
/// rounding is covered by a relative margin. A pair whose clearance exceeds that bound still misses: it is
/// carried to the next front with its clearance reduced by the bound, without computing its spheres or
/// testing them. So a pile at rest re-tests only the pairs near contact, and the contacts stay exactly those
/// of the descent from the roots.
///
/// A front only deepens as pairs come to overlap; every 16th query, and whenever the front stops paying (it
/// needed more tests than the last descent from the roots, or the bodies no longer touch and their descent
/// from the roots took fewer than 16 tests), the query starts from the roots again and the front is rebuilt
/// where that descent stopped.
///
/// One per pair of bodies, owned by whoever owns the pair (a Bullet collision algorithm); the bodies' roles
/// (A, B) must stay the same between queries. A query finding other trees or proxy levels than the front
/// was made with starts from the roots; one finding other body states, scales or bound kinds, or §3.5
/// temporal coherence on, tests every pair of the front (the clearances assume the same bodies).
/// 12 bytes per front pair, plus 4 bytes per mode of each body: a few KB for bodies in contact.
class TraversalFront
{
public:
    /// A pair of nodes, A's and B's.
    struct NodePair
    {
        std::uint32_t nodeA;
        std::uint32_t nodeB;
    };

    /// Forgets the front: the next query descends from the roots.
    void Clear()
    {
        mPairs.clear();
        mClearances.clear();
        mRootTests = 0;
        mQueriesSinceRoots = 0;
        mSkipped = 0;
        mReference.valid = false;
    }
    /// Node pairs in the front (0 before the first query or after `Clear`).
    std::size_t Size() const { return mPairs.size(); }
    /// Of the last query's front pairs, those carried over on their clearance without a test.
    std::size_t Skipped() const { return mSkipped; }
    /// Bytes held.
    std::size_t MemoryBytes() const
    {
        return mPairs.capacity() * sizeof(NodePair) + mClearances.capacity() * sizeof(float) +
               (mReference.qA.capacity() + mReference.qB.capacity()) * sizeof(float);
    }

    /// What a front is made for: both trees and both proxy levels (used by the queries).
    struct Key
    {
        const void* treeA = nullptr;
        const void* treeB = nullptr;
        std::uint32_t levelA = 0;
        std::uint32_t levelB = 0;
        bool operator==(const Key&) const = default;
    };

private:
    friend struct TraversalFrontAccess;

    // How the bodies stood at the last query: what the clearances were measured against.
    struct Reference
    {
        bool valid = false;
        const void* stateA = nullptr;
        const void* stateB = nullptr;
        int boundA = 0, boundB = 0; // `EBound` of each state
        double scaleA = 1.0, scaleB = 1.0;
        std::vector<float> qA, qB;
        Mat3d map = Mat3d::Zero();  // N = (s_B/s_A) R_Aᵀ R_B: B's rest frame into A's
        Vec3d shift = Vec3d::Zero(); // u = R_Aᵀ(t_B − t_A)/s_A
        double slack = 0.0;         // the culling test's slack, A's units
        double centreBoundB = 0.0;  // bound on ‖c_B‖ of B's updated centres (`TreeState::CentreBound`)
    };

    std::vector<NodePair> mPairs;
    std::vector<float> mClearances; // per pair: how far its spheres missed at the last query (0: test it)
    Key mKey;
    Reference mReference;
    std::uint64_t mRootTests = 0;          // sphere tests of the last descent from the roots
    std::uint32_t mQueriesSinceRoots = 0;  // queries since the last descent from the roots
    std::size_t mSkipped = 0;
};

} // namespace bdt
