#include "ExactPredicates.h"
#include "TriangleGeometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace bdt
{

namespace
{

// ---- Exact 2D tests (coplanar configurations, projected onto a coordinate plane) ----

Vec2d Drop(const Vec3d& inPoint, int inAxis)
{
    return {inPoint[(inAxis + 1) % 3], inPoint[(inAxis + 2) % 3]};
}

// Collinear point inR within the bounding box of [inP, inQ], i.e. on the segment (exact comparisons).
bool WithinBox2D(const Vec2d& inP, const Vec2d& inQ, const Vec2d& inR)
{
    return std::min(inP.x(), inQ.x()) <= inR.x() && inR.x() <= std::max(inP.x(), inQ.x()) &&
           std::min(inP.y(), inQ.y()) <= inR.y() && inR.y() <= std::max(inP.y(), inQ.y());
}

// Closed 2D segments share a point. Degenerate (point) segments are fine.
bool SegmentsIntersect2D(const Vec2d& inP1, const Vec2d& inQ1, const Vec2d& inP2, const Vec2d& inQ2)
{
    const int o1 = Orient2D(inP1, inQ1, inP2);
    const int o2 = Orient2D(inP1, inQ1, inQ2);
    const int o3 = Orient2D(inP2, inQ2, inP1);
    const int o4 = Orient2D(inP2, inQ2, inQ1);
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return true;
    return (o1 == 0 && WithinBox2D(inP1, inQ1, inP2)) || (o2 == 0 && WithinBox2D(inP1, inQ1, inQ2)) ||
           (o3 == 0 && WithinBox2D(inP2, inQ2, inP1)) || (o4 == 0 && WithinBox2D(inP2, inQ2, inQ1));
}

// Point in a closed 2D triangle of either orientation (the triangle must not be degenerate).
bool PointInTriangle2D(const Vec2d& inP, const Vec2d (&inT)[3])
{
    const int o0 = Orient2D(inT[0], inT[1], inP);
    const int o1 = Orient2D(inT[1], inT[2], inP);
    const int o2 = Orient2D(inT[2], inT[0], inP);
    const bool negative = o0 < 0 || o1 < 0 || o2 < 0;
    const bool positive = o0 > 0 || o1 > 0 || o2 > 0;
    return !(negative && positive);
}

bool SegmentIntersectsTriangle2D(const Vec2d& inP, const Vec2d& inQ, const Vec2d (&inT)[3])
{
    if (PointInTriangle2D(inP, inT) || PointInTriangle2D(inQ, inT))
        return true;
    for (int i = 0; i < 3; ++i)
        if (SegmentsIntersect2D(inP, inQ, inT[i], inT[(i + 1) % 3]))
            return true;
    return false;
}

bool TrianglesIntersect2D(const Vec2d (&inA)[3], const Vec2d (&inB)[3])
{
    for (int i = 0; i < 3; ++i)
        if (PointInTriangle2D(inA[i], inB) || PointInTriangle2D(inB[i], inA))
            return true;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (SegmentsIntersect2D(inA[i], inA[(i + 1) % 3], inB[j], inB[(j + 1) % 3]))
                return true;
    return false;
}

// ---- Exact 3D helpers ----

// An axis whose coordinate plane the triangle projects onto without collapsing (exact), or -1 if the
// triangle is degenerate. Tries the dominant normal component first, so usually one filtered test.
int ProjectionAxis(const Vec3d (&inT)[3])
{
    const Vec3d n = (inT[1] - inT[0]).cross(inT[2] - inT[0]);
    int first = 0;
    n.cwiseAbs().maxCoeff(&first);
    for (int k = 0; k < 3; ++k)
    {
        const int axis = (first + k) % 3;
        if (Orient2D(Drop(inT[0], axis), Drop(inT[1], axis), Drop(inT[2], axis)) != 0)
            return axis;
    }
    return -1;
}

void Project(const Vec3d (&inT)[3], int inAxis, Vec2d (&outT)[3])
{
    for (int i = 0; i < 3; ++i)
        outT[i] = Drop(inT[i], inAxis);
}

// Closed 3D segments share a point: coplanar (exact), and then they meet in every coordinate projection.
// One projection is one-to-one on a plane (or line) containing both, so that is also sufficient.
bool SegmentsIntersect3D(const Vec3d& inP1, const Vec3d& inQ1, const Vec3d& inP2, const Vec3d& inQ2)
{
    if (Orient3D(inP1, inQ1, inP2, inQ2) != 0)
        return false;
    for (int axis = 0; axis < 3; ++axis)
        if (!SegmentsIntersect2D(Drop(inP1, axis), Drop(inQ1, axis), Drop(inP2, axis), Drop(inQ2, axis)))
            return false;
    return true;
}

// Segment vs a non-degenerate triangle projecting one-to-one along inAxis.
bool SegmentIntersectsTriangleAxis(const Vec3d& inP, const Vec3d& inQ, const Vec3d (&inT)[3], int inAxis)
{
    const int sp = Orient3D(inT[0], inT[1], inT[2], inP);
    const int sq = Orient3D(inT[0], inT[1], inT[2], inQ);
    if (sp * sq > 0)
        return false;
    if (sp == 0 && sq == 0)
    {
        Vec2d t[3];
        Project(inT, inAxis, t);
        return SegmentIntersectsTriangle2D(Drop(inP, inAxis), Drop(inQ, inAxis), t);
    }
    // The segment crosses the plane at X. sign det[q − p, t_i − p, t_j − p] = sign(ω_ij)·sign(n·(q − p)),
    // with ω_ij the signed area of (X, t_i, t_j): X is in the closed triangle iff no two signs differ
    // strictly.
    const int o0 = Orient3D(inP, inQ, inT[0], inT[1]);
    const int o1 = Orient3D(inP, inQ, inT[1], inT[2]);
    const int o2 = Orient3D(inP, inQ, inT[2], inT[0]);
    const bool negative = o0 < 0 || o1 < 0 || o2 < 0;
    const bool positive = o0 > 0 || o1 > 0 || o2 > 0;
    return !(negative && positive);
}

// At least one of the triangles is degenerate: it is the union of its (possibly degenerate) edges.
bool DegenerateTrianglesIntersect(const Vec3d (&inA)[3], int inAxisA, const Vec3d (&inB)[3], int inAxisB)
{
    if (inAxisA < 0 && inAxisB < 0)
    {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                if (SegmentsIntersect3D(inA[i], inA[(i + 1) % 3], inB[j], inB[(j + 1) % 3]))
                    return true;
        return false;
    }
    const bool aIsSegment = inAxisA < 0;
    const Vec3d(&segment)[3] = aIsSegment ? inA : inB;
    const Vec3d(&triangle)[3] = aIsSegment ? inB : inA;
    const int axis = aIsSegment ? inAxisB : inAxisA;
    for (int i = 0; i < 3; ++i)
        if (SegmentIntersectsTriangleAxis(segment[i], segment[(i + 1) % 3], triangle, axis))
            return true;
    return false;
}

// A vertex whose sign is strictly greater than the other two, or -1.
int StrictMax(const int (&inSigns)[3])
{
    for (int i = 0; i < 3; ++i)
        if (inSigns[i] > inSigns[(i + 1) % 3] && inSigns[i] > inSigns[(i + 2) % 3])
            return i;
    return -1;
}

// Non-coplanar triangles that both straddle or touch the other's plane. inSa: signs of A's vertices w.r.t.
// B's plane, inSb: of B's vertices w.r.t. A's plane (neither all equal).
bool CrossingTrianglesIntersect(const Vec3d (&inA)[3], const int (&inSa)[3], const Vec3d (&inB)[3],
                                const int (&inSb)[3])
{
    Vec3d a[3] = {inA[0], inA[1], inA[2]};
    Vec3d b[3] = {inB[0], inB[1], inB[2]};
    int sa[3] = {inSa[0], inSa[1], inSa[2]};
    int sb[3] = {inSb[0], inSb[1], inSb[2]};
    // Make each triangle have one vertex p strictly above the other's plane relative to the others; flipping
    // the other triangle's orientation negates those signs.
    if (StrictMax(sa) < 0)
    {
        std::swap(b[1], b[2]);
        std::swap(sb[1], sb[2]);
        for (int& s : sa)
            s = -s;
    }
    if (StrictMax(sb) < 0)
    {
        std::swap(a[1], a[2]);
        std::swap(sa[1], sa[2]);
        for (int& s : sb)
            s = -s;
    }
    const int i = StrictMax(sa);
    const int j = StrictMax(sb);
    const Vec3d& p1 = a[i];
    const Vec3d& q1 = a[(i + 1) % 3];
    const Vec3d& r1 = a[(i + 2) % 3];
    const Vec3d& p2 = b[j];
    const Vec3d& q2 = b[(j + 1) % 3];
    const Vec3d& r2 = b[(j + 2) % 3];
    // Along D = n_A × n_B, A meets the line in [X(p1 r1), X(p1 q1)] and B in [Y(p2 q2), Y(p2 r2)], where X(e)
    // and Y(e) are where edge e meets the other plane; sign Orient3D(e_A, e_B) = sign(t(Y) − t(X)).
    return Orient3D(p1, q1, p2, q2) <= 0 && Orient3D(p1, r1, p2, r2) >= 0;
}

template <class T> bool AllSame(const T (&inValues)[3])
{
    return inValues[0] == inValues[1] && inValues[1] == inValues[2];
}

} // namespace

bool SegmentIntersectsTriangle(const Vec3d& inP, const Vec3d& inQ, const Vec3d (&inTriangle)[3])
{
    const int axis = ProjectionAxis(inTriangle);
    if (axis >= 0)
        return SegmentIntersectsTriangleAxis(inP, inQ, inTriangle, axis);
    const Vec3d segment[3] = {inP, inQ, inQ};
    return DegenerateTrianglesIntersect(segment, -1, inTriangle, -1);
}

bool TrianglesIntersect(const Vec3d (&inA)[3], const Vec3d (&inB)[3])
{
    const int axisA = ProjectionAxis(inA);
    const int axisB = ProjectionAxis(inB);
    if (axisA < 0 || axisB < 0)
        return DegenerateTrianglesIntersect(inA, axisA, inB, axisB);

    int sb[3];
    for (int k = 0; k < 3; ++k)
        sb[k] = Orient3D(inA[0], inA[1], inA[2], inB[k]);
    if (AllSame(sb) && sb[0] != 0)
        return false;
    if (AllSame(sb))
    {
        // Coplanar (exact). A's projection is one-to-one on the common plane, so B's is too.
        Vec2d a[3];
        Vec2d b[3];
        Project(inA, axisA, a);
        Project(inB, axisA, b);
        return TrianglesIntersect2D(a, b);
    }
    int sa[3];
    for (int k = 0; k < 3; ++k)
        sa[k] = Orient3D(inB[0], inB[1], inB[2], inA[k]);
    if (AllSame(sa))
        return false; // all on one side (all zero would mean coplanar, excluded exactly above)
    return CrossingTrianglesIntersect(inA, sa, inB, sb);
}

Vec3d ClosestPointOnSegment(const Vec3d& inPoint, const Vec3d& inA, const Vec3d& inB)
{
    const Vec3d d = inB - inA;
    const double dd = d.squaredNorm();
    if (dd == 0.0)
        return inA;
    const double t = std::clamp((inPoint - inA).dot(d) / dd, 0.0, 1.0);
    return inA + t * d;
}

Vec3d ClosestPointOnTriangle(const Vec3d& inPoint, const Vec3d (&inTriangle)[3])
{
    const Vec3d& a = inTriangle[0];
    const Vec3d& b = inTriangle[1];
    const Vec3d& c = inTriangle[2];
    const Vec3d n = (b - a).cross(c - a);
    const double nn = n.squaredNorm();
    if (nn > 0.0)
    {
        const Vec3d x = inPoint - n * ((inPoint - a).dot(n) / nn);
        if ((b - a).cross(x - a).dot(n) >= 0.0 && (c - b).cross(x - b).dot(n) >= 0.0 &&
            (a - c).cross(x - c).dot(n) >= 0.0)
            return x;
    }
    Vec3d best = ClosestPointOnSegment(inPoint, a, b);
    double bestDistance = (best - inPoint).squaredNorm();
    for (int i = 1; i < 3; ++i)
    {
        const Vec3d candidate = ClosestPointOnSegment(inPoint, inTriangle[i], inTriangle[(i + 1) % 3]);
        const double distance = (candidate - inPoint).squaredNorm();
        if (distance < bestDistance)
        {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

Vec3d ClosestBarycentric(const Vec3d& inPoint, const Vec3d (&inTriangle)[3])
{
    const Vec3d closest = ClosestPointOnTriangle(inPoint, inTriangle);
    const Vec3d e0 = inTriangle[1] - inTriangle[0], e1 = inTriangle[2] - inTriangle[0],
                p = closest - inTriangle[0];
    const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
    const double denominator = d00 * d11 - d01 * d01;
    if (!(denominator > 1e-24 * d00 * d11))
        return Vec3d::UnitX();
    const double v = (d11 * p.dot(e0) - d01 * p.dot(e1)) / denominator;
    const double w = (d00 * p.dot(e1) - d01 * p.dot(e0)) / denominator;
    return Vec3d(1.0 - v - w, v, w);
}

double ClosestPointsSegmentSegment(const Vec3d& inP1, const Vec3d& inQ1, const Vec3d& inP2, const Vec3d& inQ2,
                                   Vec3d& outOn1, Vec3d& outOn2)
{
    const Vec3d d1 = inQ1 - inP1;
    const Vec3d d2 = inQ2 - inP2;
    const Vec3d r = inP1 - inP2;
    const double a = d1.squaredNorm();
    const double e = d2.squaredNorm();
    const double b = d1.dot(d2);
    const double denominator = a * e - b * b;
    if (denominator > 1e-14 * a * e)
    {
        // Unconstrained minimum of |P1 + s d1 − P2 − t d2|²; if it lies in the unit square it is the answer.
        const double c = d1.dot(r);
        const double f = d2.dot(r);
        const double s = (b * f - c * e) / denominator;
        const double t = (a * f - b * c) / denominator;
        if (s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0)
        {
            outOn1 = inP1 + s * d1;
            outOn2 = inP2 + t * d2;
            return (outOn1 - outOn2).norm();
        }
    }
    // Otherwise (convex quadratic) the minimum is on the boundary of the square: an endpoint of one segment
    // against the other segment.
    const Vec3d candidates[4][2] = {{inP1, ClosestPointOnSegment(inP1, inP2, inQ2)},
                                    {inQ1, ClosestPointOnSegment(inQ1, inP2, inQ2)},
                                    {ClosestPointOnSegment(inP2, inP1, inQ1), inP2},
                                    {ClosestPointOnSegment(inQ2, inP1, inQ1), inQ2}};
    double best = std::numeric_limits<double>::infinity();
    for (const auto& pair : candidates)
    {
        const double distance = (pair[0] - pair[1]).squaredNorm();
        if (distance < best)
        {
            best = distance;
            outOn1 = pair[0];
            outOn2 = pair[1];
        }
    }
    return std::sqrt(best);
}

double ClosestPointsSegmentTriangle(const Vec3d& inA, const Vec3d& inB, const Vec3d (&inTriangle)[3],
                                    Vec3d& outOnSegment, Vec3d& outOnTriangle)
{
    const bool meet = SegmentIntersectsTriangle(inA, inB, inTriangle);
    const Vec3d n = (inTriangle[1] - inTriangle[0]).cross(inTriangle[2] - inTriangle[0]);
    const double along = n.dot(inB - inA);
    if (meet && along != 0.0)
    {
        // The segment crosses the plane: the crossing point is the common point.
        const double s = std::clamp(n.dot(inTriangle[0] - inA) / along, 0.0, 1.0);
        outOnSegment = inA + s * (inB - inA);
        outOnTriangle = outOnSegment;
        return 0.0;
    }
    // Apart (or touching in the plane): the closest pair has an endpoint of the segment or a point of a
    // triangle edge.
    outOnSegment = inA;
    outOnTriangle = ClosestPointOnTriangle(inA, inTriangle);
    double best = (outOnSegment - outOnTriangle).norm();
    const Vec3d onB = ClosestPointOnTriangle(inB, inTriangle);
    if ((inB - onB).norm() < best)
    {
        best = (inB - onB).norm();
        outOnSegment = inB;
        outOnTriangle = onB;
    }
    for (int i = 0; i < 3; ++i)
    {
        Vec3d onSegment;
        Vec3d onEdge;
        const double distance =
            ClosestPointsSegmentSegment(inA, inB, inTriangle[i], inTriangle[(i + 1) % 3], onSegment, onEdge);
        if (distance < best)
        {
            best = distance;
            outOnSegment = onSegment;
            outOnTriangle = onEdge;
        }
    }
    return meet ? 0.0 : best;
}

bool TriangleBoundsOverlap(const Vec3d (&inTriangle)[3], const Aabb& inBox)
{
    if (inBox.isEmpty())
        return false;
    const Vec3d lo = inTriangle[0].cwiseMin(inTriangle[1]).cwiseMin(inTriangle[2]);
    const Vec3d hi = inTriangle[0].cwiseMax(inTriangle[1]).cwiseMax(inTriangle[2]);
    return (lo.array() <= inBox.max().array()).all() && (hi.array() >= inBox.min().array()).all();
}

std::optional<double> RayTriangle(const Ray& inRay, const Vec3d (&inTriangle)[3])
{
    const Vec3d& o = inRay.origin;
    const Vec3d& d = inRay.direction;
    // Edge function of the directed edge (u, v): d·((u − o) × (v − o)), proportional to the barycentric
    // coordinate of the vertex opposite the edge. Evaluated in a canonical direction (lexicographic) so the
    // neighbour across the edge sees exactly the negated value.
    auto edge = [&](const Vec3d& inU, const Vec3d& inV)
    {
        const bool forward =
            std::lexicographical_compare(inU.data(), inU.data() + 3, inV.data(), inV.data() + 3);
        const Vec3d& u = forward ? inU : inV;
        const Vec3d& v = forward ? inV : inU;
        const double value = d.dot((u - o).cross(v - o));
        return forward ? value : -value;
    };
    const double w0 = edge(inTriangle[1], inTriangle[2]);
    const double w1 = edge(inTriangle[2], inTriangle[0]);
    const double w2 = edge(inTriangle[0], inTriangle[1]);
    if ((w0 < 0.0 || w1 < 0.0 || w2 < 0.0) && (w0 > 0.0 || w1 > 0.0 || w2 > 0.0))
        return std::nullopt;
    const double sum = w0 + w1 + w2;
    const double dd = d.squaredNorm();
    if (sum == 0.0 || dd == 0.0)
        return std::nullopt; // parallel to the plane, or a degenerate triangle or ray
    const Vec3d hit = (w0 * inTriangle[0] + w1 * inTriangle[1] + w2 * inTriangle[2]) / sum;
    const double t = (hit - o).dot(d) / dd;
    if (!(t >= 0.0 && t <= inRay.maxT))
        return std::nullopt;
    return t;
}

} // namespace bdt
