// Tree vs tree: simultaneous descent of two BD-Trees (CollideProxies / CollideTriangles of two bodies).

#include "TreeQueriesInternal.h"

#include <array>
#include <bdt/core/TriangleGeometry.h>
#include <cmath>
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

// Simultaneous descent with an explicit stack, from the roots down to the terminal nodes (proxies or
// leaves). A node's children are updated only after the node's sphere overlapped the other side's. Calls
// inOnTerminal(nodeA, nodeB, sphereA, sphereB) for each overlapping pair of terminal nodes, each pair once.
template <class OnTerminal>
void DescendPairs(const DeformedBody& inA, const DeformedBody& inB, bool inToLeaves, QueryStats& ioStats,
                  OnTerminal&& inOnTerminal)
{
    TreeState& a = *inA.state;
    TreeState& b = *inB.state;
    std::vector<PairEntry> stack;
    stack.reserve(64);
    stack.push_back({0, 0, detail::NodeSphere(inA, 0), detail::NodeSphere(inB, 0)});
    while (!stack.empty())
    {
        const PairEntry entry = stack.back();
        stack.pop_back();
        ++ioStats.overlapTests;
        if (!detail::SpheresOverlap(entry.sphereA, entry.sphereB))
            continue;
        const bool terminalA = detail::IsTerminal(a, entry.nodeA, inToLeaves);
        const bool terminalB = detail::IsTerminal(b, entry.nodeB, inToLeaves);
        if (terminalA && terminalB)
        {
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

} // namespace

void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats)
{
    DescendPairs(inA, inB, false, ioStats,
                 [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere& inSphereA,
                     const WorldSphere& inSphereB)
                 {
                     outContacts.push_back(SphereContact(inSphereA, inSphereB, inNodeA, inNodeB));
                     ++ioStats.contacts;
                 });
}

void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs,
                      QueryStats& ioStats)
{
    std::vector<WorldTriangleArray> scratch;
    DescendPairs(inA, inB, true, ioStats,
                 [&](std::uint32_t inNodeA, std::uint32_t inNodeB, const WorldSphere&, const WorldSphere&)
                 { TestLeafTriangles(inA, inB, inNodeA, inNodeB, scratch, outPairs, ioStats); });
}

} // namespace bdt
