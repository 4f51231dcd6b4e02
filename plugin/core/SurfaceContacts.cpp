// Surface contacts as pairs of closest features (see SurfaceContacts.h): the normal cones of mesh and
// primitive features, the four kinds of feature pair (point-face, point-segment, point-point,
// segment-segment) with their validity tests, and the sides they run on: a proxy's patch, a soup of static
// triangles made into a small mesh, and the analytic primitives.

#include "SurfaceContacts.h"
#include "TriangleGeometry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// How far behind a face, as a share of its depth limit, a point facing elsewhere counts as the surfaces crossing
// (`PatchContacts` of two patches returns it): deeper than a resting contact's overlap at a patch's rim.
constexpr double cCrossingDepth = 0.25;
constexpr double cInfinity = std::numeric_limits<double>::infinity();
// Edges closer to parallel than this (|e_A × e_B| over |e_A||e_B|) make no edge-edge contact: their closest
// points are the end of one against the other, which the vertex pairs find.
constexpr double cParallel = 1e-9;
// A closest point within this fraction of an end of a segment is that end's (a vertex feature's) contact.
constexpr double cInterior = 1e-12;
// A static triangle faces against a patch's outside when its normal is within 60° of it (`SoupSide`).
constexpr double cClearlyAcross = 0.5;
// The sine of the slack angle of `cConeSlack`.
const double cSlackSin = cConeSlack;

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
    // Wedge: cos and sin of half the angle of its faces' normals, and whether the edge is reflex (for a slack
    // other than `cConeSlack`).
    double halfCos = 1.0;
    double halfSin = 0.0;
    bool reflex = false;
};

// The threshold of u·axis of an edge's wedge (`EdgeWedge`) with slack sine `inSlackSin`; above 1 where a reflex
// edge is not nearly flat within it (no direction passes).
double WedgeThreshold(double inHalfCos, double inHalfSin, bool inReflex, double inSlackSin)
{
    const double slackCos = std::sqrt(1.0 - inSlackSin * inSlackSin);
    if (!inReflex)
        return inHalfCos * slackCos - inHalfSin * inSlackSin; // cos(θ/2 + slack)
    if (inHalfSin <= inSlackSin)
        return inHalfCos * slackCos + inHalfSin * inSlackSin; // cos(slack − θ/2): nearly flat
    return 2.0;
}

// Whether the cone holds direction `inU`, with slack sine `inSlackSin` (at most `cConeSlack`'s).
bool Contains(const Cone& inCone, const Vec3d& inU, double inSlackSin = cSlackSin)
{
    switch (inCone.kind)
    {
    case Cone::EKind::All:
        return true;
    case Cone::EKind::Empty:
        return false;
    case Cone::EKind::HalfSpace:
        return inU.dot(inCone.axis) >= -inSlackSin;
    case Cone::EKind::Wedge:
        return inU.dot(inCone.axis) >=
               (inSlackSin == cSlackSin ? inCone.threshold
                                        : WedgeThreshold(inCone.halfCos, inCone.halfSin, inCone.reflex,
                                                         inSlackSin));
    case Cone::EKind::Octant:
        return inU.dot(inCone.axis) >= -inSlackSin && inU.dot(inCone.second) >= -inSlackSin &&
               inU.dot(inCone.third) >= -inSlackSin;
    case Cone::EKind::Vertex:
    {
        // The vertex is a local closest point along u when no edge of its ring rises towards u. A vertex that
        // is nearly flat (or a saddle) along u passes for −u too: its side, the outside of a closed surface,
        // decides then (a convex vertex fails −u by itself, whatever the angle of its faces).
        const auto ringBelow = [&inCone, inSlackSin](const Vec3d& inDirection)
        {
            for (const std::uint32_t w : inCone.ring)
            {
                const Vec3d edge = inCone.ringVertices[w] - inCone.position;
                if (inDirection.dot(edge) > inSlackSin * edge.norm())
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
    cone.halfCos = halfCos;
    cone.halfSin = halfSin;
    cone.reflex = reflex;
    cone.threshold = WedgeThreshold(halfCos, halfSin, reflex, cSlackSin);
    if (cone.threshold > 1.0)
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
    /// Feature pairs that penetrate but make no contact (counted): cores deeper in each other than the depth
    /// limit, or a point behind a face whose normal its cone does not hold (surfaces crossing each other).
    std::size_t* tooDeep = nullptr;

    /// Points behind a face (well behind: `cCrossingDepth`) that they do not face, where the surfaces cross
    /// (counted; two deformable patches only: a static mesh's or a primitive's rims are left to their own
    /// contacts).
    std::size_t* crossings = nullptr;
    /// The sine of the normal cones' slack for this pair: `cConeSlack`, less against a curved primitive
    /// (`CurvedSlack`).
    double slackSin = cSlackSin;
    /// Where the feature pairs tested are counted (`QueryStats::featureTests`), or null.
    std::uint64_t* featureTests = nullptr;

    void CountTests(std::size_t inCount) const
    {
        if (featureTests != nullptr)
            *featureTests += inCount;
    }

    void CountPenetrating() const
    {
        if (tooDeep != nullptr)
            ++*tooDeep;
    }

    // Emits the contact of A's point `inOnA` and B's core point `inOnB` (B's surface is `inRadiusB` further
    // along the normal) along `inNormal` (B to A) at core distance `inGap` = (inOnA − inOnB)·n, if within the
    // band.
    void Emit(const Vec3d& inOnA, const Naming& inA, const Vec3d& inOnB, const Naming& inB,
              const Vec3d& inNormal, double inGap, double inRadiusB, double inDepthLimit) const
    {
        // The depth limit holds for the cores (a ball's centre, not its surface): how far a point is behind a
        // face decides whether it is in the body or beyond a thin part of it.
        const double distance = inGap - inRadiusB - marginA - marginB;
        if (distance > maxDistance)
            return;
        if (inGap < -inDepthLimit)
        {
            CountPenetrating();
            return;
        }
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

// ---- Feature pairs ----

// Whether a point lies in a box grown by `inReach`.
bool InBox(const Vec3d& inPoint, const Aabb& inBox, double inReach)
{
    return ((inBox.min().array() - inReach) <= inPoint.array()).all() &&
           (inPoint.array() <= (inBox.max().array() + inReach)).all();
}

// Whether two boxes, one grown by `inReach`, overlap.
bool BoxesMeet(const Aabb& inA, const Aabb& inB, double inReach)
{
    return ((inA.min().array() - inReach) <= inB.max().array()).all() &&
           (inB.min().array() <= (inA.max().array() + inReach)).all();
}

// The box of a segment.
Aabb SegmentBox(const Vec3d& inA, const Vec3d& inB)
{
    return Aabb(inA.cwiseMin(inB), inA.cwiseMax(inB));
}

// Whether the boxes of two segments, grown by `inReach`, overlap: the cheap test before the closest points.
bool BoxesOverlap(const SegmentFeature& inA, const SegmentFeature& inB, double inReach)
{
    const Vec3d lowA = inA.a.cwiseMin(inA.b), highA = inA.a.cwiseMax(inA.b);
    const Vec3d lowB = inB.a.cwiseMin(inB.b), highB = inB.a.cwiseMax(inB.b);
    return ((lowA.array() - inReach) <= highB.array()).all() &&
           ((lowB.array() - inReach) <= highA.array()).all();
}

// A point against a mesh side's faces (those of `inFaceList`). `inPointIsA`: the point is A's (a vertex of A
// against B's faces), else B's (a primitive's corner, a ball's centre, or B's vertex, against A's faces).
template <class Side>
void PointFaces(const PointFeature& inPoint, const Naming& inNaming, const Side& inFaces,
                std::span<const std::uint32_t> inFaceList, bool inPointIsA, const PairContext& inPair)
{
    const double reach = inPair.Reach(inPointIsA ? 0.0 : inPoint.radius);
    inPair.CountTests(inFaceList.size());
    for (const std::uint32_t f : inFaceList)
    {
        // A face whose box is out of reach has no point within it, in front or (the depth limit being at most
        // the reach's order) behind.
        if (!InBox(inPoint.p, inFaces.FaceBox(f), std::max(reach, inFaces.DepthLimit())))
            continue;
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
        if (!Contains(inPoint.cone, -outward, inPair.slackSin))
        {
            // Well behind the face (a resting contact's slight overlap at a patch's rim is not), facing
            // elsewhere: the surfaces cross here.
            if (inPair.crossings != nullptr && height < -cCrossingDepth * inFaces.DepthLimit() &&
                height > -inFaces.DepthLimit())
                ++*inPair.crossings;
            continue;
        }
        if (inPointIsA)
            inPair.Emit(inPoint.p, inNaming, onFace, inFaces.FaceNaming(f, bary), outward, height, 0.0,
                        inFaces.DepthLimit());
        else
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
    inPair.CountTests(1);
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
    if (!Contains(inSegment.cone, towardPoint, inPair.slackSin) ||
        !Contains(inPoint.cone, -towardPoint, inPair.slackSin))
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
    inPair.CountTests(1);
    const Vec3d delta = inA.p - inB.p;
    const double distance = delta.norm();
    if (!(distance > 0.0) || distance > inPair.Reach(inB.radius))
        return;
    const Vec3d normal = delta / distance;
    if (Contains(inB.cone, normal, inPair.slackSin) && Contains(inA.cone, -normal, inPair.slackSin))
        inPair.Emit(inA.p, inNamingA, inB.p, inNamingB, normal, distance, inB.radius, cInfinity);
}

// A's segment against B's, interiors: the closest points of the two lines when both fall inside, along
// e_A × e_B (turned to B's outside).
template <class NamingA, class NamingB>
void SegmentSegment(const SegmentFeature& inA, const NamingA& inNamingA, const SegmentFeature& inB,
                    const NamingB& inNamingB, double inDepthLimit, const PairContext& inPair)
{
    inPair.CountTests(1);
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
    if (Contains(inB.cone, normal, inPair.slackSin) && Contains(inA.cone, -normal, inPair.slackSin))
        inPair.Emit(onA, inNamingA(s), onB, inNamingB(t), normal, gap, inB.radius, inDepthLimit);
}

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
// A primitive with one way out of it from any point (sphere, capsule, half-space): none other to choose.
struct OneWayOut
{
    bool operator()(const Vec3d&, const Cone&, SignedDistance&) const { return false; }
};

// `inOtherWayOut(p, cone, sd)`: for a point inside the primitive whose nearest way out (`inDistance`) is not one
// its cone faces, another way out it faces (a box's other faces), if any (true, written to sd).
template <class DistanceFunction, class OtherWayOut = OneWayOut>
void MeshPrimitive(const PatchSide& inA, const DistanceFunction& inDistance, const PrimitiveFeatures& inB,
                   const PairContext& inPair, const OtherWayOut& inOtherWayOut = {})
{
    const double reach = inPair.Reach(0.0);
    inPair.CountTests(inA.PointCount());
    for (std::uint32_t v = 0; v < inA.PointCount(); ++v)
    {
        SignedDistance sd = inDistance(inA.PointAt(v));
        if (sd.distance > reach)
            continue;
        const PointFeature point = inA.Point(v);
        // A vertex pressed past the middle of a thin box is nearer its far face, which it does not face: out
        // through another face, if the primitive has one for it (`PatchView::bodyCentre`).
        if (!Contains(point.cone, -sd.normal, inPair.slackSin) &&
            !(sd.distance < 0.0 && inOtherWayOut(point.p, point.cone, sd)))
        {
            // Well inside the primitive and facing none of its ways out: the primitive has passed through
            // the surface here (a ball whose centre went in), which no feature pair of this patch can push
            // back (counted, as a pair deeper than the depth limit).
            if (sd.distance < -cCrossingDepth * inA.DepthLimit())
                inPair.CountPenetrating();
            continue;
        }
        inPair.Emit(point.p, inA.PointNaming(v), sd.onSurface, Naming{}, sd.normal, sd.distance, 0.0, cInfinity);
    }
    // The primitive's corners and edges near the patch's box, and the box they span (grown by their reach):
    // A's edges matter only there.
    thread_local std::vector<const PointFeature*> points;
    thread_local std::vector<const SegmentFeature*> segments;
    points.clear();
    segments.clear();
    Aabb near;
    for (const PointFeature& point : inB.points)
        if (const double grow = inPair.Reach(point.radius); InBox(point.p, inA.Box(), grow))
        {
            points.push_back(&point);
            near.extend(Aabb(point.p.array() - grow, point.p.array() + grow));
        }
    for (const SegmentFeature& segment : inB.segments)
        if (const double grow = inPair.Reach(segment.radius);
            BoxesMeet(SegmentBox(segment.a, segment.b), inA.Box(), grow))
        {
            segments.push_back(&segment);
            const Aabb box = SegmentBox(segment.a, segment.b);
            near.extend(Aabb(box.min().array() - grow, box.max().array() + grow));
        }
    if (points.empty() && segments.empty())
        return;
    thread_local std::vector<SegmentFeature> edgesA;
    thread_local std::vector<std::uint32_t> edgeIdsA;
    edgesA.clear();
    edgeIdsA.clear();
    for (std::uint32_t e = 0; e < inA.SegmentCount(); ++e)
    {
        const auto [a, b] = inA.SegmentEnds(e);
        if (!BoxesMeet(SegmentBox(a, b), near, 0.0))
            continue;
        SegmentFeature segment = inA.Segment(e);
        if (segment.cone.kind != Cone::EKind::Empty)
        {
            edgesA.push_back(segment);
            edgeIdsA.push_back(e);
        }
    }
    thread_local std::vector<std::uint32_t> faces;
    faces.clear();
    for (std::uint32_t f = 0; f < inA.FaceCount(); ++f)
        if (BoxesMeet(inA.FaceBox(f), near, 0.0))
            faces.push_back(f);
    for (const PointFeature* point : points)
    {
        PointFaces(*point, Naming{}, inA, faces, false, inPair);
        const SegmentFeature spot{point->p, point->p, point->radius, {}};
        for (std::size_t e = 0; e < edgesA.size(); ++e)
            if (BoxesOverlap(edgesA[e], spot, inPair.Reach(point->radius)))
                PointSegment(
                    *point, Naming{}, edgesA[e],
                    [&](double inT) { return inA.SegmentNaming(edgeIdsA[e], inT); }, false, inPair);
    }
    for (const SegmentFeature* segment : segments)
        for (std::size_t e = 0; e < edgesA.size(); ++e)
            if (BoxesOverlap(edgesA[e], *segment, inPair.Reach(segment->radius)))
                SegmentSegment(
                    edgesA[e], [&](double inS) { return inA.SegmentNaming(edgeIdsA[e], inS); }, *segment,
                    [](double) { return Naming{}; }, inA.DepthLimit(), inPair);
}

PairContext MakePair(const PatchView& inA, double inMarginB, double inMaxDistance,
                     std::vector<SurfaceContact>& outContacts, std::size_t* outTooDeep = nullptr)
{
    PairContext pair{inA.margin, inMarginB, inMaxDistance, &outContacts, outTooDeep};
    if (inA.stats != nullptr)
        pair.featureTests = &inA.stats->featureTests;
    return pair;
}

// Counts a patch pair and the contacts it made (`PatchView::stats`) when it goes out of scope.
class PatchPairCount
{
public:
    PatchPairCount(const PatchView& inA, const std::vector<SurfaceContact>& inContacts)
        : mStats(inA.stats), mContacts(inContacts), mBefore(inContacts.size())
    {
    }
    ~PatchPairCount()
    {
        if (mStats != nullptr)
        {
            ++mStats->patchPairs;
            mStats->surfaceContacts += mContacts.size() - mBefore;
        }
    }
    PatchPairCount(const PatchPairCount&) = delete;
    PatchPairCount& operator=(const PatchPairCount&) = delete;

private:
    QueryStats* mStats;
    const std::vector<SurfaceContact>& mContacts;
    std::size_t mBefore;
};

// The slack sine against a primitive curved with radius `inRadius` (a sphere, a capsule): a flat patch's
// vertices and edges at distance s from where a ball of radius R touches it leave their cones by about s/R and
// stand s²/2R above the touch, so `cConeSlack` would make a fan of contacts a twentieth of R wide (25 cm under a
// 5 m sphere). Each is load-bearing in Bullet's solver while its gap is under g·h² (2.7 mm at 60 Hz), and the
// fan's points are fixed on the body: a body rocking on a large ball pivots on them and is pumped. The slack is
// cut where a fan point would stand more than `cCurvedFanHeight` above the touch.
constexpr double cCurvedFanHeight = 1e-6; // m
double CurvedSlack(double inRadius)
{
    return inRadius > 0.0 ? std::min(cSlackSin, std::sqrt(2.0 * cCurvedFanHeight / inRadius)) : cSlackSin;
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

std::size_t PatchContacts(const PatchView& inA, const Plane& inPlane, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts)
{
    const PatchPairCount count(inA, outContacts);
    std::size_t tooDeep = 0;
    const auto distance = [&](const Vec3d& inPoint)
    {
        SignedDistance sd;
        sd.distance = inPlane.normal.dot(inPoint) - inPlane.offset;
        sd.normal = inPlane.normal;
        sd.onSurface = inPoint - sd.distance * inPlane.normal;
        return sd;
    };
    MeshPrimitive(PatchSide(inA), distance, {}, MakePair(inA, 0.0, inMaxDistance, outContacts, &tooDeep));
    return tooDeep;
}

std::size_t PatchContacts(const PatchView& inA, const Sphere& inSphere, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts)
{
    const PatchPairCount count(inA, outContacts);
    std::size_t tooDeep = 0;
    PrimitiveFeatures features;
    features.points.push_back({inSphere.center, inSphere.radius, {}});
    PairContext pair = MakePair(inA, 0.0, inMaxDistance, outContacts, &tooDeep);
    pair.slackSin = CurvedSlack(inSphere.radius);
    MeshPrimitive(
        PatchSide(inA),
        [&](const Vec3d& inPoint) { return SphereDistance(inPoint, inSphere.center, inSphere.radius); },
        features, pair);
    return tooDeep;
}

std::size_t PatchContacts(const PatchView& inA, const Capsule& inCapsule, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts)
{
    const PatchPairCount count(inA, outContacts);
    std::size_t tooDeep = 0;
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
    PairContext pair = MakePair(inA, 0.0, inMaxDistance, outContacts, &tooDeep);
    pair.slackSin = CurvedSlack(inCapsule.radius);
    MeshPrimitive(PatchSide(inA), distance, features, pair);
    return tooDeep;
}

std::size_t PatchContacts(const PatchView& inA, const OrientedBox& inBox, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts)
{
    const PatchPairCount count(inA, outContacts);
    std::size_t tooDeep = 0;
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
    // Inside, its nearest face not facing the vertex: out through the face on the body's side of the box, if the
    // vertex faces that one (a vertex pressed past the middle of a thin floor goes back up, not on through).
    const bool sideKnown = inA.bodyCentre.allFinite();
    int sideAxis = 0;
    double sideSign = 1.0;
    if (sideKnown)
    {
        const Vec3d centre = pose.ApplyInverse(inA.bodyCentre);
        double most = -cInfinity;
        for (int k = 0; k < 3; ++k)
            if (half[k] > 0.0 && std::abs(centre[k]) / half[k] > most)
            {
                most = std::abs(centre[k]) / half[k];
                sideAxis = k;
                sideSign = centre[k] < 0.0 ? -1.0 : 1.0;
            }
    }
    const auto facing = [&](const Vec3d& inPoint, const Cone& inCone, SignedDistance& outSd)
    {
        const Vec3d normal = sideSign * pose.rotation.col(sideAxis);
        if (!sideKnown || !Contains(inCone, -normal))
            return false;
        Vec3d onFace = pose.ApplyInverse(inPoint);
        const double height = sideSign * onFace[sideAxis] - half[sideAxis]; // ≤ 0 inside
        onFace[sideAxis] = sideSign * half[sideAxis];
        outSd = {height, pose.Apply(onFace), normal};
        return true;
    };
    MeshPrimitive(PatchSide(inA), distance, features,
                  MakePair(inA, 0.0, inMaxDistance, outContacts, &tooDeep), facing);
    return tooDeep;
}

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

namespace
{

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

void PatchContacts(const PatchView& inA, std::span<const Vec3d> inPoints, double inRadius, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts)
{
    const PatchPairCount count(inA, outContacts);
    PrimitiveFeatures features;
    for (const Vec3d& point : inPoints)
        features.points.push_back({point, inRadius, {}});
    // The points only: the hull's own surface is the caller's (per-triangle closest points).
    const auto none = [](const Vec3d&) { return SignedDistance{cInfinity, Vec3d::Zero(), Vec3d::UnitY()}; };
    MeshPrimitive(PatchSide(inA), none, features, MakePair(inA, 0.0, inMaxDistance, outContacts));
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
