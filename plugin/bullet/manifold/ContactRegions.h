#pragma once

// Contact regions of a pair and the reduction of a region to Bullet's four manifold points. Bullet keeps at
// most 4 points in a persistent manifold; a deformable touching a floor with its whole face makes hundreds
// of proxy contacts, so the narrowphase keeps one manifold per region of the surface (the proxies under one
// BD-Tree ancestor) and reduces each region to its 4 most useful points. Private to plugin/bullet; no Bullet.

#include "PairContact.h"

#include <bdt/core/bounds/BDTree.h>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// The level whose nodes key the regions: `regionDepth` levels above the proxy level L, at least 0.
std::uint32_t RegionLevel(std::uint32_t inProxyLevel, std::uint32_t inRegionDepth);

/// The region of node `inNode`: its ancestor at `inRegionLevel`, or the node itself when it is at that level
/// or above (a leaf proxy above L). Found by descending from the root along the child whose triangle range
/// holds the node's first triangle: O(level), no parent links needed.
std::uint32_t RegionOf(const BDTree& inTree, std::uint32_t inNode, std::uint32_t inRegionLevel);

/// True when `inNode` is below the region level and its region (`RegionOf` at `inRegionLevel`) is
/// `inRegion`, itself a result of `RegionOf` at that level: its first triangle is in the region's range.
/// False for a node at or above the level (its own region). O(1): a pair's contacts are mostly neighbours,
/// so their regions are checked against the last one found before descending for them.
bool InRegion(const BDTree& inTree, std::uint32_t inNode, std::uint32_t inRegion,
              std::uint32_t inRegionLevel);

/// The regions kept for a pair and the region of each contact.
struct RegionAssignment
{
    std::vector<std::uint32_t> keys;      ///< Kept region keys, ascending; at most the cap.
    std::vector<std::uint32_t> ofContact; ///< Per contact: index into `keys` of the region it goes to.
};

/// How much farther from the kept regions a new region must be than the best of last step's to be kept in
/// its place, as a fraction of its distance (`AssignRegions`).
inline constexpr double cCoverageSlack = 0.25;

/// Groups contacts by their region key `inKeys[i]`. When there are more than `inMaxRegions` (≥ 1) regions,
/// keeps a set that covers the contacts' area: the region with the deepest contact, then again and again the
/// region whose centroid (of its points on B) is farthest from those kept (farthest-point sampling: every
/// region ends within twice the least possible covering radius of a kept one). Persistence: a region that had
/// a manifold last step (`inPreviousKeys`) is taken over a better new one unless that one is deeper by more
/// than `inDepthTolerance` (world units; the first choice) or farther by more than `cCoverageSlack` of its
/// distance (the others). The contacts of every other region go to the kept region whose centroid is nearest
/// to theirs. Deterministic (ties: deeper, then lower key). Cost O(regions × kept).
void AssignRegions(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inKeys,
                   std::span<const std::uint32_t> inPreviousKeys, std::uint32_t inMaxRegions,
                   RegionAssignment& outAssignment, double inDepthTolerance = 0.0);

/// The most points `ReduceContacts` keeps of a region: a persistent manifold's four.
inline constexpr std::size_t cReducedPointCount = 4;

/// Cosine of the largest angle between the normals of two points `MergeNearPoints` merges (about 25°).
inline constexpr double cMergeCos = 0.9;

/// The narrowphase merges a pair's points closer than this fraction of the pair's contact breaking
/// threshold (`MergeNearPoints`). Bullet's persistent manifold merges within the whole threshold; a quarter
/// already takes the fan round a ball's touch point down to one point, and keeps apart the corners of a
/// narrow base, such as a convex hull's small bottom face on a deformable box, which merged within the whole
/// threshold would stand on too few points and rock.
inline constexpr double cMergeSeparation = 0.25;

/// Near-coincident points: of the contacts `inPoints` (indices into `inContacts`), those within
/// `inMinSeparation` (world units, on B) of a deeper one whose normal is within `cMergeCos` of theirs stand
/// for nothing more: `outSurvives[i]` is 0 for them, 1 for the others. Deepest first, ties to the earlier
/// point; no survivor is near another. Deterministic; O(n²) for a pair's usual few points, O(n log n) for
/// more (a grid of cells as wide as the separation).
///
/// Why: a flat face resting on a ball or a capsule touches it at one point, yet the surface model finds that
/// point on every triangle and vertex round it, millimetres apart and often in several regions; Bullet's
/// solver may split the load between them any way it likes, warm starting carries the split from step to
/// step, and the torque of a split over millimetres rocks the body for good. Bullet's own manifold replaces a
/// point by a new one nearer than its breaking threshold and never holds two such. The deepest wins with no
/// preference for last step's point: on a curved support the deepest point is where the body touches, and a
/// point kept while the body rolls off it (1.5 µm shallower is 4 mm off the top of a 5 m ball) is a pivot
/// in the wrong place, which pumps the rocking.
void MergeNearPoints(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inPoints,
                     double inMinSeparation, std::vector<std::uint8_t>& outSurvives);

/// Chooses at most 4 of the contacts `inCandidates` (indices into `inContacts`), all of them when there are
/// at most 4: the deepest (least distance) first, then the one farthest from it, then the one making the
/// largest triangle with those two, then the one adding the most area outside that triangle, all measured
/// on the points on B projected on the plane across the mean normal. Where no candidate adds spread (all at
/// one point or on one line) the deepest remaining one is taken, and where no remaining distance compares
/// (NaN or +∞) the earliest. Always distinct candidates. Deterministic (ties: earlier candidate).
///
/// Persistence: a candidate flagged in `inKept` (one flag per candidate, or empty for none: the points the
/// region's manifold held last step) wins each choice over a better unflagged one unless that one is deeper
/// by more than `inDepthTolerance` (world units) or spreads more by more than `inSpreadTolerance` (a
/// fraction of its score). Why: many proxies of a resting face are equally deep and equally spread, so the
/// choice would otherwise follow rounding and the deformation of each step, moving the load between proxies
/// from step to step, which rocks the body and rings its modes.
void ReduceContacts(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inCandidates,
                    std::vector<std::uint32_t>& outChosen, std::span<const std::uint8_t> inKept = {},
                    double inDepthTolerance = 0.0, double inSpreadTolerance = 0.0);

} // namespace bdt
