// Tree vs tree from a list of proxy pairs (ProxyPairCache.h): `CollideProxiesCached`, which answers from the
// pairs kept within reach + skin while the bodies' motion since the list was made is within the skin, and
// makes the list by a widened descent (PairDescent.h) otherwise; and how a list is kept, by band.

#include "ProxyPairCache.h"

#include "CoherentQueries.h"
#include "PairDescent.h"
#include "SkinBands.h"
#include "TreeQueriesInternal.h"

#include <bdt/core/bounds/BDTree.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

namespace
{

using detail::cRoots;
using detail::DescendPairs;
using detail::LargestProxyRadius;
using detail::PlaceTerminal;
using detail::ProxyDrift;
using detail::ProxyRounding;
using detail::SphereContact;
using detail::TerminalsOverlap;
using detail::WorldSphere;

// A ball containing the intersection of balls (c1, r1) and (c2, r2): the ball through the circle where their
// spheres meet when each cap of the lens is at most a hemisphere, else the smaller ball. False when they do
// not intersect.
bool LensBall(const Vec3d& inC1, double inR1, const Vec3d& inC2, double inR2, Vec3d& outCentre, double& outRadius)
{
    const double d = (inC2 - inC1).norm();
    if (d > inR1 + inR2)
        return false;
    outCentre = inR1 <= inR2 ? inC1 : inC2;
    outRadius = std::min(inR1, inR2);
    if (d <= 0.0)
        return true;
    // Distance from c1 to the plane of the circle; the circle's radius.
    const double along = (d * d + inR1 * inR1 - inR2 * inR2) / (2.0 * d);
    if (along < 0.0 || along > d)
        return true;
    const double circle = std::sqrt(std::max(0.0, inR1 * inR1 - along * along));
    if (circle < outRadius)
    {
        outCentre = inC1 + (along / d) * (inC2 - inC1);
        outRadius = circle * (1.0 + 1e-9) + 1e-12 * (inR1 + inR2);
    }
    return true;
}

// B's frame in A's, world-scaled: N = s_B R_Aᵀ R_B and u = R_Aᵀ(t_B − t_A), so a world gap between a proxy of
// A at c_a and one of B at c_b is ‖s_A c_a − N c_b − u‖ − s_A r_a − s_B r_b (less the inflates).
struct PairPlacement
{
    Mat3d rotation;
    Vec3d translation;
};

// The skin band of a kept pair whose terminal spheres do not overlap (`SkinBandOfGap`), with a margin far
// above the gap's rounding.
std::uint32_t BandOfGap(const WorldSphere& inA, const WorldSphere& inB, double inSkin)
{
    const double reach = inA.radius + inB.radius;
    const double margin =
        1e-6 * (reach + inSkin) + 1e-12 * (inA.center.cwiseAbs().maxCoeff() + inB.center.cwiseAbs().maxCoeff());
    return SkinBandOfGap(inSkin, (inA.center - inB.center).norm() - reach, margin);
}

PairPlacement PlacementOf(const DeformedBody& inA, const DeformedBody& inB)
{
    const Mat3d toA = inA.pose.rotation.transpose();
    return {inB.scale * (toA * inB.pose.rotation), toA * (inB.pose.translation - inA.pose.translation)};
}

// The double tests' slack (`detail::SpheresOverlap`) for spheres up to `inExtent` from the bodies' origins:
// its relative part on the reach and its part on the coordinates, with room.
double TestSlack(const DeformedBody& inA, const DeformedBody& inB, double inExtent, double inReach)
{
    const double coordinates = inA.pose.translation.cwiseAbs().maxCoeff() +
                               inB.pose.translation.cwiseAbs().maxCoeff() + inExtent;
    return 4.0 * (detail::cRelativeSlack * (inReach + inExtent) + detail::cPositionSlack * coordinates);
}

} // namespace

/// Grants the queries access to a pair cache's state.
struct ProxyPairCacheAccess
{
    static ProxyPairCache::Key KeyOf(const DeformedBody& inA, const DeformedBody& inB)
    {
        return {inA.state,
                inB.state,
                &inA.state->Proxies(),
                &inB.state->Proxies(),
                int(inA.state->Bound()),
                int(inB.state->Bound()),
                inA.scale,
                inB.scale};
    }

    // Whether the list answers this query. A pair (a, b) within reach now was within reach + s when the list
    // was made if its gap can have closed by at most s since: the proxies' drift in their bodies' frames, the
    // motion of B's frame in A's (B's centres c_b mapped by N c_b + u), the reach's growth and the rounding
    // of the spheres then and now. B's frame's motion moves c_b by (N − N₀)c_b + (u − u₀) = [(N − N₀)p +
    // (u − u₀)] + (N − N₀)(c_b − p) for any pivot p: the motion of p, plus the turn times how far c_b is from
    // p. Only B's proxies that can touch A now matter, and those lie in A's root sphere (it wraps A's proxies)
    // widened by the reach and B's largest proxy, and in B's root sphere: p and the distance are taken from
    // the ball around that lens (widened by B's drift: where those centres were then), so two bodies resting
    // on each other are limited by their turn times the size of their contact zone, not of the bodies.
    //
    // Returns that bound (world units): the list answers if it is within the skin, and then only pairs of the
    // bands it is within can be within reach (`SkinBandForBound`).
    static double Bound(const ProxyPairCache& inCache, const DeformedBody& inA, const DeformedBody& inB,
                        const PairPlacement& inPlacement, double inRounding)
    {
        const TreeState& a = *inA.state;
        const TreeState& b = *inB.state;
        const double reach = inA.inflate + inB.inflate;
        // How far the bodies' spheres reach from their origins, for the tests' slack on the coordinates.
        const double extent = inA.scale * 2.0 * double(a.CentreBound()) + inB.scale * 2.0 * double(b.CentreBound());
        const double slack = TestSlack(inA, inB, extent, reach + inCache.mSkin);
        const double driftA = inA.scale * ProxyDrift(a, inCache.mQA);
        const double driftB = inB.scale * ProxyDrift(b, inCache.mQB);
        // The lens in B's frame, world-scaled (s_B times B's model units).
        const UpdatedSphere rootA = a.ComputeSphereNow(0);
        const UpdatedSphere rootB = b.ComputeSphereNow(0);
        const Mat3d& rotation = inPlacement.rotation; // N = s_B R_rel
        const Vec3d centreA =
            rotation.transpose() * (inA.scale * Vec3d(rootA.center[0], rootA.center[1], rootA.center[2]) -
                                    inPlacement.translation) /
            inB.scale; // s_B N⁻¹ = Nᵀ / s_B
        const Vec3d centreB = inB.scale * Vec3d(rootB.center[0], rootB.center[1], rootB.center[2]);
        const double largestProxyB = inB.scale * LargestProxyRadius(b);
        const double radiusA = inA.scale * double(rootA.radius) + reach + largestProxyB + inRounding + slack;
        const double radiusB = inB.scale * double(rootB.radius) + inRounding + slack;
        Vec3d pivot;
        double spread;
        if (!LensBall(centreA, radiusA, centreB, radiusB, pivot, spread))
            return 0.0; // no proxy of B can touch A now: the descent finds nothing, and neither does the list
        pivot /= inB.scale;                                  // B's model units
        spread = spread * (1.0 + 1e-9) + driftB + inRounding; // where those centres were then, world-scaled
        const Mat3d turn = rotation - inCache.mRotation;
        const Vec3d columns[3] = {turn.col(0), turn.col(1), turn.col(2)};
        const double turnNorm = SpectralNormBound(columns) / inB.scale; // ≥ ‖R_rel − R_rel₀‖₂
        const double closing = driftA + driftB + (turn * pivot + (inPlacement.translation - inCache.mTranslation)).norm() +
                               turnNorm * spread;
        return closing * (1.0 + 1e-9) + (reach - inCache.mReach) + inRounding + inCache.mRounding + slack;
    }

    // The float rounding of both bodies' spheres now, world units.
    static double Rounding(const DeformedBody& inA, const DeformedBody& inB)
    {
        return inA.scale * ProxyRounding(*inA.state) + inB.scale * ProxyRounding(*inB.state);
    }

    // Each kept pair of bands 1..`inBand` tested exactly as the descent tests a terminal pair; each of their
    // proxies' spheres computed once (a proxy is in several pairs). The pairs of the other bands cannot be
    // within reach (`Bound`).
    static void AnswerFromList(ProxyPairCache& ioCache, const DeformedBody& inA, const DeformedBody& inB,
                               std::uint32_t inBand, std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
    {
        const std::uint32_t nodesA = ioCache.mNodesAUpTo[inBand - 1];
        const std::uint32_t nodesB = ioCache.mNodesBUpTo[inBand - 1];
        const std::uint32_t pairs = ioCache.mPairsUpTo[inBand - 1];
        thread_local std::vector<WorldSphere> spheresA, spheresB;
        spheresA.resize(nodesA);
        spheresB.resize(nodesB);
        for (std::uint32_t i = 0; i < nodesA; ++i)
            spheresA[i] = PlaceTerminal(inA, inA.state->ComputeSphereNow(ioCache.mNodesA[i]));
        for (std::uint32_t i = 0; i < nodesB; ++i)
            spheresB[i] = PlaceTerminal(inB, inB.state->ComputeSphereNow(ioCache.mNodesB[i]));
        std::uint64_t contacts = 0;
        for (std::uint32_t p = 0; p < pairs; ++p)
        {
            const ProxyPairCache::KeptPair& pair = ioCache.mPairs[p];
            const WorldSphere& worldA = spheresA[pair.indexA];
            const WorldSphere& worldB = spheresB[pair.indexB];
            if (TerminalsOverlap(worldA, worldB))
            {
                outContacts.push_back(
                    SphereContact(worldA, worldB, ioCache.mNodesA[pair.indexA], ioCache.mNodesB[pair.indexB]));
                ++contacts;
            }
        }
        ioStats.overlapTests += pairs;
        ioStats.contacts += contacts;
        inA.state->CountUpdates(inA.state->RestShape() ? 0 : nodesA);
        inB.state->CountUpdates(inB.state->RestShape() ? 0 : nodesB);
    }

    static void Query(DeformedBody inA, DeformedBody inB, ProxyPairCache& ioCache,
                      std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
    {
        ProxyPairCache& cache = ioCache;
        TreeState& a = *inA.state;
        TreeState& b = *inB.state;
        const ProxyPairCache::Key key = KeyOf(inA, inB);
        const auto bandNow = [&]
        { return SkinBandForBound(cache.mSkin, Bound(cache, inA, inB, PlacementOf(inA, inB), Rounding(inA, inB))); };
        const auto answer = [&](std::uint32_t inBand) { AnswerFromList(cache, inA, inB, inBand, outContacts, ioStats); };
        const auto descend = [&] { CollideProxies(inA, inB, outContacts, ioStats); };
        const auto makeList = [&]
        {
            // The descent from the roots with A's reach widened by the skin: every proxy pair within reach + skin
            // is kept, and those within the reach give contacts, tested as the descent would (B's sphere as it
            // placed it; A's placed again without the skin). A kept pair's band: 1 if it is within the reach, else
            // the first widening k·s/4 that covers its gap (`BandOfGap`).
            DeformedBody wideA = inA;
            wideA.inflate += cache.mSkin;
            std::uint64_t contacts = 0;
            thread_local std::vector<TraversalFront::NodePair> found;
            thread_local std::vector<std::uint8_t> bands;
            found.clear();
            bands.clear();
            DescendPairs<false>(wideA, inB, cRoots, nullptr, ioStats,
                                [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere&,
                                    const WorldSphere& inWorldB)
                                {
                                    found.push_back({inNodeA, inNodeB});
                                    const WorldSphere worldA = PlaceTerminal(inA, a.ComputeSphereNow(inNodeA));
                                    std::uint32_t band = 1;
                                    if (TerminalsOverlap(worldA, inWorldB))
                                    {
                                        outContacts.push_back(SphereContact(worldA, inWorldB, inNodeA, inNodeB));
                                        ++contacts;
                                    }
                                    else
                                        band = BandOfGap(worldA, inWorldB, cache.Skin());
                                    bands.push_back(std::uint8_t(band));
                                });
            ioStats.contacts += contacts;
            a.CountUpdates(a.RestShape() ? 0 : found.size());
            cache.Keep(found, bands);
            cache.mQA.assign(a.Q().begin(), a.Q().end());
            cache.mQB.assign(b.Q().begin(), b.Q().end());
            const PairPlacement placement = PlacementOf(inA, inB);
            cache.mRotation = placement.rotation;
            cache.mTranslation = placement.translation;
            cache.mReach = inA.inflate + inB.inflate;
            cache.mRounding = Rounding(inA, inB);
            cache.mKey = key;
        };
        cache.Answer(!(cache.mSkin <= 0.0) && !a.TemporalCoherence() && !b.TemporalCoherence(), cache.mKey == key, bandNow,
                     answer, descend, makeList);
    }
};

namespace
{

// The distinct nodes of one side of the kept pairs, ordered by the first band that needs them and then
// ascending, with how many bands 1..k need (cumulative), and for each pair the index of its node. One sort of
// (node, band) keys; the rest is linear but for a binary search a pair.
void OrderNodes(std::span<const TraversalFront::NodePair> inPairs, std::span<const std::uint8_t> inBands,
                std::uint32_t TraversalFront::NodePair::*inSide, std::vector<std::uint32_t>& outNodes,
                std::array<std::uint32_t, cSkinBands>& outUpTo, std::vector<std::uint32_t>& outIndex)
{
    // Node in the high bits, band in the low byte: sorted, a node's first key holds its first band.
    thread_local std::vector<std::uint64_t> keys;
    keys.clear();
    for (std::size_t i = 0; i < inPairs.size(); ++i)
        keys.push_back(std::uint64_t(inPairs[i].*inSide) << 8 | inBands[i]);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end(),
                           [](std::uint64_t inL, std::uint64_t inR) { return inL >> 8 == inR >> 8; }),
               keys.end());
    // Counted into bands, ascending within each: position[i] is where distinct node i (by node) goes.
    outUpTo.fill(0);
    for (const std::uint64_t key : keys)
        ++outUpTo[(key & 0xff) - 1];
    std::array<std::uint32_t, cSkinBands> next{}; // where band k's next node goes: the count of bands 1..k−1
    for (std::uint32_t band = 1; band < cSkinBands; ++band)
    {
        outUpTo[band] += outUpTo[band - 1];
        next[band] = outUpTo[band - 1];
    }
    thread_local std::vector<std::uint32_t> position;
    position.resize(keys.size());
    outNodes.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
    {
        const std::uint32_t at = next[(keys[i] & 0xff) - 1]++;
        position[i] = at;
        outNodes[at] = std::uint32_t(keys[i] >> 8);
    }
    outIndex.resize(inPairs.size());
    for (std::size_t i = 0; i < inPairs.size(); ++i)
    {
        const std::uint64_t node = inPairs[i].*inSide;
        const auto at = std::lower_bound(keys.begin(), keys.end(), node << 8);
        outIndex[i] = position[std::size_t(at - keys.begin())];
    }
}

} // namespace

void ProxyPairCache::Keep(std::span<const TraversalFront::NodePair> inPairs, std::span<const std::uint8_t> inBands)
{
    thread_local std::vector<std::uint32_t> indexA, indexB;
    OrderNodes(inPairs, inBands, &TraversalFront::NodePair::nodeA, mNodesA, mNodesAUpTo, indexA);
    OrderNodes(inPairs, inBands, &TraversalFront::NodePair::nodeB, mNodesB, mNodesBUpTo, indexB);
    // The pairs by band, in the descent's order within a band.
    std::array<std::uint32_t, cSkinBands> next{};
    mPairsUpTo.fill(0);
    for (const std::uint8_t band : inBands)
        ++mPairsUpTo[band - 1];
    for (std::uint32_t band = 1; band < cSkinBands; ++band)
    {
        mPairsUpTo[band] += mPairsUpTo[band - 1];
        next[band] = mPairsUpTo[band - 1];
    }
    mPairs.resize(inPairs.size());
    for (std::size_t i = 0; i < inPairs.size(); ++i)
        mPairs[next[inBands[i] - 1]++] = {indexA[i], indexB[i]};
}

void CollideProxiesCached(DeformedBody inA, DeformedBody inB, ProxyPairCache& ioCache,
                          std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    ProxyPairCacheAccess::Query(inA, inB, ioCache, outContacts, ioStats);
}

} // namespace bdt
