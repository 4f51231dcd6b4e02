#pragma once

// The pairs of closest features surface contacts are made of (SurfaceContacts.h): the features with their
// names, the pair being collided (margins, distance band, where the contacts go), the box culls, and the four
// kinds of feature pair (point-face, point-segment, point-point, segment-segment) with their validity tests.
// Private to plugin/core.

#include "NormalCones.h"
#include "SurfaceContacts.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace bdt::detail
{

// How far behind a face, as a share of its depth limit, a point facing elsewhere counts as the surfaces crossing
// (`PatchContacts` of two patches returns it): deeper than a resting contact's overlap at a patch's rim.
inline constexpr double cCrossingDepth = 0.25;
inline constexpr double cInfinity = std::numeric_limits<double>::infinity();
// Edges closer to parallel than this (|e_A × e_B| over |e_A||e_B|) make no edge-edge contact: their closest
// points are the end of one against the other, which the vertex pairs find.
inline constexpr double cParallel = 1e-9;
// A closest point within this fraction of an end of a segment is that end's (a vertex feature's) contact.
inline constexpr double cInterior = 1e-12;

// ---- Barycentric coordinates ----

// The barycentric coordinates of `inPoint` (in the triangle's plane) and whether it lies in the closed
// triangle (to rounding). A degenerate triangle holds nothing.
inline bool Barycentric(const Vec3d& inPoint, const Vec3d& inA, const Vec3d& inB, const Vec3d& inC,
                        Vec3d& outBary)
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

// ---- Feature pairs ----

// Whether a point lies in a box grown by `inReach`.
inline bool InBox(const Vec3d& inPoint, const Aabb& inBox, double inReach)
{
    return ((inBox.min().array() - inReach) <= inPoint.array()).all() &&
           (inPoint.array() <= (inBox.max().array() + inReach)).all();
}

// Whether two boxes, one grown by `inReach`, overlap.
inline bool BoxesMeet(const Aabb& inA, const Aabb& inB, double inReach)
{
    return ((inA.min().array() - inReach) <= inB.max().array()).all() &&
           (inB.min().array() <= (inA.max().array() + inReach)).all();
}

// The box of a segment.
inline Aabb SegmentBox(const Vec3d& inA, const Vec3d& inB)
{
    return Aabb(inA.cwiseMin(inB), inA.cwiseMax(inB));
}

// Whether the boxes of two segments, grown by `inReach`, overlap: the cheap test before the closest points.
inline bool BoxesOverlap(const SegmentFeature& inA, const SegmentFeature& inB, double inReach)
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
inline void PointPoint(const PointFeature& inA, const Naming& inNamingA, const PointFeature& inB,
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

inline PairContext MakePair(const PatchView& inA, double inMarginB, double inMaxDistance,
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

} // namespace bdt::detail
