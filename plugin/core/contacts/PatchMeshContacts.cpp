// Surface contacts of a patch against a mesh (SurfaceContacts.h): another deformable patch, or a soup of
// static triangles made into a small mesh (`SoupSide`); both pair every feature of two mesh sides near each
// other (`MeshMesh`).

#include "FeaturePairs.h"
#include "NormalCones.h"
#include "PatchSide.h"
#include "SurfaceContacts.h"

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

using detail::BoxesMeet;
using detail::cInfinity;
using detail::Cone;
using detail::InBox;
using detail::MakePair;
using detail::MeshEdgeWedge;
using detail::Naming;
using detail::PairContext;
using detail::PatchPairCount;
using detail::PatchSide;
using detail::PointFaces;
using detail::PointFeature;
using detail::PointPoint;
using detail::PointSegment;
using detail::SegmentBox;
using detail::SegmentFeature;
using detail::SegmentSegment;

// A static triangle faces against a patch's outside when its normal is within 60° of it (`SoupSide`).
constexpr double cClearlyAcross = 0.5;

// Static triangles (two-sided, each turned to face A) made into a small mesh: vertices and edges of equal
// coordinates merged, each edge with its first two faces, each vertex with its ring, so that they get the
// cones a mesh's features have. Rebuilt per query (a proxy's worth of triangles).
class SoupSide
{
public:
    // Each triangle faces A: against `inAgainst` (A's outward unit direction there, or zero) where the two are
    // within 60° of each other; a face at a steeper angle to it (under a patch round a corner, or standing on
    // its side on the mesh), where that sign would flip between neighbouring faces of a smooth sheet and make
    // its edges reflex, is turned as the clear faces were turned from the source's winding (their
    // area-weighted vote: a consistently wound mesh stays consistent); with no clear face, towards the point
    // `inFacing`.
    SoupSide(std::span<const SoupTriangle> inTriangles, const Vec3d& inAgainst, const Vec3d& inFacing,
             double inMargin, double inDepthLimit)
        : mMargin(inMargin), mDepthLimit(inDepthLimit)
    {
        mFaces.reserve(inTriangles.size());
        double vote = 0.0; // > 0: the clear faces keep the source's winding, < 0: they are reversed
        for (const SoupTriangle& triangle : inTriangles)
        {
            const Vec3d doubled = (triangle.vertices[1] - triangle.vertices[0])
                                      .cross(triangle.vertices[2] - triangle.vertices[0]);
            const double across = -doubled.dot(inAgainst);
            if (std::abs(across) >= cClearlyAcross * doubled.norm())
                vote += across;
        }
        for (const SoupTriangle& triangle : inTriangles)
        {
            std::array<std::uint32_t, 3> face;
            for (int k = 0; k < 3; ++k)
                face[k] = VertexIndex(triangle.vertices[k]);
            Vec3d normal = (triangle.vertices[1] - triangle.vertices[0])
                               .cross(triangle.vertices[2] - triangle.vertices[0]);
            const double length = normal.norm();
            normal = length > 0.0 ? Vec3d(normal / length) : Vec3d(Vec3d::Zero());
            // Turned to face A; the corners keep the source's order, for the names.
            const double across = -normal.dot(inAgainst);
            const double side = std::abs(across) >= cClearlyAcross ? across
                                : vote != 0.0                      ? vote
                                                                   : normal.dot(inFacing - triangle.vertices[0]);
            if (side < 0.0)
                normal = -normal;
            mFaces.push_back(face);
            mNormals.push_back(normal);
            Aabb box;
            for (const Vec3d& vertex : triangle.vertices)
                box.extend(vertex);
            mFaceBoxes.push_back(box);
            mBox.extend(box);
        }
        mRings.resize(mVertices.size());
        for (std::uint32_t f = 0; f < mFaces.size(); ++f)
            for (int k = 0; k < 3; ++k)
            {
                const std::uint32_t a = mFaces[f][k], b = mFaces[f][(k + 1) % 3];
                if (a == b)
                    continue;
                AddRing(a, b);
                AddRing(b, a);
                AddEdge(a, b, f);
            }
    }

    Sphere Bound() const { return {Vec3d::Zero(), cInfinity}; }
    const Aabb& Box() const { return mBox; }
    const Aabb& FaceBox(std::uint32_t inFace) const { return mFaceBoxes[inFace]; }
    double Margin() const { return mMargin; }
    double DepthLimit() const { return mDepthLimit; }
    bool TwoSided() const { return false; } // each face was turned to face A

    std::uint32_t PointCount() const { return std::uint32_t(mVertices.size()); }
    const Vec3d& PointAt(std::uint32_t inVertex) const { return mVertices[inVertex]; }
    PointFeature Point(std::uint32_t inVertex) const
    {
        PointFeature point;
        point.p = mVertices[inVertex];
        point.cone.kind = Cone::EKind::Vertex;
        point.cone.ringVertices = mVertices.data();
        point.cone.ring = mRings[inVertex];
        point.cone.position = point.p;
        point.cone.sided = true;
        point.cone.axis = mNormals[mVertexFace[inVertex]];
        return point;
    }
    Naming PointNaming(std::uint32_t inVertex) const
    {
        const std::uint32_t face = mVertexFace[inVertex];
        Naming naming{cNoIndex, face, Vec3d::Zero()};
        for (int k = 0; k < 3; ++k)
            if (mFaces[face][k] == inVertex)
                naming.barycentric[k] = 1.0;
        return naming;
    }

    std::uint32_t FaceCount() const { return std::uint32_t(mFaces.size()); }
    const Vec3d& FaceVertex(std::uint32_t inFace, int inCorner) const
    {
        return mVertices[mFaces[inFace][inCorner]];
    }
    const Vec3d& FaceNormal(std::uint32_t inFace) const { return mNormals[inFace]; }
    Naming FaceNaming(std::uint32_t inFace, const Vec3d& inBary) const { return {cNoIndex, inFace, inBary}; }

    std::uint32_t SegmentCount() const { return std::uint32_t(mEdges.size()); }
    std::pair<Vec3d, Vec3d> SegmentEnds(std::uint32_t inEdge) const
    {
        return {mVertices[mEdges[inEdge].a], mVertices[mEdges[inEdge].b]};
    }
    SegmentFeature Segment(std::uint32_t inEdge) const
    {
        const SoupEdge& edge = mEdges[inEdge];
        SegmentFeature segment;
        segment.a = mVertices[edge.a];
        segment.b = mVertices[edge.b];
        const Vec3d& n0 = mNormals[edge.faces[0]];
        if (n0.isZero() || (edge.faces[1] != cNoIndex && mNormals[edge.faces[1]].isZero()))
            segment.cone.kind = Cone::EKind::All;
        else if (edge.faces[1] == cNoIndex)
        {
            segment.cone.kind = Cone::EKind::HalfSpace; // a border: away from its face
            const Vec3d away = (segment.b - segment.a).cross(n0);
            const Vec3d inside = FaceCentre(edge.faces[0]) - segment.a;
            segment.cone.axis = (away.dot(inside) > 0.0 ? -away : away).normalized();
        }
        else
        {
            const std::uint32_t other = Opposite(edge.faces[1], edge.a, edge.b);
            segment.cone = MeshEdgeWedge(segment.a, n0, mNormals[edge.faces[1]], mVertices[other]);
        }
        return segment;
    }
    Naming SegmentNaming(std::uint32_t inEdge, double inS) const
    {
        const SoupEdge& edge = mEdges[inEdge];
        Naming naming{cNoIndex, edge.faces[0], Vec3d::Zero()};
        for (int k = 0; k < 3; ++k)
        {
            if (mFaces[edge.faces[0]][k] == edge.a)
                naming.barycentric[k] += 1.0 - inS;
            if (mFaces[edge.faces[0]][k] == edge.b)
                naming.barycentric[k] += inS;
        }
        return naming;
    }

private:
    struct SoupEdge
    {
        std::uint32_t a, b;
        std::uint32_t faces[2];
    };

    std::uint32_t VertexIndex(const Vec3d& inPosition)
    {
        for (std::uint32_t v = 0; v < mVertices.size(); ++v)
            if (mVertices[v] == inPosition)
                return v;
        mVertices.push_back(inPosition);
        mVertexFace.push_back(std::uint32_t(mFaces.size()));
        return std::uint32_t(mVertices.size() - 1);
    }
    void AddRing(std::uint32_t inVertex, std::uint32_t inNeighbour)
    {
        std::vector<std::uint32_t>& ring = mRings[inVertex];
        if (std::find(ring.begin(), ring.end(), inNeighbour) == ring.end())
            ring.push_back(inNeighbour);
    }
    void AddEdge(std::uint32_t inA, std::uint32_t inB, std::uint32_t inFace)
    {
        for (SoupEdge& edge : mEdges)
            if ((edge.a == inA && edge.b == inB) || (edge.a == inB && edge.b == inA))
            {
                if (edge.faces[1] == cNoIndex)
                    edge.faces[1] = inFace;
                return;
            }
        mEdges.push_back({inA, inB, {inFace, cNoIndex}});
    }
    std::uint32_t Opposite(std::uint32_t inFace, std::uint32_t inA, std::uint32_t inB) const
    {
        for (const std::uint32_t v : mFaces[inFace])
            if (v != inA && v != inB)
                return v;
        return inA;
    }
    Vec3d FaceCentre(std::uint32_t inFace) const
    {
        return (mVertices[mFaces[inFace][0]] + mVertices[mFaces[inFace][1]] + mVertices[mFaces[inFace][2]]) /
               3.0;
    }
    double mMargin, mDepthLimit;
    std::vector<Vec3d> mVertices;
    std::vector<std::uint32_t> mVertexFace;
    std::vector<std::vector<std::uint32_t>> mRings;
    std::vector<std::array<std::uint32_t, 3>> mFaces;
    std::vector<Vec3d> mNormals;
    std::vector<Aabb> mFaceBoxes;
    Aabb mBox;
    std::vector<SoupEdge> mEdges;
};

// ---- Mesh against mesh ----

// Whether every own vertex of `inOther` lies beyond patch `inSide`'s thin interval along its axis by more
// than `inReach` (`PatchView::axis`): a separating axis. False for a soup, which has none.
bool Separated(const PatchSide& inSide, const PatchSide& inOther, double inReach)
{
    const PatchView& side = inSide.View();
    if (side.axis.isZero())
        return false;
    const PatchView& other = inOther.View();
    const std::uint32_t count = other.patches->TriangleVertexCount(other.proxy);
    bool above = true, below = true;
    for (std::uint32_t v = 0; v < count && (above || below); ++v)
    {
        const double along = side.axis.dot(other.vertices[v]);
        above = above && along > side.axisHigh + inReach;
        below = below && along < side.axisLow - inReach;
    }
    return above || below;
}
template <class Side> bool Separated(const Side&, const Side&, double)
{
    return false;
}
template <class SideA, class SideB> bool Separated(const SideA&, const SideB&, double)
{
    return false;
}

// The own faces of each side whose boxes come within `inReach` of a face box of the other: every feature pair
// within reach lies on such faces (an owned vertex or edge on one of its own faces), so the others need no
// test. A mini broadphase of precomputed boxes, a few nanoseconds a pair of faces.
template <class SideA, class SideB>
void ActiveFaces(const SideA& inA, const SideB& inB, double inReach, std::vector<std::uint32_t>& outFacesA,
                 std::vector<std::uint32_t>& outFacesB)
{
    thread_local std::vector<std::uint32_t> candidatesB;
    thread_local std::vector<std::uint8_t> activeB;
    outFacesA.clear();
    outFacesB.clear();
    candidatesB.clear();
    for (std::uint32_t g = 0; g < inB.FaceCount(); ++g)
        if (BoxesMeet(inB.FaceBox(g), inA.Box(), inReach))
            candidatesB.push_back(g);
    if (candidatesB.empty())
        return;
    activeB.assign(inB.FaceCount(), 0);
    for (std::uint32_t f = 0; f < inA.FaceCount(); ++f)
    {
        const Aabb& boxA = inA.FaceBox(f);
        if (!BoxesMeet(boxA, inB.Box(), inReach))
            continue;
        bool active = false;
        for (const std::uint32_t g : candidatesB)
            if (BoxesMeet(boxA, inB.FaceBox(g), inReach))
            {
                active = true;
                activeB[g] = 1;
            }
        if (active)
            outFacesA.push_back(f);
    }
    for (const std::uint32_t g : candidatesB)
        if (activeB[g] != 0)
            outFacesB.push_back(g);
}

// The union of some faces' boxes.
template <class Side> Aabb UnionOf(const Side& inSide, std::span<const std::uint32_t> inFaces)
{
    Aabb box;
    for (const std::uint32_t f : inFaces)
        box.extend(inSide.FaceBox(f));
    return box;
}

// Every feature pair of two mesh sides near each other (`ActiveFaces`): A's vertices against B's faces, edges
// and vertices, B's vertices against A's faces and edges, A's edges against B's.
template <class SideA, class SideB>
void MeshMesh(const SideA& inA, const SideB& inB, const PairContext& inPair)
{
    const double reach = inPair.Reach(0.0);
    if (!BoxesMeet(inA.Box(), inB.Box(), reach) || Separated(inA, inB, reach) || Separated(inB, inA, reach))
        return;
    thread_local std::vector<std::uint32_t> facesA, facesB, nearA, nearB, edgeIdsA, edgeIdsB;
    thread_local std::vector<SegmentFeature> edgesA, edgesB;
    ActiveFaces(inA, inB, reach, facesA, facesB);
    if (facesA.empty())
        return;
    const Aabb regionA = UnionOf(inA, facesA), regionB = UnionOf(inB, facesB);
    nearA.clear();
    nearB.clear();
    for (std::uint32_t v = 0; v < inA.PointCount(); ++v)
        if (InBox(inA.PointAt(v), regionB, reach))
            nearA.push_back(v);
    for (std::uint32_t v = 0; v < inB.PointCount(); ++v)
        if (InBox(inB.PointAt(v), regionA, reach))
            nearB.push_back(v);
    // Edges whose box comes within reach of an active face of the other side, with their boxes and cones
    // (made for these only).
    const auto collectEdges = [reach](const auto& inSide, const auto& inOther,
                                      std::span<const std::uint32_t> inFaces, const Aabb& inRegion,
                                      std::vector<SegmentFeature>& outEdges, std::vector<Aabb>& outBoxes,
                                      std::vector<std::uint32_t>& outIds)
    {
        outEdges.clear();
        outBoxes.clear();
        outIds.clear();
        for (std::uint32_t e = 0; e < inSide.SegmentCount(); ++e)
        {
            const auto [a, b] = inSide.SegmentEnds(e);
            const Aabb box = SegmentBox(a, b);
            if (!BoxesMeet(box, inRegion, reach) ||
                std::none_of(inFaces.begin(), inFaces.end(),
                             [&](std::uint32_t inFace)
                             { return BoxesMeet(box, inOther.FaceBox(inFace), reach); }))
                continue;
            SegmentFeature segment = inSide.Segment(e);
            if (segment.cone.kind != Cone::EKind::Empty)
            {
                outEdges.push_back(segment);
                outBoxes.push_back(box);
                outIds.push_back(e);
            }
        }
    };
    thread_local std::vector<Aabb> boxesA, boxesB;
    collectEdges(inA, inB, facesB, regionB, edgesA, boxesA, edgeIdsA);
    collectEdges(inB, inA, facesA, regionA, edgesB, boxesB, edgeIdsB);

    for (const std::uint32_t v : nearA)
    {
        const PointFeature point = inA.Point(v);
        const Naming naming = inA.PointNaming(v);
        PointFaces(point, naming, inB, facesB, true, inPair);
        for (std::size_t e = 0; e < edgesB.size(); ++e)
            PointSegment(
                point, naming, edgesB[e], [&](double inT) { return inB.SegmentNaming(edgeIdsB[e], inT); },
                true, inPair);
        for (const std::uint32_t w : nearB)
            PointPoint(point, naming, inB.Point(w), inB.PointNaming(w), inPair);
    }
    for (const std::uint32_t w : nearB)
    {
        const PointFeature point = inB.Point(w);
        const Naming naming = inB.PointNaming(w);
        PointFaces(point, naming, inA, facesA, false, inPair);
        for (std::size_t e = 0; e < edgesA.size(); ++e)
            PointSegment(
                point, naming, edgesA[e], [&](double inT) { return inA.SegmentNaming(edgeIdsA[e], inT); },
                false, inPair);
    }
    const double depthLimit = std::min(inA.DepthLimit(), inB.DepthLimit());
    for (std::size_t i = 0; i < edgesA.size(); ++i)
        for (std::size_t j = 0; j < edgesB.size(); ++j)
            if (BoxesMeet(boxesA[i], boxesB[j], reach))
                SegmentSegment(
                    edgesA[i], [&](double inS) { return inA.SegmentNaming(edgeIdsA[i], inS); }, edgesB[j],
                    [&](double inT) { return inB.SegmentNaming(edgeIdsB[j], inT); }, depthLimit, inPair);
}

} // namespace

std::size_t PatchContacts(const PatchView& inA, const PatchView& inB, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts, std::size_t* outCrossings)
{
    const PatchPairCount count(inA, outContacts);
    std::size_t tooDeep = 0;
    PairContext pair = MakePair(inA, inB.margin, inMaxDistance, outContacts, &tooDeep);
    pair.crossings = outCrossings;
    MeshMesh(PatchSide(inA), PatchSide(inB), pair);
    return tooDeep;
}

std::size_t PatchContacts(const PatchView& inA, std::span<const SoupTriangle> inTriangles, double inMarginB,
                          double inMaxDistance, std::vector<SurfaceContact>& outContacts)
{
    const PatchPairCount count(inA, outContacts);
    if (inTriangles.empty())
        return 0;
    // Which way the static triangles face: against the patch's outside (the area-weighted normal of its own
    // faces) for a closed surface, whatever its depth in them; towards the mean of its vertices for an open
    // sheet, or where the outside is ambiguous (a patch wrapped round a thin part).
    const ProxyPatches& patches = *inA.patches;
    Vec3d outward = Vec3d::Zero(), mean = Vec3d::Zero();
    double area = 0.0;
    const auto triangles = patches.Triangles(inA.proxy);
    for (std::uint32_t t = 0; t < patches.OwnTriangleCount(inA.proxy); ++t)
    {
        const Vec3d& a = inA.vertices[triangles[t][0]];
        const Vec3d doubled = (inA.vertices[triangles[t][1]] - a).cross(inA.vertices[triangles[t][2]] - a);
        outward += doubled;
        area += doubled.norm();
    }
    for (std::uint32_t v = 0; v < patches.TriangleVertexCount(inA.proxy); ++v)
        mean += inA.vertices[v];
    mean /= std::max(1.0, double(patches.TriangleVertexCount(inA.proxy)));
    if (!patches.Closed() || !(outward.norm() > 0.25 * area))
        outward = Vec3d::Zero();
    else
        outward.normalize();
    const SoupSide soup(inTriangles, outward, mean, inMarginB, inA.depthLimit);
    std::size_t tooDeep = 0;
    MeshMesh(PatchSide(inA), soup, MakePair(inA, inMarginB, inMaxDistance, outContacts, &tooDeep));
    return tooDeep;
}

} // namespace bdt
