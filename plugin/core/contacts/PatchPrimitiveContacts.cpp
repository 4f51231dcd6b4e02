// Surface contacts of a patch against a convex primitive (SurfaceContacts.h): a half-space, a sphere, a
// capsule, a box, or a hull's rounded points. The patch's vertices against the primitive's signed distance,
// the primitive's corners and edges against the patch's faces and edges (`MeshPrimitive`).

#include "FeaturePairs.h"
#include "NormalCones.h"
#include "PatchSide.h"
#include "SurfaceContacts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

namespace
{

using detail::BoxesMeet;
using detail::BoxesOverlap;
using detail::cCrossingDepth;
using detail::cInfinity;
using detail::Cone;
using detail::Contains;
using detail::cSlackSin;
using detail::EdgeWedge;
using detail::InBox;
using detail::MakePair;
using detail::Naming;
using detail::PairContext;
using detail::PatchPairCount;
using detail::PatchSide;
using detail::PointFaces;
using detail::PointFeature;
using detail::PointSegment;
using detail::SegmentBox;
using detail::SegmentFeature;
using detail::SegmentSegment;

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

} // namespace bdt
