#pragma once

#include "BallTriangles.h"

#include <bdt/core/bounds/BDTree.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt::bench
{

/// Entries of the fixed stack the refitted baselines' queries walk with: one per level and one more.
inline constexpr std::uint32_t cRefitQueryStack = 64;

/// The BD-Tree whose topology a refitted baseline (`LayeredSphereTree`, `AabbTree`) uses, checked: not null,
/// and shallow enough for the queries' stack. Throws `bdt::Error` naming `inWho` otherwise.
std::shared_ptr<const BDTree> CheckedRefitTopology(std::shared_ptr<const BDTree> inTree, const char* inWho);

/// The ball query both refitted baselines make on a tree checked by `CheckedRefitTopology`: depth first from
/// the root, a node's children visited when `inMayTouch(node)` (its refitted volume against the ball, one
/// counted overlap test) says the ball may reach it, and a leaf's triangles tested exactly
/// (`TestBallTriangle`). Appends the triangles found to `outTriangles`.
template <class MayTouch>
void QueryBallByVolumes(const BDTree& inTree, MayTouch&& inMayTouch, std::span<const Vec3f> inVertices,
                        const Sphere& inBall, std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats)
{
    const std::span<const BDTreeNode> nodes = inTree.Nodes();
    std::uint32_t stack[cRefitQueryStack];
    std::uint32_t depth = 0;
    stack[depth++] = 0;
    while (depth > 0)
    {
        const std::uint32_t index = stack[--depth];
        ++ioStats.overlapTests;
        if (!inMayTouch(index))
            continue;
        const BDTreeNode& node = nodes[index];
        if (!node.IsLeaf())
        {
            stack[depth++] = node.firstChild + 1;
            stack[depth++] = node.firstChild;
            continue;
        }
        for (std::uint32_t k = node.firstTriangle; k < node.firstTriangle + node.triangleCount; ++k)
            TestBallTriangle(inTree.GetModel(), k, inVertices, inBall, outTriangles, ioStats);
    }
}

} // namespace bdt::bench
