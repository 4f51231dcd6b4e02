// Surface contacts as pairs of closest features (see SurfaceContacts.h): the normal cones of mesh and
// primitive features, the four kinds of feature pair (point-face, point-segment, point-point,
// segment-segment) with their validity tests, and the sides they run on: a proxy's patch, a soup of static
// triangles made into a small mesh, and the analytic primitives.

#include <algorithm>
#include <array>
#include <bdt/core/SurfaceContacts.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

constexpr double cInfinity = std::numeric_limits<double>::infinity();
// Edges closer to parallel than this (|e_A × e_B| over |e_A||e_B|) make no edge-edge contact: their closest
// points are the end of one against the other, which the vertex pairs find.
constexpr double cParallel = 1e-9;
// A closest point within this fraction of an end of a segment is that end's (a vertex feature's) contact.
constexpr double cInterior = 1e-12;
// cos and sin of the slack angle of `cConeSlack`.
const double cSlackSin = cConeSlack;
const double cSlackCos = std::sqrt(1.0 - cConeSlack * cConeSlack);

// ---- Normal cones ----

// The directions u (unit) in which a feature is the closest part of its body, slackened by `cConeSlack`.
struct Cone
{
    enum class EKind : std::uint8_t
    {
        All,       ///< Any direction (a ball's centre, a capsule's axis, a non-manifold edge).
        Empty,     ///< None (a reflex edge).
        HalfSpace, ///< u·axis ≥ 0: a capsule's end cap; an open edge's sheet border (u ⊥ the edge).
        Wedge,     ///< The arc of an edge between its faces' normals: u·axis ≥ threshold (u ⊥ the edge).
        Octant,    ///< A box corner: u·axis, u·second, u·third ≥ 0 (signed face normals).
        Vertex, ///< A mesh vertex: u·(neighbour − vertex) ≤ 0 for its ring; u·axis ≥ 0 too where −u passes.
    };
    EKind kind = EKind::All;
    Vec3d axis = Vec3d::Zero();
    Vec3d second = Vec3d::Zero();
    Vec3d third = Vec3d::Zero();
    double threshold = 0.0;
    // Vertex: its position, its ring (indices into `ringVertices`) and whether it has a side.
    const Vec3d* ringVertices = nullptr;
    std::span<const std::uint32_t> ring;
    Vec3d position = Vec3d::Zero();
    bool sided = false;
};

bool Contains(const Cone& inCone, const Vec3d& inU)
{
    switch (inCone.kind)
    {
    case Cone::EKind::All:
        return true;
    case Cone::EKind::Empty:
        return false;
    case Cone::EKind::HalfSpace:
        return inU.dot(inCone.axis) >= -cSlackSin;
    case Cone::EKind::Wedge:
        return inU.dot(inCone.axis) >= inCone.threshold;
    case Cone::EKind::Octant:
        return inU.dot(inCone.axis) >= -cSlackSin && inU.dot(inCone.second) >= -cSlackSin &&
               inU.dot(inCone.third) >= -cSlackSin;
    case Cone::EKind::Vertex:
    {
        // The vertex is a local closest point along u when no edge of its ring rises towards u. A vertex that
        // is nearly flat (or a saddle) along u passes for −u too: its side, the outside of a closed surface,
        // decides then (a convex vertex fails −u by itself, whatever the angle of its faces).
        const auto ringBelow = [&inCone](const Vec3d& inDirection)
        {
            for (const std::uint32_t w : inCone.ring)
            {
                const Vec3d edge = inCone.ringVertices[w] - inCone.position;
                if (inDirection.dot(edge) > cSlackSin * edge.norm())
                    return false;
            }
            return true;
        };
        if (!ringBelow(inU))
            return false;
        return !inCone.sided || inU.dot(inCone.axis) >= 0.0 || !ringBelow(-inU);
    }
    }
    return false;
}

// The cone of an edge between faces of unit outward normals `inNormal0` and `inNormal1`: the wedge between
// the normals where the edge is convex (or nearly flat, within the slack), empty where it is reflex.
Cone EdgeWedge(const Vec3d& inNormal0, const Vec3d& inNormal1, bool inReflex)
{
    Cone cone;
    const Vec3d sum = inNormal0 + inNormal1;
    const double halfCos = 0.5 * sum.norm();                     // cos(θ/2), θ the angle of the normals
    const double halfSin = 0.5 * (inNormal0 - inNormal1).norm(); // sin(θ/2)
    const bool reflex = inReflex;
    if (halfCos < 1e-9)
    {
        cone.kind = Cone::EKind::All; // a knife edge: the faces back to back
        return cone;
    }
    cone.kind = Cone::EKind::Wedge;
    cone.axis = sum / (2.0 * halfCos);
    if (!reflex)
        cone.threshold = halfCos * cSlackCos - halfSin * cSlackSin; // cos(θ/2 + slack)
    else if (halfSin <= cSlackSin)
        cone.threshold = halfCos * cSlackCos + halfSin * cSlackSin; // cos(slack − θ/2): nearly flat
    else
        cone.kind = Cone::EKind::Empty;
    return cone;
}

// The cone of a mesh edge from a → b's faces: reflex when the third vertex of face 1 rises in front of face
// 0.
Cone MeshEdgeWedge(const Vec3d& inA, const Vec3d& inNormal0, const Vec3d& inNormal1, const Vec3d& inOpposite1)
{
    const Vec3d across = inOpposite1 - inA;
    return EdgeWedge(inNormal0, inNormal1, across.dot(inNormal0) > 1e-12 * across.norm());
}

// ---- Barycentric coordinates ----

// The barycentric coordinates of `inPoint` (in the triangle's plane) and whether it lies in the closed
// triangle (to rounding). A degenerate triangle holds nothing.
bool Barycentric(const Vec3d& inPoint, const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, Vec3d& outBary)
{
    const Vec3d e0 = inB - inA, e1 = inC - inA, p = inPoint - inA;
    const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
    const double d20 = p.dot(e0), d21 = p.dot(e1);
    const double denominator = d00 * d11 - d01 * d01;
    if (!(denominator > 1e-24 * d00 * d11))
        return false;
    const double v = (d11 * d20 - d01 * d21) / denominator;
    const double w = (d00 * d21 - d01 * d20) / denominator;
    outBary = Vec3d(1.0 - v - w, v, w);
    constexpr double cTolerance = -1e-12;
    return outBary.x() >= cTolerance && outBary.y() >= cTolerance && outBary.z() >= cTolerance;
}

// ---- Features ----

// Where a feature's point lies on its side's triangles, for the contact's names.
struct Naming
{
    std::uint32_t proxy = cNoIndex;
    std::uint32_t triangle = cNoIndex; // the side's id for it (tree order, or the soup's index)
    Vec3d barycentric = Vec3d::Zero();
};

struct PointFeature
{
    Vec3d p = Vec3d::Zero();
    double radius = 0.0;
    Cone cone;
};

struct SegmentFeature
{
    Vec3d a = Vec3d::Zero();
    Vec3d b = Vec3d::Zero();
    double radius = 0.0;
    Cone cone;
};

// The pair being collided: margins, the distance band, and where the contacts go.
struct PairContext
{
    double marginA = 0.0;
    double marginB = 0.0;
    double maxDistance = 0.0;
    std::vector<SurfaceContact>* out = nullptr;

    // Emits the contact of A's point `inOnA` and B's core point `inOnB` (B's surface is `inRadiusB` further
    // along the normal) along `inNormal` (B to A) at core distance `inGap` = (inOnA − inOnB)·n, if within the
    // band.
    void Emit(const Vec3d& inOnA, const Naming& inA, const Vec3d& inOnB, const Naming& inB,
              const Vec3d& inNormal, double inGap, double inRadiusB, double inDepthLimit) const
    {
        const double distance = inGap - inRadiusB - marginA - marginB;
        if (distance > maxDistance || distance < -inDepthLimit)
            return;
        SurfaceContact contact;
        contact.pointOnB = inOnB + (inRadiusB + marginB) * inNormal;
        contact.normal = inNormal;
        contact.distance = distance;
        contact.proxyA = inA.proxy;
        contact.triangleA = inA.triangle;
        contact.barycentricA = inA.barycentric;
        contact.proxyB = inB.proxy;
        contact.triangleB = inB.triangle;
        contact.barycentricB = inB.barycentric;
        (void)inOnA;
        out->push_back(contact);
    }
    // The reach of a core feature pair: a gap beyond it cannot give a contact within the band.
    double Reach(double inRadiusB) const { return maxDistance + marginA + marginB + inRadiusB; }
};

// ---- Sides: a proxy's patch, a soup of triangles made into a mesh ----

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

// Static triangles (two-sided, each turned to face A) made into a small mesh: vertices and edges of equal
// coordinates merged, each edge with its first two faces, each vertex with its ring, so that they get the
// cones a mesh's features have. Rebuilt per query (a proxy's worth of triangles).
class SoupSide
{
public:
    SoupSide(std::span<const SoupTriangle> inTriangles, const Vec3d& inFacing, double inMargin,
             double inDepthLimit)
        : mMargin(inMargin), mDepthLimit(inDepthLimit)
    {
        mFaces.reserve(inTriangles.size());
        for (const SoupTriangle& triangle : inTriangles)
        {
            std::array<std::uint32_t, 3> face;
            for (int k = 0; k < 3; ++k)
                face[k] = VertexIndex(triangle.vertices[k]);
            Vec3d normal = (triangle.vertices[1] - triangle.vertices[0])
                               .cross(triangle.vertices[2] - triangle.vertices[0]);
            const double length = normal.norm();
            normal = length > 0.0 ? Vec3d(normal / length) : Vec3d(Vec3d::Zero());
            if (normal.dot(inFacing - triangle.vertices[0]) < 0.0)
                normal = -normal; // turned to face A (the corners keep the source's order, for the names)
            mFaces.push_back(face);
            mNormals.push_back(normal);
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
    std::vector<SoupEdge> mEdges;
};

// ---- Feature pairs ----

// A point against a mesh side's faces. `inPointIsA`: the point is A's (a vertex of A against B's faces), else
// B's (a primitive's corner, a ball's centre, or B's vertex, against A's faces).
template <class Side>
void PointFaces(const PointFeature& inPoint, const Naming& inNaming, const Side& inFaces, bool inPointIsA,
                const PairContext& inPair)
{
    const double reach = inPair.Reach(inPointIsA ? 0.0 : inPoint.radius);
    for (std::uint32_t f = 0; f < inFaces.FaceCount(); ++f)
    {
        const Vec3d& n = inFaces.FaceNormal(f);
        double height = n.dot(inPoint.p - inFaces.FaceVertex(f, 0));
        double side = 1.0;
        if (height < 0.0 && inFaces.TwoSided())
        {
            height = -height;
            side = -1.0;
        }
        if (height > reach || n.isZero())
            continue;
        const Vec3d onFace = inPoint.p - (side * height) * n;
        Vec3d bary;
        if (!Barycentric(onFace, inFaces.FaceVertex(f, 0), inFaces.FaceVertex(f, 1), inFaces.FaceVertex(f, 2),
                         bary))
            continue;
        const Vec3d outward = side * n; // the face's side the point is on
        if (inPointIsA)
        {
            if (Contains(inPoint.cone, -outward))
                inPair.Emit(inPoint.p, inNaming, onFace, inFaces.FaceNaming(f, bary), outward, height, 0.0,
                            inFaces.DepthLimit());
        }
        else if (Contains(inPoint.cone, -outward))
            inPair.Emit(onFace, inFaces.FaceNaming(f, bary), inPoint.p, inNaming, -outward, height,
                        inPoint.radius, inFaces.DepthLimit());
    }
}

// A point against a segment's interior. `inPointIsA` as in `PointFaces`; the segment is the other side's.
// `inSegmentNaming(t)` names the segment's point at parameter t.
template <class SegmentNaming>
void PointSegment(const PointFeature& inPoint, const Naming& inNaming, const SegmentFeature& inSegment,
                  const SegmentNaming& inSegmentNaming, bool inPointIsA, const PairContext& inPair)
{
    const Vec3d edge = inSegment.b - inSegment.a;
    const double length2 = edge.squaredNorm();
    if (!(length2 > 0.0))
        return;
    const double t = (inPoint.p - inSegment.a).dot(edge) / length2;
    if (t <= cInterior || t >= 1.0 - cInterior)
        return;
    const Vec3d onSegment = inSegment.a + t * edge;
    const Vec3d delta = inPoint.p - onSegment;
    const double distance = delta.norm();
    const double radiusB = inPointIsA ? inSegment.radius : inPoint.radius;
    if (!(distance > 0.0) || distance > inPair.Reach(radiusB))
        return;
    const Vec3d towardPoint = delta / distance;
    if (!Contains(inSegment.cone, towardPoint) || !Contains(inPoint.cone, -towardPoint))
        return;
    if (inPointIsA)
        inPair.Emit(inPoint.p, inNaming, onSegment, inSegmentNaming(t), towardPoint, distance,
                    inSegment.radius, cInfinity);
    else
        inPair.Emit(onSegment, inSegmentNaming(t), inPoint.p, inNaming, -towardPoint, distance,
                    inPoint.radius, cInfinity);
}

// A's point against B's point.
void PointPoint(const PointFeature& inA, const Naming& inNamingA, const PointFeature& inB,
                const Naming& inNamingB, const PairContext& inPair)
{
    const Vec3d delta = inA.p - inB.p;
    const double distance = delta.norm();
    if (!(distance > 0.0) || distance > inPair.Reach(inB.radius))
        return;
    const Vec3d normal = delta / distance;
    if (Contains(inB.cone, normal) && Contains(inA.cone, -normal))
        inPair.Emit(inA.p, inNamingA, inB.p, inNamingB, normal, distance, inB.radius, cInfinity);
}

// A's segment against B's, interiors: the closest points of the two lines when both fall inside, along
// e_A × e_B (turned to B's outside).
template <class NamingA, class NamingB>
void SegmentSegment(const SegmentFeature& inA, const NamingA& inNamingA, const SegmentFeature& inB,
                    const NamingB& inNamingB, double inDepthLimit, const PairContext& inPair)
{
    const Vec3d d1 = inA.b - inA.a, d2 = inB.b - inB.a, r = inA.a - inB.a;
    const double a = d1.squaredNorm(), e = d2.squaredNorm(), b = d1.dot(d2);
    const double denominator = a * e - b * b;
    if (!(denominator > cParallel * cParallel * a * e))
        return;
    const double c = d1.dot(r), f = d2.dot(r);
    const double s = (b * f - c * e) / denominator;
    const double t = (a * f - b * c) / denominator;
    if (s <= cInterior || s >= 1.0 - cInterior || t <= cInterior || t >= 1.0 - cInterior)
        return;
    const Vec3d onA = inA.a + s * d1, onB = inB.a + t * d2;
    const Vec3d delta = onA - onB;
    Vec3d normal = d1.cross(d2).normalized();
    if (inB.radius > 0.0 || inB.cone.kind == Cone::EKind::All)
    {
        // A round segment (a capsule's axis) or one without an outside: the side A's point is on.
        const double along = delta.dot(normal);
        if (along == 0.0)
            return;
        if (along < 0.0)
            normal = -normal;
    }
    else if (normal.dot(inB.cone.axis) < 0.0)
        normal = -normal;
    const double gap = delta.dot(normal);
    if (gap > inPair.Reach(inB.radius))
        return;
    if (Contains(inB.cone, normal) && Contains(inA.cone, -normal))
        inPair.Emit(onA, inNamingA(s), onB, inNamingB(t), normal, gap, inB.radius, inDepthLimit);
}

// Whether a point, or a segment, comes within `inReach` of a sphere.
bool Near(const Vec3d& inPoint, const Sphere& inBound, double inReach)
{
    const double limit = inBound.radius + inReach;
    return (inPoint - inBound.center).squaredNorm() <= limit * limit;
}

bool Near(const SegmentFeature& inSegment, const Sphere& inBound, double inReach)
{
    if (std::isinf(inBound.radius))
        return true;
    const Vec3d edge = inSegment.b - inSegment.a;
    const double length2 = edge.squaredNorm();
    const double t =
        length2 > 0.0 ? std::clamp((inBound.center - inSegment.a).dot(edge) / length2, 0.0, 1.0) : 0.0;
    return Near(inSegment.a + t * edge, inBound, inReach + inSegment.radius);
}

// Whether the boxes of two segments, grown by `inReach`, overlap: the cheap test before the closest points.
bool BoxesOverlap(const SegmentFeature& inA, const SegmentFeature& inB, double inReach)
{
    const Vec3d lowA = inA.a.cwiseMin(inA.b), highA = inA.a.cwiseMax(inA.b);
    const Vec3d lowB = inB.a.cwiseMin(inB.b), highB = inB.a.cwiseMax(inB.b);
    return ((lowA.array() - inReach) <= highB.array()).all() &&
           ((lowB.array() - inReach) <= highA.array()).all();
}

// ---- Mesh against mesh ----

// Every feature pair of two mesh sides: A's vertices against B's faces, edges and vertices, B's vertices
// against A's faces and edges, A's edges against B's; each side's features culled by the other's bound.
template <class SideA, class SideB>
void MeshMesh(const SideA& inA, const SideB& inB, const PairContext& inPair)
{
    const double reach = inPair.Reach(0.0);
    thread_local std::vector<std::uint32_t> nearA, nearB;
    thread_local std::vector<SegmentFeature> edgesA, edgesB;
    thread_local std::vector<std::uint32_t> edgeIdsA, edgeIdsB;
    nearA.clear();
    nearB.clear();
    for (std::uint32_t v = 0; v < inA.PointCount(); ++v)
        if (Near(inA.PointAt(v), inB.Bound(), reach))
            nearA.push_back(v);
    for (std::uint32_t v = 0; v < inB.PointCount(); ++v)
        if (Near(inB.PointAt(v), inA.Bound(), reach))
            nearB.push_back(v);
    const auto collectEdges = [reach](const auto& inSide, const Sphere& inOther,
                                      std::vector<SegmentFeature>& outEdges,
                                      std::vector<std::uint32_t>& outIds)
    {
        outEdges.clear();
        outIds.clear();
        for (std::uint32_t e = 0; e < inSide.SegmentCount(); ++e)
        {
            SegmentFeature segment = inSide.Segment(e);
            if (segment.cone.kind != Cone::EKind::Empty && Near(segment, inOther, reach))
            {
                outEdges.push_back(segment);
                outIds.push_back(e);
            }
        }
    };
    collectEdges(inA, inB.Bound(), edgesA, edgeIdsA);
    collectEdges(inB, inA.Bound(), edgesB, edgeIdsB);

    for (const std::uint32_t v : nearA)
    {
        const PointFeature point = inA.Point(v);
        const Naming naming = inA.PointNaming(v);
        PointFaces(point, naming, inB, true, inPair);
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
        PointFaces(point, naming, inA, false, inPair);
        for (std::size_t e = 0; e < edgesA.size(); ++e)
            PointSegment(
                point, naming, edgesA[e], [&](double inT) { return inA.SegmentNaming(edgeIdsA[e], inT); },
                false, inPair);
    }
    const double depthLimit = std::min(inA.DepthLimit(), inB.DepthLimit());
    for (std::size_t i = 0; i < edgesA.size(); ++i)
        for (std::size_t j = 0; j < edgesB.size(); ++j)
            if (BoxesOverlap(edgesA[i], edgesB[j], reach))
                SegmentSegment(
                    edgesA[i], [&](double inS) { return inA.SegmentNaming(edgeIdsA[i], inS); }, edgesB[j],
                    [&](double inT) { return inB.SegmentNaming(edgeIdsB[j], inT); }, depthLimit, inPair);
}

// ---- Mesh against a convex primitive ----

// A primitive as the feature pairs see it: the signed distance of a point to it (with the closest point of
// its surface and its outward normal there), its corners and its edges (with their cones).
struct PrimitiveFeatures
{
    std::vector<PointFeature> points;
    std::vector<SegmentFeature> segments;
};

struct SignedDistance
{
    double distance = 0.0;
    Vec3d onSurface = Vec3d::Zero();
    Vec3d normal = Vec3d::UnitY();
};

// A's vertices against the primitive (its signed distance), then the primitive's corners against A's faces
// and edges, and its edges against A's edges.
template <class DistanceFunction>
void MeshPrimitive(const PatchSide& inA, const DistanceFunction& inDistance, const PrimitiveFeatures& inB,
                   const PairContext& inPair)
{
    const double reach = inPair.Reach(0.0);
    for (std::uint32_t v = 0; v < inA.PointCount(); ++v)
    {
        const SignedDistance sd = inDistance(inA.PointAt(v));
        if (sd.distance > reach)
            continue;
        const PointFeature point = inA.Point(v);
        if (Contains(point.cone, -sd.normal))
            inPair.Emit(point.p, inA.PointNaming(v), sd.onSurface, Naming{}, sd.normal, sd.distance, 0.0,
                        cInfinity);
    }
    if (inB.points.empty() && inB.segments.empty())
        return;
    thread_local std::vector<SegmentFeature> edgesA;
    thread_local std::vector<std::uint32_t> edgeIdsA;
    edgesA.clear();
    edgeIdsA.clear();
    // A's edges near the primitive's features only matter near its corners and edges: cull them by the
    // patch's bound against those features below, and by the features' boxes per pair.
    for (std::uint32_t e = 0; e < inA.SegmentCount(); ++e)
    {
        SegmentFeature segment = inA.Segment(e);
        if (segment.cone.kind != Cone::EKind::Empty)
        {
            edgesA.push_back(segment);
            edgeIdsA.push_back(e);
        }
    }
    const Sphere& bound = inA.Bound();
    for (const PointFeature& point : inB.points)
    {
        if (!Near(point.p, bound, inPair.Reach(point.radius)))
            continue;
        PointFaces(point, Naming{}, inA, false, inPair);
        const SegmentFeature spot{point.p, point.p, point.radius, {}};
        for (std::size_t e = 0; e < edgesA.size(); ++e)
            if (BoxesOverlap(edgesA[e], spot, inPair.Reach(point.radius)))
                PointSegment(
                    point, Naming{}, edgesA[e],
                    [&](double inT) { return inA.SegmentNaming(edgeIdsA[e], inT); }, false, inPair);
    }
    for (const SegmentFeature& segment : inB.segments)
    {
        if (!Near(segment, bound, reach))
            continue;
        for (std::size_t e = 0; e < edgesA.size(); ++e)
            if (BoxesOverlap(edgesA[e], segment, inPair.Reach(segment.radius)))
                SegmentSegment(
                    edgesA[e], [&](double inS) { return inA.SegmentNaming(edgeIdsA[e], inS); }, segment,
                    [](double) { return Naming{}; }, inA.DepthLimit(), inPair);
    }
}

PairContext MakePair(const PatchView& inA, double inMarginB, double inMaxDistance,
                     std::vector<SurfaceContact>& outContacts)
{
    return {inA.margin, inMarginB, inMaxDistance, &outContacts};
}

SignedDistance SphereDistance(const Vec3d& inPoint, const Vec3d& inCentre, double inRadius)
{
    const Vec3d delta = inPoint - inCentre;
    const double length = delta.norm();
    SignedDistance sd;
    sd.normal = length > 0.0 ? Vec3d(delta / length) : Vec3d(Vec3d::UnitY());
    sd.distance = length - inRadius;
    sd.onSurface = inCentre + inRadius * sd.normal;
    return sd;
}

} // namespace

void PatchContacts(const PatchView& inA, const Plane& inPlane, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts)
{
    const auto distance = [&](const Vec3d& inPoint)
    {
        SignedDistance sd;
        sd.distance = inPlane.normal.dot(inPoint) - inPlane.offset;
        sd.normal = inPlane.normal;
        sd.onSurface = inPoint - sd.distance * inPlane.normal;
        return sd;
    };
    MeshPrimitive(PatchSide(inA), distance, {}, MakePair(inA, 0.0, inMaxDistance, outContacts));
}

void PatchContacts(const PatchView& inA, const Sphere& inSphere, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts)
{
    PrimitiveFeatures features;
    features.points.push_back({inSphere.center, inSphere.radius, {}});
    MeshPrimitive(
        PatchSide(inA),
        [&](const Vec3d& inPoint) { return SphereDistance(inPoint, inSphere.center, inSphere.radius); },
        features, MakePair(inA, 0.0, inMaxDistance, outContacts));
}

void PatchContacts(const PatchView& inA, const Capsule& inCapsule, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts)
{
    PrimitiveFeatures features;
    const Vec3d axis = inCapsule.b - inCapsule.a;
    const double length = axis.norm();
    PointFeature end;
    end.radius = inCapsule.radius;
    end.cone.kind = length > 0.0 ? Cone::EKind::HalfSpace : Cone::EKind::All;
    end.p = inCapsule.a;
    end.cone.axis = length > 0.0 ? Vec3d(-axis / length) : Vec3d(Vec3d::Zero());
    features.points.push_back(end);
    if (length > 0.0)
    {
        end.p = inCapsule.b;
        end.cone.axis = axis / length;
        features.points.push_back(end);
        features.segments.push_back({inCapsule.a, inCapsule.b, inCapsule.radius, {}});
    }
    const auto distance = [&](const Vec3d& inPoint)
    {
        const double t =
            length > 0.0 ? std::clamp((inPoint - inCapsule.a).dot(axis) / (length * length), 0.0, 1.0) : 0.0;
        return SphereDistance(inPoint, inCapsule.a + t * axis, inCapsule.radius);
    };
    MeshPrimitive(PatchSide(inA), distance, features, MakePair(inA, 0.0, inMaxDistance, outContacts));
}

void PatchContacts(const PatchView& inA, const OrientedBox& inBox, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts)
{
    const Pose& pose = inBox.pose;
    const Vec3d& half = inBox.halfExtents;
    PrimitiveFeatures features;
    // Corners: the octant of their three faces' normals.
    for (int corner = 0; corner < 8; ++corner)
    {
        const Vec3d signs((corner & 1) ? 1.0 : -1.0, (corner & 2) ? 1.0 : -1.0, (corner & 4) ? 1.0 : -1.0);
        PointFeature point;
        point.p = pose.Apply(signs.cwiseProduct(half));
        point.cone.kind = Cone::EKind::Octant;
        point.cone.axis = signs.x() * pose.rotation.col(0);
        point.cone.second = signs.y() * pose.rotation.col(1);
        point.cone.third = signs.z() * pose.rotation.col(2);
        features.points.push_back(point);
    }
    // Edges: along axis k at the signs of the other two, the wedge of those two faces' normals.
    for (int k = 0; k < 3; ++k)
        for (int quadrant = 0; quadrant < 4; ++quadrant)
        {
            const int i = (k + 1) % 3, j = (k + 2) % 3;
            Vec3d low = Vec3d::Zero();
            low[i] = (quadrant & 1) ? half[i] : -half[i];
            low[j] = (quadrant & 2) ? half[j] : -half[j];
            Vec3d high = low;
            low[k] = -half[k];
            high[k] = half[k];
            SegmentFeature segment;
            segment.a = pose.Apply(low);
            segment.b = pose.Apply(high);
            const Vec3d ni = ((quadrant & 1) ? 1.0 : -1.0) * pose.rotation.col(i);
            const Vec3d nj = ((quadrant & 2) ? 1.0 : -1.0) * pose.rotation.col(j);
            segment.cone = EdgeWedge(ni, nj, false); // a right angle, convex
            features.segments.push_back(segment);
        }
    const auto distance = [&](const Vec3d& inPoint)
    {
        const Vec3d local = pose.ApplyInverse(inPoint);
        SignedDistance sd;
        const Vec3d clamped = local.cwiseMax(-half).cwiseMin(half);
        if (clamped != local)
        {
            const Vec3d delta = local - clamped;
            sd.distance = delta.norm();
            sd.normal = pose.rotation * (delta / sd.distance);
            sd.onSurface = pose.Apply(clamped);
            return sd;
        }
        // Inside: out through the nearest face.
        int axis = 0;
        double least = cInfinity;
        for (int k = 0; k < 3; ++k)
            if (half[k] - std::abs(local[k]) < least)
            {
                least = half[k] - std::abs(local[k]);
                axis = k;
            }
        const double sign = local[axis] < 0.0 ? -1.0 : 1.0;
        Vec3d onFace = local;
        onFace[axis] = sign * half[axis];
        sd.distance = -least;
        sd.normal = sign * pose.rotation.col(axis);
        sd.onSurface = pose.Apply(onFace);
        return sd;
    };
    MeshPrimitive(PatchSide(inA), distance, features, MakePair(inA, 0.0, inMaxDistance, outContacts));
}

void PatchContacts(const PatchView& inA, const PatchView& inB, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts)
{
    MeshMesh(PatchSide(inA), PatchSide(inB), MakePair(inA, inB.margin, inMaxDistance, outContacts));
}

void PatchContacts(const PatchView& inA, std::span<const SoupTriangle> inTriangles, double inMarginB,
                   double inMaxDistance, std::vector<SurfaceContact>& outContacts)
{
    if (inTriangles.empty())
        return;
    const SoupSide soup(inTriangles, inA.bound.center, inMarginB, inA.depthLimit);
    MeshMesh(PatchSide(inA), soup, MakePair(inA, inMarginB, inMaxDistance, outContacts));
}

} // namespace bdt
