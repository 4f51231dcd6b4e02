// Single-tree queries: deformed triangles, the rest-frame box query (Bullet's processAllTriangles) and the
// ray cast; and the proxies' drift and rounding bounds the pair caches share (TreeQueriesInternal.h). Tree vs
// tree is in TreeTreeQuery.cpp, tree vs primitive in TreePrimitiveQuery.cpp.

#include "TreeQueriesInternal.h"

#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bdt
{

namespace detail
{

SphereMotion MotionSince(const TreeState& inState, std::span<const float> inQ0, std::span<const float> inRadiusBounds)
{
    const std::span<const float> q = inState.Q();
    const std::span<const float> centre = inState.Proxies().CentreBounds();
    const std::uint32_t m = inState.ModeCount();
    double moved = 0.0, grown = 0.0, squared = 0.0;
    for (std::uint32_t j = 0; j < m; ++j)
    {
        const double dq = std::abs(double(q[j]) - double(inQ0[j]));
        moved += double(centre[j + 1]) * dq;
        grown += double(inRadiusBounds[j + 1]) * dq;
        squared += dq * dq;
    }
    return {moved, std::max(grown, double(inRadiusBounds[m + 1]) * std::sqrt(squared))};
}

double ProxyDrift(const TreeState& inState, std::span<const float> inQ0)
{
    const SphereMotion motion = MotionSince(inState, inQ0, inState.Proxies().ProxyRadiusBounds());
    return motion.moved + motion.grown;
}

double LargestRadius(const TreeState& inState, std::span<const float> inRadiusBounds)
{
    const std::span<const float> q = inState.Q();
    double largest = double(inRadiusBounds[0]);
    for (std::uint32_t j = 0; j < inState.ModeCount(); ++j)
        largest += double(inRadiusBounds[j + 1]) * std::abs(double(q[j]));
    return largest;
}

double LargestProxyRadius(const TreeState& inState)
{
    return LargestRadius(inState, inState.Proxies().ProxyRadiusBounds());
}

double ProxyRounding(const TreeState& inState)
{
    return 2.0 * FloatUpdateSlack(inState.ModeCount()) *
           (double(inState.CentreBound()) + LargestProxyRadius(inState));
}

} // namespace detail

namespace
{

using detail::WorldSphere;

// Ray parameter at which the ray enters the (slack-inflated) sphere, clamped to ≥ 0; false when it misses
// the sphere within [0, inMaxT].
bool RaySphereEntry(const Ray& inRay, const WorldSphere& inSphere, double inMaxT, double& outEntry)
{
    const double radius = inSphere.radius + detail::Slack(inSphere.radius, inSphere.center) +
                          detail::cPositionSlack * inRay.origin.cwiseAbs().maxCoeff();
    const Vec3d toCenter = inSphere.center - inRay.origin;
    const double dd = inRay.direction.squaredNorm();
    if (dd == 0.0)
    {
        outEntry = 0.0;
        return toCenter.squaredNorm() <= radius * radius;
    }
    const double tc = toCenter.dot(inRay.direction) / dd;
    const double miss2 = (toCenter - tc * inRay.direction).squaredNorm();
    if (miss2 > radius * radius)
        return false;
    const double half = std::sqrt((radius * radius - miss2) / dd);
    if (tc + half < 0.0 || tc - half > inMaxT)
        return false;
    outEntry = std::max(0.0, tc - half);
    return true;
}

struct RayEntry
{
    std::uint32_t node;
    double entry;
};

// Tests the triangles of a leaf against the ray, keeping the nearest hit (ties: the lower triangle index).
void RayLeaf(const DeformedBody& inA, const Ray& inRay, const BDTreeNode& inLeaf,
             std::optional<RayHit>& ioBest, QueryStats& ioStats)
{
    for (std::uint32_t t = inLeaf.firstTriangle; t < inLeaf.firstTriangle + inLeaf.triangleCount; ++t)
    {
        Vec3d vertices[3];
        detail::WorldTriangle(inA, t, vertices);
        Ray bounded = inRay;
        bounded.maxT = ioBest ? ioBest->t : inRay.maxT;
        ++ioStats.triangleTests;
        const std::optional<double> hit = RayTriangle(bounded, vertices);
        if (!hit || (ioBest && (*hit > ioBest->t || (*hit == ioBest->t && t > ioBest->triangle))))
            continue;
        RayHit result;
        result.t = *hit;
        result.point = inRay.origin + *hit * inRay.direction;
        result.triangle = t;
        Vec3d normal = (vertices[1] - vertices[0]).cross(vertices[2] - vertices[0]);
        if (normal.dot(inRay.direction) > 0.0)
            normal = -normal;
        const double length = normal.norm();
        result.normal = length > 0.0 ? Vec3d(normal / length) : Vec3d(-inRay.direction.normalized());
        ioBest = result;
    }
}

} // namespace

void DeformedTriangle(const TreeState& inState, std::uint32_t inTriangle, Vec3d (&outVertices)[3])
{
    const Model& model = inState.Tree().GetModel();
    const Triangle& triangle = model.Triangles()[inTriangle];
    for (int k = 0; k < 3; ++k)
        outVertices[k] = model.DeformedPosition(triangle[k], inState.Q());
}

void QueryTriangles(DeformedBody inA, const Aabb& inBox, const TriangleCallback& inCallback, QueryStats& ioStats)
{
    if (inBox.isEmpty())
        return;
    TreeState& state = *inA.state;
    std::vector<std::uint32_t> stack{0};
    while (!stack.empty())
    {
        const std::uint32_t node = stack.back();
        stack.pop_back();
        const WorldSphere sphere = detail::NodeSphere(inA, node);
        ++ioStats.overlapTests;
        // The sphere's bounding cube, not the sphere: a triangle inside the sphere has its bounding box
        // inside the cube (a rigid map takes the sphere to a sphere), but that box can reach the query box
        // where the sphere does not.
        const double reach = sphere.radius + detail::Slack(sphere.radius, sphere.center);
        if (((sphere.center.array() - reach) > inBox.max().array()).any() ||
            ((sphere.center.array() + reach) < inBox.min().array()).any())
            continue;
        const BDTreeNode& info = state.Tree().Node(node);
        if (!info.IsLeaf())
        {
            stack.push_back(info.firstChild + 1);
            stack.push_back(info.firstChild);
            continue;
        }
        for (std::uint32_t t = info.firstTriangle; t < info.firstTriangle + info.triangleCount; ++t)
        {
            Vec3d vertices[3];
            detail::WorldTriangle(inA, t, vertices);
            ++ioStats.triangleTests;
            if (TriangleBoundsOverlap(vertices, inBox))
            {
                ++ioStats.contacts;
                inCallback(t, vertices);
            }
        }
    }
}

void QueryTriangles(TreeState& ioState, const Aabb& inBox, const TriangleCallback& inCallback,
                    QueryStats& ioStats)
{
    QueryTriangles(DeformedBody{&ioState, Pose::Identity()}, inBox, inCallback, ioStats);
}

std::optional<RayHit> RayCast(DeformedBody inA, const Ray& inRay, QueryStats& ioStats)
{
    TreeState& state = *inA.state;
    std::optional<RayHit> best;
    auto limit = [&] { return best ? best->t : inRay.maxT; };
    std::vector<RayEntry> stack;
    double entry = 0.0;
    ++ioStats.overlapTests;
    if (!RaySphereEntry(inRay, detail::NodeSphere(inA, 0), inRay.maxT, entry))
        return std::nullopt;
    stack.push_back({0, entry});
    while (!stack.empty())
    {
        const RayEntry current = stack.back();
        stack.pop_back();
        if (current.entry > limit())
            continue; // a nearer hit was found since this node was pushed
        const BDTreeNode& node = state.Tree().Node(current.node);
        if (node.IsLeaf())
        {
            RayLeaf(inA, inRay, node, best, ioStats);
            continue;
        }
        RayEntry children[2];
        int count = 0;
        for (std::uint32_t c : {node.firstChild, node.firstChild + 1})
        {
            ++ioStats.overlapTests;
            if (RaySphereEntry(inRay, detail::NodeSphere(inA, c), limit(), entry))
                children[count++] = {c, entry};
        }
        // Visit the nearer child first: push it last.
        if (count == 2 && children[0].entry < children[1].entry)
            std::swap(children[0], children[1]);
        for (int i = 0; i < count; ++i)
            stack.push_back(children[i]);
    }
    return best;
}

std::optional<SurfaceProjection> ClosestSurfacePoint(DeformedBody inA, const Vec3d& inPoint, QueryStats& ioStats)
{
    if (!inPoint.allFinite())
        return std::nullopt;
    TreeState& state = *inA.state;
    inA.inflate = 0.0;
    // Lower bound of the distance from the point to anything in a node: to its sphere, less the rounding slack
    // of an updated sphere.
    auto bound = [&](std::uint32_t inNode)
    {
        ++ioStats.overlapTests;
        const detail::WorldSphere sphere = detail::NodeSphere(inA, inNode);
        return (inPoint - sphere.center).norm() - sphere.radius - detail::Slack(sphere.radius, sphere.center);
    };
    std::optional<SurfaceProjection> best;
    Vec3d bestVertices[3];
    struct Entry
    {
        std::uint32_t node;
        double bound;
    };
    std::vector<Entry> stack{{0, bound(0)}};
    while (!stack.empty())
    {
        const Entry current = stack.back();
        stack.pop_back();
        if (best && current.bound > best->distance)
            continue;
        const BDTreeNode& node = state.Tree().Node(current.node);
        if (node.IsLeaf())
        {
            for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
            {
                Vec3d vertices[3];
                detail::WorldTriangle(inA, t, vertices);
                ++ioStats.triangleTests;
                const Vec3d point = ClosestPointOnTriangle(inPoint, vertices);
                const double distance = (point - inPoint).norm();
                if (best && (distance > best->distance || (distance == best->distance && t > best->triangle)))
                    continue;
                best = SurfaceProjection{point, distance, t, Vec3d::Zero()};
                std::copy(vertices, vertices + 3, bestVertices);
            }
            continue;
        }
        Entry children[2] = {{node.firstChild, bound(node.firstChild)},
                             {node.firstChild + 1, bound(node.firstChild + 1)}};
        // Visit the nearer child first: push it last.
        if (children[0].bound < children[1].bound)
            std::swap(children[0], children[1]);
        for (const Entry& child : children)
            if (!best || child.bound <= best->distance)
                stack.push_back(child);
    }
    if (best)
        best->barycentric = ClosestBarycentric(inPoint, bestVertices);
    return best;
}

} // namespace bdt
