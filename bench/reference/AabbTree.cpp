#include "AabbTree.h"

#include "RefitTopology.h"

#include <limits>

namespace bdt::bench
{

AabbTree::AabbTree(std::shared_ptr<const BDTree> inTree)
    : mTree(CheckedRefitTopology(std::move(inTree), "AABB tree"))
{
    mBoxes.assign(6 * std::size_t(mTree->NodeCount()), 0.0f);
}

void AabbTree::Refit(std::span<const Vec3f> inVertices)
{
    const std::span<const BDTreeNode> nodes = mTree->Nodes();
    const std::span<const Triangle> triangles = mTree->GetModel().Triangles();
    // Breadth-first storage: a reverse sweep is bottom-up.
    for (std::size_t i = nodes.size(); i-- > 0;)
    {
        const BDTreeNode& node = nodes[i];
        Vec3f lo, hi;
        if (node.IsLeaf())
        {
            lo = Vec3f::Constant(std::numeric_limits<float>::infinity());
            hi = -lo;
            for (std::uint32_t k = node.firstTriangle; k < node.firstTriangle + node.triangleCount; ++k)
                for (const std::uint32_t v : triangles[k])
                {
                    lo = lo.cwiseMin(inVertices[v]);
                    hi = hi.cwiseMax(inVertices[v]);
                }
        }
        else
        {
            const float* a = mBoxes.data() + 6 * std::size_t(node.firstChild);
            lo = Vec3f(a[0], a[1], a[2]).cwiseMin(Vec3f(a[6], a[7], a[8]));
            hi = Vec3f(a[3], a[4], a[5]).cwiseMax(Vec3f(a[9], a[10], a[11]));
        }
        float* out = mBoxes.data() + 6 * i;
        for (int axis = 0; axis < 3; ++axis)
        {
            out[axis] = lo[axis];
            out[3 + axis] = hi[axis];
        }
    }
}

void AabbTree::Query(const Sphere& inBall, std::span<const Vec3f> inVertices,
                     std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats) const
{
    // The box corners are the vertices' own floats (min and max are exact): only the distance needs slack.
    const Vec3d ball = inBall.center;
    const double reach = inBall.radius * (1.0 + 1e-12);
    const auto mayTouch = [&](std::uint32_t inNode)
    {
        const float* box = mBoxes.data() + 6 * std::size_t(inNode);
        double squared = 0.0;
        for (int axis = 0; axis < 3; ++axis)
        {
            const double below = double(box[axis]) - ball[axis], above = ball[axis] - double(box[3 + axis]);
            const double gap = below > 0.0 ? below : (above > 0.0 ? above : 0.0);
            squared += gap * gap;
        }
        return squared <= reach * reach;
    };
    QueryBallByVolumes(*mTree, mayTouch, inVertices, inBall, outTriangles, ioStats);
}

} // namespace bdt::bench
