#include "ContactRegions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace bdt
{

std::uint32_t RegionLevel(std::uint32_t inProxyLevel, std::uint32_t inRegionDepth)
{
    return inProxyLevel > inRegionDepth ? inProxyLevel - inRegionDepth : 0;
}

std::uint32_t RegionOf(const BDTree& inTree, std::uint32_t inNode, std::uint32_t inRegionLevel)
{
    const BDTreeNode& target = inTree.Node(inNode);
    if (target.level <= inRegionLevel)
        return inNode;
    std::uint32_t node = 0;
    while (inTree.Node(node).level < inRegionLevel && !inTree.Node(node).IsLeaf())
    {
        const std::uint32_t child = inTree.Node(node).firstChild;
        const BDTreeNode& first = inTree.Node(child);
        const bool inFirst = target.firstTriangle >= first.firstTriangle &&
                             target.firstTriangle < first.firstTriangle + first.triangleCount;
        node = inFirst ? child : child + 1;
    }
    return node;
}

bool InRegion(const BDTree& inTree, std::uint32_t inNode, std::uint32_t inRegion, std::uint32_t inRegionLevel)
{
    // Below the region level, the node's region is the one node at that level (or the leaf above it) whose
    // triangle range holds the node's first triangle: the ranges of a level partition the triangles.
    const BDTreeNode& target = inTree.Node(inNode);
    const BDTreeNode& region = inTree.Node(inRegion);
    return target.level > inRegionLevel && region.level <= inRegionLevel &&
           target.firstTriangle >= region.firstTriangle &&
           target.firstTriangle < region.firstTriangle + region.triangleCount;
}

namespace
{

struct RegionInfo
{
    std::uint32_t key = 0;
    double deepest = std::numeric_limits<double>::infinity();
    Vec3d centroid = Vec3d::Zero(); // sum, then mean
    std::uint32_t count = 0;
    bool previous = false;
    std::uint32_t target = 0; // index into the kept keys
};


// Each region's persistence (it had a manifold last step), deepest contact and centroid, in the order of the
// distinct keys `inSortedKeys`; `inRegionOf` gives a contact's region index.
template <class RegionOf>
void SummariseRegions(std::span<const std::uint32_t> inSortedKeys, std::span<const PairContact> inContacts,
                      std::span<const std::uint32_t> inKeys, std::span<const std::uint32_t> inPreviousKeys,
                      const RegionOf& inRegionOf, std::vector<RegionInfo>& outRegions)
{
    outRegions.clear();
    for (std::uint32_t key : inSortedKeys)
    {
        RegionInfo info;
        info.key = key;
        info.previous = std::find(inPreviousKeys.begin(), inPreviousKeys.end(), key) != inPreviousKeys.end();
        outRegions.push_back(info);
    }
    for (std::size_t i = 0; i < inContacts.size(); ++i)
    {
        RegionInfo& info = outRegions[inRegionOf(inKeys[i])];
        info.deepest = std::min(info.deepest, inContacts[i].distance);
        info.centroid += inContacts[i].pointOnB;
        ++info.count;
    }
    for (RegionInfo& info : outRegions)
        info.centroid /= double(info.count);
}

// Keep a set that covers the contact area: farthest-point sampling over the regions' centroids (Gonzalez's
// k-centre greedy: every region ends within twice the best possible covering radius of a kept one), from
// the deepest region on. The merged regions' contacts go to the nearest kept region, whose reduction then
// spreads its points over its share of the area: a face resting on the ground keeps points under all of
// it, not a cluster in one corner. Persistence: at each choice a region that had a manifold last step wins
// over a better new one unless that one is clearly better: deeper by more than the depth tolerance (the
// first choice), farther from the kept ones by more than `cCoverageSlack` of its distance (the others).
// Writes the `inCap` kept region indices (ascending) and marks them taken.
void ChooseCoveringRegions(std::span<const RegionInfo> inRegions, std::uint32_t inCap, double inDepthTolerance,
                           std::vector<std::uint32_t>& outKept, std::vector<bool>& outTaken)
{
    thread_local std::vector<double> nearest; // per region, squared distance to the nearest kept centroid
    outKept.clear();
    nearest.assign(inRegions.size(), std::numeric_limits<double>::infinity());
    outTaken.assign(inRegions.size(), false);
    const auto deeper = [&](std::uint32_t inA, std::uint32_t inB)
    {
        const RegionInfo& a = inRegions[inA];
        const RegionInfo& b = inRegions[inB];
        return a.deepest != b.deepest ? a.deepest < b.deepest : a.key < b.key;
    };
    while (outKept.size() < inCap)
    {
        // The best new choice, and the best of last step's regions.
        int best = -1;
        int bestPrevious = -1;
        const bool first = outKept.empty();
        const auto better = [&](std::uint32_t inCandidate, int inCurrent)
        {
            if (inCurrent < 0)
                return true;
            const std::uint32_t current = std::uint32_t(inCurrent);
            if (first || nearest[inCandidate] == nearest[current])
                return deeper(inCandidate, current);
            return nearest[inCandidate] > nearest[current];
        };
        for (std::uint32_t r = 0; r < inRegions.size(); ++r)
        {
            if (outTaken[r])
                continue;
            if (better(r, best))
                best = int(r);
            if (inRegions[r].previous && better(r, bestPrevious))
                bestPrevious = int(r);
        }
        std::uint32_t choice = std::uint32_t(best);
        if (bestPrevious >= 0 && bestPrevious != best)
        {
            const std::uint32_t previous = std::uint32_t(bestPrevious);
            const bool close =
                first ? inRegions[previous].deepest <= inRegions[choice].deepest + inDepthTolerance
                      : std::sqrt(nearest[previous]) >= (1.0 - cCoverageSlack) * std::sqrt(nearest[choice]);
            if (close)
                choice = previous;
        }
        outTaken[choice] = true;
        outKept.push_back(choice);
        for (std::uint32_t r = 0; r < inRegions.size(); ++r)
            nearest[r] = std::min(nearest[r], (inRegions[r].centroid - inRegions[choice].centroid).squaredNorm());
    }
    std::sort(outKept.begin(), outKept.end()); // region indices ascending = keys ascending
}

// Each kept region's target is its place among the kept; each dropped region's, the kept one with the nearest
// centroid (the first of equals).
void TargetKeptRegions(std::span<RegionInfo> ioRegions, std::span<const std::uint32_t> inKept,
                       const std::vector<bool>& inTaken)
{
    for (std::uint32_t k = 0; k < inKept.size(); ++k)
        ioRegions[inKept[k]].target = k;
    for (std::uint32_t r = 0; r < ioRegions.size(); ++r)
    {
        if (inTaken[r])
            continue;
        RegionInfo& dropped = ioRegions[r];
        double best = std::numeric_limits<double>::infinity();
        for (std::uint32_t k = 0; k < inKept.size(); ++k)
        {
            const double squared = (ioRegions[inKept[k]].centroid - dropped.centroid).squaredNorm();
            if (squared < best)
            {
                best = squared;
                dropped.target = k;
            }
        }
    }
}

} // namespace

void AssignRegions(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inKeys,
                   std::span<const std::uint32_t> inPreviousKeys, std::uint32_t inMaxRegions,
                   RegionAssignment& outAssignment, double inDepthTolerance)
{
    outAssignment.keys.clear();
    outAssignment.ofContact.assign(inContacts.size(), 0);
    if (inContacts.empty())
        return;

    // One region, the common case (a body resting on a ball, a box or a small patch of ground): all its
    // contacts go to it.
    if (std::all_of(inKeys.begin(), inKeys.end(), [&](std::uint32_t inKey) { return inKey == inKeys[0]; }))
    {
        outAssignment.keys.push_back(inKeys[0]);
        return;
    }

    // Distinct keys, ascending.
    thread_local std::vector<std::uint32_t> sortedKeys;
    sortedKeys.assign(inKeys.begin(), inKeys.end());
    std::sort(sortedKeys.begin(), sortedKeys.end());
    sortedKeys.erase(std::unique(sortedKeys.begin(), sortedKeys.end()), sortedKeys.end());
    const auto regionIndex = [&](std::uint32_t inKey) {
        return std::uint32_t(std::lower_bound(sortedKeys.begin(), sortedKeys.end(), inKey) -
                             sortedKeys.begin());
    };
    const std::uint32_t cap = std::max<std::uint32_t>(inMaxRegions, 1);
    if (sortedKeys.size() <= cap)
    {
        outAssignment.keys = sortedKeys;
        for (std::size_t i = 0; i < inContacts.size(); ++i)
            outAssignment.ofContact[i] = regionIndex(inKeys[i]);
        return;
    }

    // More regions than the cap: keep those that cover the contact area, merge the others into them.
    thread_local std::vector<RegionInfo> regions;
    thread_local std::vector<std::uint32_t> kept;
    thread_local std::vector<bool> taken;
    SummariseRegions(sortedKeys, inContacts, inKeys, inPreviousKeys, regionIndex, regions);
    ChooseCoveringRegions(regions, cap, inDepthTolerance, kept, taken);
    for (const std::uint32_t k : kept)
        outAssignment.keys.push_back(regions[k].key);
    TargetKeptRegions(regions, kept, taken);
    for (std::size_t i = 0; i < inContacts.size(); ++i)
        outAssignment.ofContact[i] = regions[regionIndex(inKeys[i])].target;
}

namespace
{

// Index in inCandidates of the best candidate not yet chosen by inScore (higher is better), or -1 when no
// candidate scores above inMinimum.
template <class Score>
int BestCandidate(std::span<const std::uint32_t> inCandidates, const std::vector<bool>& inTaken,
                  double inMinimum, Score&& inScore)
{
    int best = -1;
    double bestScore = inMinimum;
    for (std::size_t c = 0; c < inCandidates.size(); ++c)
    {
        if (inTaken[c])
            continue;
        const double score = inScore(inCandidates[c]);
        if (score > bestScore)
        {
            bestScore = score;
            best = int(c);
        }
    }
    return best;
}

// The best candidate as BestCandidate, unless a kept one (inKept) scores within inSlack(best score) of it:
// then the best kept one.
template <class Score, class Slack>
int PersistentCandidate(std::span<const std::uint32_t> inCandidates, const std::vector<bool>& inTaken,
                        std::span<const std::uint8_t> inKept, double inMinimum, Score&& inScore,
                        Slack&& inSlack)
{
    const int best = BestCandidate(inCandidates, inTaken, inMinimum, inScore);
    if (best < 0 || inKept.empty() || inKept[std::size_t(best)])
        return best;
    const double bestScore = inScore(inCandidates[std::size_t(best)]);
    const double floor = std::max(inMinimum, bestScore - inSlack(bestScore));
    int kept = -1;
    double keptScore = floor;
    for (std::size_t c = 0; c < inCandidates.size(); ++c)
    {
        if (inTaken[c] || !inKept[c])
            continue;
        const double score = inScore(inCandidates[c]);
        if (score >= keptScore)
        {
            keptScore = score;
            kept = int(c);
        }
    }
    return kept >= 0 ? kept : best;
}

} // namespace

namespace
{

// A grid cell's key: its three integer coordinates (clamped, 21 bits each, wrapping) packed into 64 bits. Two
// cells may share a key far apart; that only adds candidates, whose distances are still checked.
std::uint64_t CellKey(std::int64_t inX, std::int64_t inY, std::int64_t inZ)
{
    constexpr std::uint64_t mask = (std::uint64_t(1) << 21) - 1;
    return ((std::uint64_t(inX) & mask) << 42) | ((std::uint64_t(inY) & mask) << 21) | (std::uint64_t(inZ) & mask);
}

// At most this many points (sixteen regions of four, the default cap) are merged against each other directly;
// more go through a grid.
constexpr std::size_t cDirectMergeCount = 64;

std::int64_t CellOf(double inCoordinate, double inCellSize)
{
    const double cell = std::floor(inCoordinate / inCellSize);
    return std::isfinite(cell) ? std::int64_t(std::clamp(cell, -1e6, 1e6)) : 0;
}

} // namespace

void MergeNearPoints(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inPoints,
                     double inMinSeparation, std::vector<std::uint8_t>& outSurvives)
{
    outSurvives.assign(inPoints.size(), 1);
    if (!(inMinSeparation > 0.0) || inPoints.size() < 2)
        return;
    // A uniform grid of cells as wide as the separation: a survivor near a point lies in one of the 27 cells
    // round the point's. Cells are the sorted distinct keys; each keeps a list of its survivors (survivors are
    // at least the separation apart, so a cell holds few of them whatever the number of points). Deepest
    // first; each point survives unless a survivor before it is near it. O(n log n).
    const std::size_t count = inPoints.size();
    const double separation2 = inMinSeparation * inMinSeparation;
    const auto near = [&](std::uint32_t inP, std::uint32_t inS)
    {
        const PairContact& point = inContacts[inPoints[inP]];
        const PairContact& other = inContacts[inPoints[inS]];
        return (other.pointOnB - point.pointOnB).squaredNorm() < separation2 &&
               other.normal.dot(point.normal) > cMergeCos;
    };
    const auto deeper = [&](std::uint32_t inA, std::uint32_t inB)
    { return inContacts[inPoints[inA]].distance < inContacts[inPoints[inB]].distance; };
    if (count <= cDirectMergeCount)
    {
        // A pair's few points (the usual case): each against the survivors before it, with no grid.
        std::array<std::uint32_t, cDirectMergeCount> order, survivors;
        std::iota(order.begin(), order.begin() + count, 0u);
        std::stable_sort(order.begin(), order.begin() + count, deeper);
        std::size_t survivorCount = 0;
        for (std::size_t i = 0; i < count; ++i)
        {
            const std::uint32_t p = order[i];
            if (std::any_of(survivors.begin(), survivors.begin() + survivorCount,
                            [&](std::uint32_t inS) { return near(p, inS); }))
                outSurvives[p] = 0;
            else
                survivors[survivorCount++] = p;
        }
        return;
    }
    thread_local std::vector<std::uint32_t> order;
    thread_local std::vector<std::array<std::int64_t, 3>> cells;
    thread_local std::vector<std::uint64_t> keys;
    thread_local std::vector<std::uint32_t> head; // per distinct key: its first survivor, or cNoIndex
    thread_local std::vector<std::uint32_t> next; // per point: the next survivor of its cell
    order.resize(count);
    cells.resize(count);
    keys.resize(count);
    for (std::uint32_t p = 0; p < count; ++p)
    {
        order[p] = p;
        const Vec3d& point = inContacts[inPoints[p]].pointOnB;
        cells[p] = {CellOf(point.x(), inMinSeparation), CellOf(point.y(), inMinSeparation),
                    CellOf(point.z(), inMinSeparation)};
        keys[p] = CellKey(cells[p][0], cells[p][1], cells[p][2]);
    }
    thread_local std::vector<std::uint64_t> distinct;
    distinct.assign(keys.begin(), keys.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    head.assign(distinct.size(), cNoIndex);
    next.assign(count, cNoIndex);
    std::stable_sort(order.begin(), order.end(), deeper);
    for (std::uint32_t p : order)
    {
        bool isNear = false;
        for (int dx = -1; dx <= 1 && !isNear; ++dx)
            for (int dy = -1; dy <= 1 && !isNear; ++dy)
                for (int dz = -1; dz <= 1 && !isNear; ++dz)
                {
                    const std::uint64_t key = CellKey(cells[p][0] + dx, cells[p][1] + dy, cells[p][2] + dz);
                    const auto found = std::lower_bound(distinct.begin(), distinct.end(), key);
                    if (found == distinct.end() || *found != key)
                        continue;
                    for (std::uint32_t s = head[std::size_t(found - distinct.begin())]; s != cNoIndex && !isNear;
                         s = next[s])
                        isNear = near(p, s);
                }
        if (isNear)
        {
            outSurvives[p] = 0;
            continue;
        }
        const std::size_t cell =
            std::size_t(std::lower_bound(distinct.begin(), distinct.end(), keys[p]) - distinct.begin());
        next[p] = head[cell];
        head[cell] = p;
    }
}

void ReduceContacts(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inCandidates,
                    std::vector<std::uint32_t>& outChosen, std::span<const std::uint8_t> inKept,
                    double inDepthTolerance, double inSpreadTolerance)
{
    outChosen.clear();
    if (!inKept.empty() && inKept.size() != inCandidates.size())
        inKept = {};
    if (inCandidates.size() <= cReducedPointCount)
    {
        outChosen.assign(inCandidates.begin(), inCandidates.end());
        return;
    }
    std::vector<bool> taken(inCandidates.size(), false);
    const auto take = [&](int inCandidate)
    {
        taken[std::size_t(inCandidate)] = true;
        outChosen.push_back(inCandidates[std::size_t(inCandidate)]);
    };
    const auto depthSlack = [&](double) { return inDepthTolerance; };
    const auto spreadSlack = [&](double inScore) { return inSpreadTolerance * inScore; };
    // The deepest candidate not taken; where no remaining distance compares (NaN, or +∞, which the speculative
    // filter lets through for the manifold's own checks), the first not taken: one is always left, as at most
    // three of the more than four candidates are taken.
    const auto deepestRemaining = [&]()
    {
        const int deepest = PersistentCandidate(
            inCandidates, taken, inKept, -std::numeric_limits<double>::infinity(),
            [&](std::uint32_t inIndex) { return -inContacts[inIndex].distance; }, depthSlack);
        return deepest >= 0 ? deepest : int(std::find(taken.begin(), taken.end(), false) - taken.begin());
    };

    // Spread is measured across the mean normal (points on B projected on the contact plane).
    Vec3d normal = Vec3d::Zero();
    for (std::uint32_t index : inCandidates)
        normal += inContacts[index].normal;
    const int first = deepestRemaining();
    take(first);
    const PairContact& p1 = inContacts[inCandidates[std::size_t(first)]];
    normal = normal.norm() > 1e-12 ? Vec3d(normal.normalized()) : p1.normal;
    const auto project = [&](const Vec3d& inVector)
    { return Vec3d(inVector - normal * normal.dot(inVector)); };

    // Farthest from the deepest point.
    int second = PersistentCandidate(
        inCandidates, taken, inKept, 0.0,
        [&](std::uint32_t inIndex) { return project(inContacts[inIndex].pointOnB - p1.pointOnB).norm(); },
        spreadSlack);
    if (second < 0)
        second = deepestRemaining();
    take(second);
    const Vec3d a = p1.pointOnB;
    const Vec3d b = inContacts[inCandidates[std::size_t(second)]].pointOnB;

    // Largest triangle with the first two.
    int third = PersistentCandidate(
        inCandidates, taken, inKept, 0.0,
        [&](std::uint32_t inIndex)
        { return std::abs((b - a).cross(inContacts[inIndex].pointOnB - a).dot(normal)); },
        spreadSlack);
    if (third < 0)
        third = deepestRemaining();
    take(third);
    Vec3d corners[3] = {a, b, inContacts[inCandidates[std::size_t(third)]].pointOnB};
    if ((corners[1] - corners[0]).cross(corners[2] - corners[0]).dot(normal) < 0.0)
        std::swap(corners[1], corners[2]); // counter-clockwise about the normal

    // Most area added outside the triangle: the sum over the edges that see the point from outside.
    int fourth = PersistentCandidate(
        inCandidates, taken, inKept, 0.0,
        [&](std::uint32_t inIndex)
        {
            const Vec3d& p = inContacts[inIndex].pointOnB;
            double added = 0.0;
            for (int e = 0; e < 3; ++e)
            {
                const Vec3d& from = corners[e];
                const Vec3d& to = corners[(e + 1) % 3];
                added += std::max(0.0, -(to - from).cross(p - from).dot(normal));
            }
            return added;
        },
        spreadSlack);
    if (fourth < 0)
        fourth = deepestRemaining();
    take(fourth);
}

} // namespace bdt
