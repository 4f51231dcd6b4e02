#pragma once

#include "core/bounds/RegionBounds.h"
#include <cstdint>
#include <vector>

namespace bdt
{

/// A pair of overlapping regions, one node of each body.
struct RegionPair
{
    std::uint32_t nodeA = 0;
    std::uint32_t nodeB = 0;
};

/// Work of region traversals, added to by each call.
struct RegionStats
{
    std::uint64_t overlapTests =
        0; ///< Bounding-volume pairs tested (the N_V of the cost model T = N_V C_V + N_U C_U + ...).
    std::uint64_t regionPairs = 0; ///< Overlapping region pairs reported (the papers' "collisions").
};

/// The overlap test of two balls, inflated by 1e-9 of the radii plus 1e-13 of the coordinates against the
/// rounding of the double test on float data: it never misses a touching pair. 10 flops and a compare.
bool BallsOverlap(const WorldBall& inA, const WorldBall& inB);

/// The overlap test of two oriented boxes (the separating-axis test on the 15 axes of Gottschalk et al. 1996:
/// three face normals of each box and the nine edge cross products). Set up once per pair of bodies (the
/// relative rotation of their axes), then about 100 flops a test in the worst case. Inflated as
/// `BallsOverlap` (and |R_ij| by 1e-9 for nearly parallel edges), so it never misses a touching pair.
class BoxOverlapTest
{
public:
    /// For boxes whose axes are the columns of `inRotationA` and of `inRotationB`.
    BoxOverlapTest(const Mat3d& inRotationA, const Mat3d& inRotationB);
    bool operator()(const WorldBox& inA, const WorldBox& inB) const;

private:
    Mat3d mRotationAT; ///< Aᵀ: world to A's axes.
    Mat3d mR;          ///< Aᵀ B: B's axes in A's axes.
    Mat3d mAbsR;       ///< |Aᵀ B| + 1e-9.
};

namespace detail
{
inline double BoundSize(const WorldBall& inBall)
{
    return inBall.radius;
}
inline double BoundSize(const WorldBox& inBox)
{
    return inBox.halfExtents.norm();
}

// The overlap test of a pair of bodies' bounds: balls directly, boxes through the pair's set-up.
struct BallPairTest
{
    template <class Regions> BallPairTest(const Regions&, const Regions&) {}
    bool operator()(const WorldBall& inA, const WorldBall& inB) const { return BallsOverlap(inA, inB); }
};
struct BoxPairTest : BoxOverlapTest
{
    template <class Regions>
    BoxPairTest(const Regions& inA, const Regions& inB)
        : BoxOverlapTest(inA.GetPose().rotation, inB.GetPose().rotation)
    {
    }
};
template <class Bound> struct PairTestOf;
template <> struct PairTestOf<WorldBall>
{
    using Type = BallPairTest;
};
template <> struct PairTestOf<WorldBox>
{
    using Type = BoxPairTest;
};
} // namespace detail

/// The traversal of two region hierarchies of the same kind (`SphereRegions`, `BoxRegions`,
/// `DistanceRegions`, or any `RegionBoundsBase<WorldBall or WorldBox>` with a `Bound(node)`) down to their
/// regions: every pair of a region of A and a region of B whose bounds overlap and whose ancestors' bounds
/// all overlap, each once, appended to `outPairs`. Depth first with an explicit stack, descending the larger
/// bound of a pair (or the one that is not yet a region). Conservative: every bound contains its node's
/// triangles, so two intersecting triangles always lie under a reported pair. Bounds are updated lazily on
/// first visit (counted by each side's `Updates`).
template <class Regions>
void CollideRegions(Regions& ioA, Regions& ioB, std::vector<RegionPair>& outPairs, RegionStats& ioStats)
{
    const typename detail::PairTestOf<typename Regions::BoundType>::Type overlap(ioA, ioB);
    std::vector<RegionPair> stack{{0, 0}};
    while (!stack.empty())
    {
        const RegionPair pair = stack.back();
        stack.pop_back();
        const auto& a = ioA.Bound(pair.nodeA);
        const auto& b = ioB.Bound(pair.nodeB);
        ++ioStats.overlapTests;
        if (!overlap(a, b))
            continue;
        const bool regionA = ioA.IsRegion(pair.nodeA);
        const bool regionB = ioB.IsRegion(pair.nodeB);
        if (regionA && regionB)
        {
            outPairs.push_back(pair);
            ++ioStats.regionPairs;
            continue;
        }
        if (!regionA && (regionB || detail::BoundSize(a) >= detail::BoundSize(b)))
        {
            const std::uint32_t child = ioA.Tree().Node(pair.nodeA).firstChild;
            stack.push_back({child + 1, pair.nodeB});
            stack.push_back({child, pair.nodeB});
        }
        else
        {
            const std::uint32_t child = ioB.Tree().Node(pair.nodeB).firstChild;
            stack.push_back({pair.nodeA, child + 1});
            stack.push_back({pair.nodeA, child});
        }
    }
}

} // namespace bdt
