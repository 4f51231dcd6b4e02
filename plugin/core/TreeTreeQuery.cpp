// Tree vs tree: simultaneous descent of two BD-Trees (CollideProxies / CollideTriangles of two bodies).

#include "TreeQueriesInternal.h"

#include <array>
#include <bdt/core/TriangleGeometry.h>
#include <cmath>
#include <span>
#include <vector>

namespace bdt
{

namespace
{

using detail::WorldSphere;

// A pair of nodes waiting for its sphere test, with both spheres already updated and in world.
struct PairEntry
{
    std::uint32_t nodeA;
    std::uint32_t nodeB;
    WorldSphere sphereA;
    WorldSphere sphereB;
};

// Simultaneous descent with an explicit stack, from the node pairs `inStart` down to the terminal nodes
// (proxies or leaves). A node's children are updated only after the node's sphere overlapped the other
// side's. Calls inOnTerminal(nodeA, nodeB, sphereA, sphereB) for each overlapping pair of terminal nodes,
// each pair once. With `outStops`, appends every pair where the descent stopped: each pair whose spheres
// missed and each terminal pair reached (the next front, `TraversalFront`).
template <class OnTerminal>
void DescendPairs(const DeformedBody& inA, const DeformedBody& inB, bool inToLeaves,
                  std::span<const TraversalFront::NodePair> inStart,
                  std::vector<TraversalFront::NodePair>* outStops, QueryStats& ioStats,
                  OnTerminal&& inOnTerminal)
{
    TreeState& a = *inA.state;
    TreeState& b = *inB.state;
    std::vector<PairEntry> stack;
    stack.reserve(64);
    // Stacked in reverse, so the start pairs are visited in their order.
    for (std::size_t i = inStart.size(); i-- > 0;)
        stack.push_back({inStart[i].nodeA, inStart[i].nodeB, detail::NodeSphere(inA, inStart[i].nodeA),
                         detail::NodeSphere(inB, inStart[i].nodeB)});
    while (!stack.empty())
    {
        const PairEntry entry = stack.back();
        stack.pop_back();
        ++ioStats.overlapTests;
        if (!detail::SpheresOverlap(entry.sphereA, entry.sphereB))
        {
            if (outStops != nullptr)
                outStops->push_back({entry.nodeA, entry.nodeB});
            continue;
        }
        const bool terminalA = detail::IsTerminal(a, entry.nodeA, inToLeaves);
        const bool terminalB = detail::IsTerminal(b, entry.nodeB, inToLeaves);
        if (terminalA && terminalB)
        {
            if (outStops != nullptr)
                outStops->push_back({entry.nodeA, entry.nodeB});
            inOnTerminal(entry.nodeA, entry.nodeB, entry.sphereA, entry.sphereB);
            continue;
        }
        // Split the larger sphere (or the one that can still be split).
        const bool splitA = !terminalA && (terminalB || entry.sphereA.radius >= entry.sphereB.radius);
        if (splitA)
        {
            const std::uint32_t child = a.Tree().Node(entry.nodeA).firstChild;
            for (std::uint32_t c : {child + 1, child})
                stack.push_back({c, entry.nodeB, detail::NodeSphere(inA, c), entry.sphereB});
        }
        else
        {
            const std::uint32_t child = b.Tree().Node(entry.nodeB).firstChild;
            for (std::uint32_t c : {child + 1, child})
                stack.push_back({entry.nodeA, c, entry.sphereA, detail::NodeSphere(inB, c)});
        }
    }
}

constexpr TraversalFront::NodePair cRoots[1] = {{0, 0}};

// Contact between two overlapping spheres: normal from B to A, depth rA + rB − distance, point midway
// between the deepest points of the two spheres along the normal.
ProxyContact SphereContact(const WorldSphere& inA, const WorldSphere& inB, std::uint32_t inNodeA,
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

// The proxy contact of each overlapping terminal pair.
auto AppendSphereContact(std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    return [&outContacts, &ioStats](std::uint32_t inNodeA, std::uint32_t inNodeB,
                                    const WorldSphere& inSphereA, const WorldSphere& inSphereB)
    {
        outContacts.push_back(SphereContact(inSphereA, inSphereB, inNodeA, inNodeB));
        ++ioStats.contacts;
    };
}

} // namespace

/// Grants the queries access to a front's state.
struct TraversalFrontAccess
{
    static TraversalFront::Key KeyOf(const DeformedBody& inA, const DeformedBody& inB)
    {
        return {&inA.state->Tree(), &inB.state->Tree(), inA.state->Proxies().Level(),
                inB.state->Proxies().Level()};
    }
    static std::vector<TraversalFront::NodePair>& Pairs(TraversalFront& ioFront) { return ioFront.mPairs; }
    static std::uint64_t& RootTests(TraversalFront& ioFront) { return ioFront.mRootTests; }
    static TraversalFront::Key& Key(TraversalFront& ioFront) { return ioFront.mKey; }
};

void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats)
{
    DescendPairs(inA, inB, false, cRoots, nullptr, ioStats, AppendSphereContact(outContacts, ioStats));
}

void CollideProxies(DeformedBody inA, DeformedBody inB, TraversalFront& ioFront,
                    std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    std::vector<TraversalFront::NodePair>& front = TraversalFrontAccess::Pairs(ioFront);
    std::uint64_t& rootTests = TraversalFrontAccess::RootTests(ioFront);
    // A front is only valid for the trees and proxy levels it was made with.
    const TraversalFront::Key key = TraversalFrontAccess::KeyOf(inA, inB);
    if (TraversalFrontAccess::Key(ioFront) != key)
        ioFront.Clear();
    TraversalFrontAccess::Key(ioFront) = key;
    const bool fromRoots = front.empty();
    const std::uint64_t testsBefore = ioStats.overlapTests;
    const std::size_t contactsBefore = outContacts.size();
    // The next front is built apart from the one being read (per thread, reused: no allocation when warm).
    thread_local std::vector<TraversalFront::NodePair> next;
    next.clear();
    DescendPairs(inA, inB, false, fromRoots ? std::span<const TraversalFront::NodePair>(cRoots) : front,
                 &next, ioStats, AppendSphereContact(outContacts, ioStats));
    const std::uint64_t tests = ioStats.overlapTests - testsBefore;
    if (fromRoots)
        rootTests = tests;
    // Keep the front while it pays: the bodies still touch and it cost no more than the roots did.
    if (outContacts.size() > contactsBefore && (fromRoots || tests <= rootTests))
        front.swap(next);
    else
        ioFront.Clear();
}

void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs,
                      QueryStats& ioStats)
{
    std::vector<WorldTriangleArray> scratch;
    DescendPairs(inA, inB, true, cRoots, nullptr, ioStats,
                 [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere&, const WorldSphere&)
                 { TestLeafTriangles(inA, inB, inNodeA, inNodeB, scratch, outPairs, ioStats); });
}

} // namespace bdt
