#pragma once

// A proxy's patch of a deformed surface (`PatchView`) as one side of the feature pairs (FeaturePairs.h): its
// owned vertices, own faces and owned edges, with their normal cones and names. Private to plugin/core.

#include "FeaturePairs.h"
#include "NormalCones.h"
#include "SurfaceContacts.h"

#include <array>
#include <cstdint>
#include <span>
#include <utility>

namespace bdt::detail
{

// A mesh side seen by the feature pairs: its owned vertices, own faces and owned edges with their cones and
// names. `Patch` reads a `PatchView`.
class PatchSide
{
public:
    explicit PatchSide(const PatchView& inView)
        : mView(inView), mPatches(*inView.patches), mProxy(inView.proxy),
          mTriangles(mPatches.Triangles(mProxy)), mEdges(mPatches.Edges(mProxy)),
          mVertexTriangles(mPatches.VertexTriangles(mProxy)), mFirst(mPatches.TreeTriangle(mProxy, 0)),
          mClosed(mPatches.Closed())
    {
    }

    const Sphere& Bound() const { return mView.bound; }
    const Aabb& Box() const { return mView.box; }
    const Aabb& FaceBox(std::uint32_t inFace) const { return mView.faceBoxes[inFace]; }
    const PatchView& View() const { return mView; }
    double Margin() const { return mView.margin; }
    double DepthLimit() const { return mView.depthLimit; }
    bool TwoSided() const { return !mClosed; }

    std::uint32_t PointCount() const { return mPatches.OwnedVertexCount(mProxy); }
    const Vec3d& PointAt(std::uint32_t inOwned) const { return mView.vertices[inOwned]; }
    PointFeature Point(std::uint32_t inOwned) const
    {
        PointFeature point;
        point.p = mView.vertices[inOwned];
        point.cone.kind = Cone::EKind::Vertex;
        point.cone.ringVertices = mView.vertices.data();
        point.cone.ring = mPatches.Neighbours(mProxy, inOwned);
        point.cone.position = point.p;
        point.cone.sided = mClosed && !mPatches.OpenVertex(mProxy, inOwned);
        point.cone.axis = mView.normals[mVertexTriangles[inOwned] - mFirst];
        return point;
    }
    Naming PointNaming(std::uint32_t inOwned) const
    {
        const std::uint32_t local = mVertexTriangles[inOwned] - mFirst;
        Naming naming{mProxy, mVertexTriangles[inOwned], Vec3d::Zero()};
        for (int k = 0; k < 3; ++k)
            if (mTriangles[local][k] == inOwned)
            {
                naming.barycentric[k] = 1.0;
                break;
            }
        return naming;
    }

    std::uint32_t FaceCount() const { return mPatches.OwnTriangleCount(mProxy); }
    const Vec3d& FaceVertex(std::uint32_t inFace, int inCorner) const
    {
        return mView.vertices[mTriangles[inFace][inCorner]];
    }
    const Vec3d& FaceNormal(std::uint32_t inFace) const { return mView.normals[inFace]; }
    Naming FaceNaming(std::uint32_t inFace, const Vec3d& inBary) const
    {
        return {mProxy, mFirst + inFace, inBary};
    }

    std::uint32_t SegmentCount() const { return std::uint32_t(mEdges.size()); }
    std::pair<Vec3d, Vec3d> SegmentEnds(std::uint32_t inEdge) const
    {
        return {mView.vertices[mEdges[inEdge].a], mView.vertices[mEdges[inEdge].b]};
    }
    SegmentFeature Segment(std::uint32_t inEdge) const
    {
        const ProxyPatches::Edge& edge = mEdges[inEdge];
        SegmentFeature segment;
        segment.a = mView.vertices[edge.a];
        segment.b = mView.vertices[edge.b];
        const Vec3d& n0 = mView.normals[edge.faces[0]];
        if (edge.open || edge.faces[1] == ProxyPatches::cNoFace)
        {
            if (edge.faces[1] != ProxyPatches::cNoFace || n0.isZero())
                segment.cone.kind = Cone::EKind::All; // non-manifold or inconsistent: no outside known
            else
            {
                // A border of a two-sided sheet: directions away from the face, in the plane across the edge.
                segment.cone.kind = Cone::EKind::HalfSpace;
                segment.cone.axis = (segment.b - segment.a).cross(n0).normalized();
            }
            return segment;
        }
        const Vec3d& n1 = mView.normals[edge.faces[1]];
        if (n0.isZero() || n1.isZero())
        {
            segment.cone.kind = Cone::EKind::All;
            return segment;
        }
        segment.cone =
            MeshEdgeWedge(segment.a, n0, n1, mView.vertices[Opposite(edge.faces[1], edge.a, edge.b)]);
        return segment;
    }
    Naming SegmentNaming(std::uint32_t inEdge, double inS) const
    {
        const ProxyPatches::Edge& edge = mEdges[inEdge];
        const std::array<std::uint32_t, 3>& face = mTriangles[edge.faces[0]];
        Naming naming{mProxy, mFirst + edge.faces[0], Vec3d::Zero()};
        for (int k = 0; k < 3; ++k)
        {
            if (face[k] == edge.a)
                naming.barycentric[k] += 1.0 - inS;
            if (face[k] == edge.b)
                naming.barycentric[k] += inS;
        }
        return naming;
    }

private:
    std::uint32_t Opposite(std::uint32_t inFace, std::uint32_t inA, std::uint32_t inB) const
    {
        for (const std::uint32_t v : mTriangles[inFace])
            if (v != inA && v != inB)
                return v;
        return inA;
    }

    const PatchView& mView;
    const ProxyPatches& mPatches;
    std::uint32_t mProxy;
    std::span<const std::array<std::uint32_t, 3>> mTriangles;
    std::span<const ProxyPatches::Edge> mEdges;
    std::span<const std::uint32_t> mVertexTriangles;
    std::uint32_t mFirst;
    bool mClosed;
};

} // namespace bdt::detail
