#include "LayeredSphereTree.h"

#include "RefitTopology.h"

#include <algorithm>
#include <cmath>

namespace bdt::bench
{
namespace
{

// Relative inflation of every refitted radius, several times the float rounding of the refit's arithmetic
// (a few operations of relative error 2⁻²⁴ each, on coordinates no larger than the radius plus the centre).
constexpr float cInflate = 4e-7f;

struct FloatSphere
{
    Vec3f center;
    float radius;
};

// The minimal sphere of a triangle: the circumsphere when the triangle is acute, else the sphere on its
// longest edge. The radius is measured back from the centre, so it holds the three vertices as computed.
FloatSphere TriangleSphere(const Vec3f& inA, const Vec3f& inB, const Vec3f& inC)
{
    Vec3f center;
    const Vec3f ab = inB - inA, ac = inC - inA, bc = inC - inB;
    if (ab.dot(ac) <= 0.0f)
        center = 0.5f * (inB + inC); // obtuse or right at A: BC is the longest edge
    else if (-ab.dot(bc) <= 0.0f)
        center = 0.5f * (inA + inC); // at B
    else if (ac.dot(bc) <= 0.0f)
        center = 0.5f * (inA + inB); // at C
    else
    {
        const Vec3f normal = ab.cross(ac);
        const float squared = normal.squaredNorm();
        center =
            squared > 0.0f
                ? Vec3f(inA + (ab.squaredNorm() * ac.cross(normal) + ac.squaredNorm() * normal.cross(ab)) /
                                  (2.0f * squared))
                : Vec3f((inA + inB + inC) / 3.0f);
    }
    const float radius = std::sqrt(
        std::max({(inA - center).squaredNorm(), (inB - center).squaredNorm(), (inC - center).squaredNorm()}));
    return {center, radius};
}

// The smallest sphere enclosing two spheres.
FloatSphere MergeSpheres(const FloatSphere& inA, const FloatSphere& inB)
{
    const Vec3f d = inB.center - inA.center;
    const float distance = d.norm();
    if (distance + inB.radius <= inA.radius)
        return inA;
    if (distance + inA.radius <= inB.radius)
        return inB;
    const float radius = 0.5f * (distance + inA.radius + inB.radius);
    return {inA.center + ((radius - inA.radius) / distance) * d, radius};
}

} // namespace

LayeredSphereTree::LayeredSphereTree(std::shared_ptr<const BDTree> inTree)
    : mTree(CheckedRefitTopology(std::move(inTree), "layered sphere tree"))
{
    mSpheres.assign(4 * std::size_t(mTree->NodeCount()), 0.0f);
}

void LayeredSphereTree::Refit(std::span<const Vec3f> inVertices)
{
    const std::span<const BDTreeNode> nodes = mTree->Nodes();
    const std::span<const Triangle> triangles = mTree->GetModel().Triangles();
    // Breadth-first storage: every child comes after its parent, so a reverse sweep is bottom-up.
    for (std::size_t i = nodes.size(); i-- > 0;)
    {
        const BDTreeNode& node = nodes[i];
        FloatSphere sphere;
        if (node.IsLeaf())
        {
            const Triangle& first = triangles[node.firstTriangle];
            sphere = TriangleSphere(inVertices[first[0]], inVertices[first[1]], inVertices[first[2]]);
            for (std::uint32_t k = 1; k < node.triangleCount; ++k)
            {
                const Triangle& t = triangles[node.firstTriangle + k];
                sphere = MergeSpheres(sphere,
                                      TriangleSphere(inVertices[t[0]], inVertices[t[1]], inVertices[t[2]]));
            }
        }
        else
        {
            const float* a = mSpheres.data() + 4 * std::size_t(node.firstChild);
            sphere = MergeSpheres({Vec3f(a[0], a[1], a[2]), a[3]}, {Vec3f(a[4], a[5], a[6]), a[7]});
        }
        float* out = mSpheres.data() + 4 * i;
        out[0] = sphere.center.x();
        out[1] = sphere.center.y();
        out[2] = sphere.center.z();
        out[3] = sphere.radius + cInflate * (sphere.radius + sphere.center.cwiseAbs().maxCoeff());
    }
}

Sphere LayeredSphereTree::NodeSphere(std::uint32_t inNode) const
{
    const float* s = mSpheres.data() + 4 * std::size_t(inNode);
    return {Vec3d(s[0], s[1], s[2]), double(s[3])};
}

void LayeredSphereTree::Query(const Sphere& inBall, std::span<const Vec3f> inVertices,
                              std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats) const
{
    const Vec3f ball = inBall.center.cast<float>();
    const float ballRadius = float(inBall.radius) * (1.0f + cInflate) + cInflate * ball.cwiseAbs().maxCoeff();
    const auto mayTouch = [&](std::uint32_t inNode)
    {
        const float* s = mSpheres.data() + 4 * std::size_t(inNode);
        const float reach = s[3] + ballRadius;
        return (Vec3f(s[0], s[1], s[2]) - ball).squaredNorm() <= reach * reach;
    };
    QueryBallByVolumes(*mTree, mayTouch, inVertices, inBall, outTriangles, ioStats);
}

} // namespace bdt::bench
