// Tree vs tree (TreeQueries.h): the proxy contacts and triangle pairs of two bodies by the simultaneous
// descent of their BD-Trees (PairDescent.h), its budgeted form, and the descent culled by box rows; and the
// terminal pairs' exact test and contact, one machine code for every path. From a front: TraversalFront.cpp;
// from a list of proxy pairs: ProxyPairCache.cpp.

#include "PairDescent.h"
#include "RegionTraversal.h"
#include "TreeQueriesInternal.h"
#include "core/geometry/TriangleGeometry.h"

#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/base/Error.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <vector>

namespace bdt
{

namespace detail
{

// The terminal pairs' placement, test and contact: see PairDescent.h.
BDT_NOINLINE WorldSphere PlaceTerminal(const DeformedBody& inBody, const UpdatedSphere& inSphere)
{
    return detail::PlaceSphere(inBody, inSphere);
}

BDT_NOINLINE bool TerminalsOverlap(const WorldSphere& inA, const WorldSphere& inB)
{
    return detail::SpheresOverlap(inA, inB);
}

BDT_NOINLINE ProxyContact SphereContact(const WorldSphere& inA, const WorldSphere& inB, std::uint32_t inNodeA,
                           std::uint32_t inNodeB)
{
    const Vec3d delta = inA.center - inB.center;
    const double distance = delta.norm();
    ProxyContact contact;
    // Coincident centres give no direction: +Y, deterministic.
    contact.normal = distance > 0.0 ? Vec3d(delta / distance) : Vec3d(Vec3d::UnitY());
    contact.depth = std::max(0.0, inA.radius + inB.radius - distance);
    contact.point =
        0.5 * ((inA.center - inA.radius * contact.normal) + (inB.center + inB.radius * contact.normal));
    contact.nodeA = inNodeA;
    contact.nodeB = inNodeB;
    return contact;
}

} // namespace detail

namespace
{

using detail::AppendSphereContact;
using detail::cRoots;
using detail::DescendPairs;
using detail::PairEntry;
using detail::PlaceTerminal;
using detail::SphereContact;
using detail::TerminalsOverlap;
using detail::WorldSphere;

using WorldTriangleArray = std::array<Vec3d, 3>;

// Exact tests of every triangle of leaf A against every triangle of leaf B (in world). B's triangles are
// deformed once into ioScratch, since leaves may hold several triangles.
void TestLeafTriangles(const DeformedBody& inA, const DeformedBody& inB, std::uint32_t inNodeA,
                       std::uint32_t inNodeB, std::vector<WorldTriangleArray>& ioScratch,
                       std::vector<TrianglePair>& outPairs, QueryStats& ioStats)
{
    const BDTreeNode& leafA = inA.state->Tree().Node(inNodeA);
    const BDTreeNode& leafB = inB.state->Tree().Node(inNodeB);
    ioScratch.resize(leafB.triangleCount);
    for (std::uint32_t k = 0; k < leafB.triangleCount; ++k)
    {
        Vec3d vertices[3];
        detail::WorldTriangle(inB, leafB.firstTriangle + k, vertices);
        ioScratch[k] = {vertices[0], vertices[1], vertices[2]};
    }
    for (std::uint32_t ta = leafA.firstTriangle; ta < leafA.firstTriangle + leafA.triangleCount; ++ta)
    {
        Vec3d vertices[3];
        detail::WorldTriangle(inA, ta, vertices);
        for (std::uint32_t k = 0; k < leafB.triangleCount; ++k)
        {
            const Vec3d other[3] = {ioScratch[k][0], ioScratch[k][1], ioScratch[k][2]};
            ++ioStats.triangleTests;
            if (TrianglesIntersect(vertices, other))
            {
                outPairs.push_back({ta, leafB.firstTriangle + k});
                ++ioStats.contacts;
            }
        }
    }
}

} // namespace

void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats)
{
    DescendPairs<false>(inA, inB, cRoots, nullptr, ioStats, AppendSphereContact(outContacts, ioStats));
}

bool CollideProxiesBudgeted(DeformedBody inA, DeformedBody inB, std::uint64_t inMaxTests,
                            std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    bool interrupted = false;
    TreeState& b = *inB.state;
    DescendPairs<false>(
        inA, inB, cRoots, nullptr, ioStats, AppendSphereContact(outContacts, ioStats), std::max<std::uint64_t>(inMaxTests, 1),
        [&](const PairEntry& inPair)
        {
            // An untested band pair: the contact of its two spheres (centre to centre), if they overlap in the
            // double test as terminal pairs must.
            interrupted = true;
            const WorldSphere worldA = PlaceTerminal(inA, inPair.sphereA);
            const WorldSphere worldB = PlaceTerminal(inB, b.ComputeSphereNow(inPair.nodeB));
            if (TerminalsOverlap(worldA, worldB))
            {
                outContacts.push_back(SphereContact(worldA, worldB, inPair.nodeA, inPair.nodeB));
                ++ioStats.contacts;
                ++ioStats.approximateContacts;
            }
        });
    return interrupted;
}

namespace
{

// One side of the box-culled descent: the body, its box rows, q as the box update reads it, how far its boxes are
// grown (world units), and the last few boxes computed (direct-mapped by node: a node is tested against several
// nodes of the other body).
class BoxSide
{
public:
    BoxSide(const DeformedBody& inBody, const BDAabbTree& inBoxes) : mBody(inBody), mBoxes(inBoxes)
    {
        const auto q = inBody.state->Q();
        mQq.resize(8 * q.size());
        MakeBoxUpdateInput(q, mQq.data());
        std::fill(std::begin(mKeys), std::end(mKeys), 0xffffffffu);
        // A proxy's updated sphere lies within its geometry's box grown by 2R' per axis: its centre c' is within
        // R' − R of the deformed vertices' hull (|Ū_p q − Σβ_i U_i q| ≤ ΔRᵀ|q|, and ≤ δR_tight‖q‖, for the convex
        // β with c = Σβ_i p_i), its radius R'. So a node's box grown by twice the largest proxy radius holds the
        // spheres of the proxies below it, and culling with it loses no sphere contact.
        const TreeState& state = *inBody.state;
        mGrowth = inBody.scale * (2.0 * detail::LargestProxyRadius(state) * (1.0 + 1e-6) + detail::ProxyRounding(state)) +
                  inBody.inflate;
    }

    /// Node `inNode`'s grown box in world (axes those of the pose).
    const WorldBox& Box(std::uint32_t inNode, std::uint64_t& ioUpdates)
    {
        const std::uint32_t slot = inNode & (cSlots - 1);
        if (mKeys[slot] != inNode)
        {
            UpdatedBox box;
            UpdateBox(mBoxes.Row(inNode), mQq.data(), mBoxes.ModeCount(), box);
            mWorld[slot].center = mBody.pose.Apply(mBody.scale * Vec3d(box.center[0], box.center[1], box.center[2]));
            mWorld[slot].halfExtents =
                (mBody.scale * Vec3d(box.halfExtents[0], box.halfExtents[1], box.halfExtents[2])).array() + mGrowth;
            mKeys[slot] = inNode;
            ++ioUpdates;
        }
        return mWorld[slot];
    }

private:
    static constexpr std::uint32_t cSlots = 64;
    const DeformedBody& mBody;
    const BDAabbTree& mBoxes;
    AlignedVector<float> mQq;
    double mGrowth = 0.0;
    std::uint32_t mKeys[cSlots];
    WorldBox mWorld[cSlots];
};

} // namespace

void CollideProxiesWithBoxes(DeformedBody inA, DeformedBody inB, const BDAabbTree& inBoxesA,
                             const BDAabbTree& inBoxesB, std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    if (&inBoxesA.Tree() != &inA.state->Tree() || &inBoxesB.Tree() != &inB.state->Tree())
        throw Error("CollideProxiesWithBoxes: box rows of another tree");
    if (inA.state->TemporalCoherence() || inB.state->TemporalCoherence())
    {
        // Spheres kept across steps (§3.5) are not those of the current q the boxes bound.
        CollideProxies(inA, inB, outContacts, ioStats);
        return;
    }
    BoxSide sideA(inA, inBoxesA), sideB(inB, inBoxesB);
    const BoxOverlapTest boxesOverlap(inA.pose.rotation, inB.pose.rotation);
    const ContactProxies& proxiesA = inA.state->Proxies();
    const ContactProxies& proxiesB = inB.state->Proxies();
    std::uint64_t updatesA = 0, updatesB = 0;
    thread_local std::vector<TraversalFront::NodePair> stack;
    stack.assign(1, {0, 0});
    while (!stack.empty())
    {
        const TraversalFront::NodePair pair = stack.back();
        stack.pop_back();
        // The spheres first (a few flops), then the boxes: a pair goes on only if both overlap.
        const WorldSphere sphereA = PlaceTerminal(inA, inA.state->Sphere(pair.nodeA));
        const WorldSphere sphereB = PlaceTerminal(inB, inB.state->Sphere(pair.nodeB));
        ++ioStats.overlapTests;
        if (!TerminalsOverlap(sphereA, sphereB))
            continue;
        const std::uint32_t splitA = proxiesA.ChildrenBelow(pair.nodeA);
        const std::uint32_t splitB = proxiesB.ChildrenBelow(pair.nodeB);
        if (splitA == 0 && splitB == 0)
        {
            outContacts.push_back(SphereContact(sphereA, sphereB, pair.nodeA, pair.nodeB));
            ++ioStats.contacts;
            continue;
        }
        // Copies: the other side's next box may take the same slot.
        const WorldBox a = sideA.Box(pair.nodeA, updatesA);
        const WorldBox b = sideB.Box(pair.nodeB, updatesB);
        ++ioStats.overlapTests;
        if (!boxesOverlap(a, b))
            continue;
        if (splitA != 0 && (splitB == 0 || sphereA.radius >= sphereB.radius))
        {
            stack.push_back({splitA + 1, pair.nodeB});
            stack.push_back({splitA, pair.nodeB});
        }
        else
        {
            stack.push_back({pair.nodeA, splitB + 1});
            stack.push_back({pair.nodeA, splitB});
        }
    }
    inA.state->CountUpdates(updatesA);
    inB.state->CountUpdates(updatesB);
}

void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs,
                      QueryStats& ioStats)
{
    std::vector<WorldTriangleArray> scratch;
    DescendPairs<true>(inA, inB, cRoots, nullptr, ioStats,
                 [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere&, const WorldSphere&)
                 { TestLeafTriangles(inA, inB, inNodeA, inNodeB, scratch, outPairs, ioStats); });
}

} // namespace bdt
