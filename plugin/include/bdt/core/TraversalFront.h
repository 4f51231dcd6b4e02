#pragma once

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
/// from, and the proxy pairs are re-tested. Because the coarse spheres wrap their proxies (`ProxyLevel`), a
/// missing pair has no overlapping proxy pair below it, so the answer is exactly that of the descent from
/// the roots, in a different order. When the front stops paying (it needed more tests than the last descent
/// from the roots, or the bodies no longer touch), the next query starts from the roots again.
///
/// One per pair of bodies, owned by whoever owns the pair (a Bullet collision algorithm); the bodies' roles
/// (A, B) must stay the same between queries. A query finding other trees or proxy levels than the front
/// was made with starts from the roots.
/// 8 bytes per front pair: about the number of sphere tests of one descent, a few KB for bodies in contact.
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
        mRootTests = 0;
    }
    /// Node pairs in the front (0 before the first query or after `Clear`).
    std::size_t Size() const { return mPairs.size(); }
    /// Bytes held.
    std::size_t MemoryBytes() const { return mPairs.capacity() * sizeof(NodePair); }

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

    std::vector<NodePair> mPairs;
    Key mKey;
    std::uint64_t mRootTests = 0; // sphere tests of the last descent from the roots
};

} // namespace bdt
