// Surface contacts (SurfaceContacts.h): whether a patch that made no contact still meets a primitive or
// crosses a static mesh, and which of a general convex's per-triangle closest points a patch keeps. The
// features are in NormalCones.h, FeaturePairs.h and PatchSide.h; the contacts of a patch against a mesh in
// PatchMeshContacts.cpp, against a primitive in PatchPrimitiveContacts.cpp.

#include "FeaturePairs.h"
#include "NormalCones.h"
#include "PatchSide.h"
#include "SurfaceContacts.h"
#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace bdt
{

namespace
{

using detail::Barycentric;
using detail::BoxesMeet;
using detail::cInfinity;
using detail::Contains;
using detail::PatchSide;
using detail::SegmentBox;

// Whether an own triangle of the patch whose box meets `inBound` passes `inMeets` (its corners, world).
template <class Meets> bool AnyOwnTriangle(const PatchView& inA, const Aabb& inBound, const Meets& inMeets)
{
    if (!BoxesMeet(inBound, inA.box, 0.0))
        return false;
    const ProxyPatches& patches = *inA.patches;
    const auto triangles = patches.Triangles(inA.proxy);
    const std::uint32_t own = std::min<std::uint32_t>(patches.OwnTriangleCount(inA.proxy),
                                                      std::uint32_t(inA.faceBoxes.size()));
    for (std::uint32_t t = 0; t < own; ++t)
    {
        if (!BoxesMeet(inBound, inA.faceBoxes[t], 0.0))
            continue;
        const Vec3d face[3] = {inA.vertices[triangles[t][0]], inA.vertices[triangles[t][1]],
                               inA.vertices[triangles[t][2]]};
        if (inMeets(face))
            return true;
    }
    return false;
}

} // namespace

bool PatchMeets(const PatchView& inA, const Sphere& inSphere)
{
    const Aabb bound(inSphere.center.array() - inSphere.radius, inSphere.center.array() + inSphere.radius);
    return AnyOwnTriangle(inA, bound, [&](const Vec3d(&inFace)[3])
                          { return TriangleSphereContact(inFace, inSphere).has_value(); });
}

bool PatchMeets(const PatchView& inA, const OrientedBox& inBox)
{
    const Vec3d reach = inBox.pose.rotation.cwiseAbs() * inBox.halfExtents;
    const Aabb bound(inBox.pose.translation - reach, inBox.pose.translation + reach);
    return AnyOwnTriangle(inA, bound,
                          [&](const Vec3d(&inFace)[3])
                          {
                              const Vec3d local[3] = {inBox.pose.ApplyInverse(inFace[0]),
                                                      inBox.pose.ApplyInverse(inFace[1]),
                                                      inBox.pose.ApplyInverse(inFace[2])};
                              return TriangleOverlapsBox(local, inBox.halfExtents);
                          });
}

bool PatchMeets(const PatchView& inA, const Capsule& inCapsule)
{
    Aabb bound = SegmentBox(inCapsule.a, inCapsule.b);
    bound = Aabb(bound.min().array() - inCapsule.radius, bound.max().array() + inCapsule.radius);
    return AnyOwnTriangle(inA, bound,
                          [&](const Vec3d(&inFace)[3])
                          {
                              Vec3d onSegment, onTriangle;
                              return ClosestPointsSegmentTriangle(inCapsule.a, inCapsule.b, inFace, onSegment,
                                                                  onTriangle) <= inCapsule.radius;
                          });
}

bool PatchCrossesSoup(const PatchView& inA, std::span<const SoupTriangle> inTriangles)
{
    for (const SoupTriangle& soup : inTriangles)
    {
        Aabb box;
        for (const Vec3d& vertex : soup.vertices)
            box.extend(vertex);
        if (AnyOwnTriangle(inA, box,
                           [&](const Vec3d(&inFace)[3]) { return TrianglesIntersect(inFace, soup.vertices); }))
            return true;
    }
    return false;
}

bool AcceptsTriangleContact(const PatchView& inA, std::uint32_t inTriangle, const Vec3d& inPoint,
                            const Vec3d& inU, Vec3d& outBarycentric)
{
    const PatchSide side(inA);
    const ProxyPatches& patches = *inA.patches;
    if (inTriangle >= patches.OwnTriangleCount(inA.proxy))
        return false;
    const std::array<std::uint32_t, 3>& corners = patches.Triangles(inA.proxy)[inTriangle];
    Vec3d bary(cInfinity, cInfinity, cInfinity);
    if (!Barycentric(inPoint, inA.vertices[corners[0]], inA.vertices[corners[1]], inA.vertices[corners[2]],
                     bary))
    {
        if (!std::isfinite(bary.x()))
            return false; // a degenerate triangle: its neighbours make its contacts
        // Just outside, to rounding: onto the closure.
        bary = bary.cwiseMax(0.0);
        bary /= bary.sum();
    }
    constexpr double cOnBoundary = 1e-9;
    int zeros = 0, vertex = 0;
    for (int k = 0; k < 3; ++k)
        if (bary[k] <= cOnBoundary)
            ++zeros;
        else
            vertex = k;
    outBarycentric = bary;
    if (zeros == 0)
        return true; // the face's own
    if (zeros >= 2)
    {
        // A vertex: from its naming triangle in its owner's patch, within its cone.
        const std::uint32_t local = corners[vertex];
        if (local >= patches.OwnedVertexCount(inA.proxy) ||
            patches.VertexTriangles(inA.proxy)[local] != patches.TreeTriangle(inA.proxy, inTriangle))
            return false;
        outBarycentric = Vec3d::Zero();
        outBarycentric[vertex] = 1.0;
        return Contains(side.Point(local).cone, inU);
    }
    // An edge: the two corners with weight, from its owner face in its owner's patch, within its wedge.
    int k0 = -1, k1 = -1;
    for (int k = 0; k < 3; ++k)
        if (bary[k] > cOnBoundary)
            (k0 < 0 ? k0 : k1) = k;
    const std::span<const ProxyPatches::Edge> edges = patches.Edges(inA.proxy);
    for (std::uint32_t e = 0; e < edges.size(); ++e)
    {
        const ProxyPatches::Edge& edge = edges[e];
        const bool same = (edge.a == corners[k0] && edge.b == corners[k1]) ||
                          (edge.a == corners[k1] && edge.b == corners[k0]);
        if (!same)
            continue;
        if (edge.faces[0] != inTriangle)
            return false;
        outBarycentric = Vec3d::Zero();
        const double total = bary[k0] + bary[k1];
        outBarycentric[k0] = bary[k0] / total;
        outBarycentric[k1] = bary[k1] / total;
        return Contains(side.Segment(e).cone, inU);
    }
    return false; // owned by another proxy's patch
}

} // namespace bdt
