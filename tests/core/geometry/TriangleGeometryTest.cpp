#include "support/QueryOracles.h"

#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <optional>
#include <random>

namespace bdt
{
namespace
{

using namespace test;

bool Intersect(const Tri& inA, const Tri& inB)
{
    const Vec3d a[3] = {inA[0], inA[1], inA[2]};
    const Vec3d b[3] = {inB[0], inB[1], inB[2]};
    return TrianglesIntersect(a, b);
}

// Independent oracle in plain doubles: non-coplanar triangles meet iff an edge of one crosses the other.
bool OracleTrianglesIntersect(const Tri& inA, const Tri& inB)
{
    for (int i = 0; i < 3; ++i)
    {
        if (OracleSegmentParameter(inA[i], inA[(i + 1) % 3], inB) ||
            OracleSegmentParameter(inB[i], inB[(i + 1) % 3], inA))
            return true;
    }
    return false;
}

// Points of the triangle on a barycentric grid.
std::vector<Vec3d> SampleTriangle(const Tri& inT, int inSteps)
{
    std::vector<Vec3d> samples;
    for (int i = 0; i <= inSteps; ++i)
        for (int j = 0; i + j <= inSteps; ++j)
        {
            const double u = double(i) / inSteps;
            const double v = double(j) / inSteps;
            samples.push_back(inT[0] + u * (inT[1] - inT[0]) + v * (inT[2] - inT[0]));
        }
    return samples;
}

// ---- Triangle-triangle ----

TEST(TrianglesIntersect, MatchesEdgeOracleOnRandomTriangles)
{
    std::mt19937 random(3);
    int hits = 0;
    for (int trial = 0; trial < 30000; ++trial)
    {
        const Tri a = RandomTriangle(random);
        Tri b = RandomTriangle(random);
        for (Vec3d& v : b)
            v = 0.7 * v + Vec3d(0.3, 0.1, -0.2);
        const bool expected = OracleTrianglesIntersect(a, b);
        ASSERT_EQ(Intersect(a, b), expected) << "trial " << trial;
        ASSERT_EQ(Intersect(b, a), expected) << "trial " << trial;
        // Any vertex order, either orientation.
        ASSERT_EQ(Intersect({a[1], a[2], a[0]}, {b[0], b[2], b[1]}), expected) << "trial " << trial;
        ASSERT_EQ(Intersect({a[0], a[2], a[1]}, {b[2], b[1], b[0]}), expected) << "trial " << trial;
        hits += expected;
    }
    // Both outcomes well represented.
    EXPECT_GT(hits, 3000);
    EXPECT_LT(hits, 27000);
}

TEST(TrianglesIntersect, TouchingConfigurationsCountAndOneUlpApartDoNot)
{
    // A lies on the plane z = (x + y)/4; (1, 1, 0.5) is exactly on it, inside A.
    const Tri a = {Vec3d(0, 0, 0), Vec3d(4, 0, 1), Vec3d(0, 4, 1)};
    const Vec3d on(1, 1, 0.5);
    const Vec3d above(1, 1, std::nextafter(0.5, 1.0));
    EXPECT_TRUE(Intersect(a, {on, Vec3d(1, 2, 3), Vec3d(2, 1, 3)}));             // vertex on the face
    EXPECT_FALSE(Intersect(a, {above, Vec3d(1, 2, 3), Vec3d(2, 1, 3)}));         // one ulp above
    EXPECT_TRUE(Intersect(a, {Vec3d(4, 0, 1), Vec3d(5, 5, 5), Vec3d(6, 0, 0)})); // shared vertex
    EXPECT_TRUE(Intersect(a, {Vec3d(4, 0, 1), Vec3d(0, 4, 1), Vec3d(4, 4, 0)})); // shared edge, folded
    // Edge-edge touching: B's edge x = 2, y = 0 crosses A's edge y = 0, z = x/4 at (2, 0, 0.5); B lies at y ≤
    // 0.
    EXPECT_TRUE(Intersect(a, {Vec3d(2, 0, 0), Vec3d(2, 0, 1), Vec3d(3, -1, 0.5)}));
    const double below = -1e-100; // tiny but far from underflow (the predicates are exact above 1e-90)
    EXPECT_FALSE(Intersect(a, {Vec3d(2, below, 0), Vec3d(2, below, 1), Vec3d(3, -1, 0.5)}));
    // B's vertex on A's edge, the rest of B at y < 0.
    EXPECT_TRUE(Intersect(a, {Vec3d(2, 0, 0.5), Vec3d(2, -1, 3), Vec3d(3, -1, 3)}));
    EXPECT_FALSE(Intersect(a, {Vec3d(2, below, 0.5), Vec3d(2, -1, 3), Vec3d(3, -1, 3)}));
    // Far apart, parallel planes.
    EXPECT_FALSE(Intersect(a, {Vec3d(0, 0, 1), Vec3d(4, 0, 2), Vec3d(0, 4, 2)}));
}

TEST(TrianglesIntersect, CoplanarCases)
{
    // Coplanar in the tilted plane z = (x + y)/4 (all coordinates exact).
    auto lift = [](double inX, double inY) { return Vec3d(inX, inY, (inX + inY) / 4); };
    const Tri a = {lift(0, 0), lift(4, 0), lift(0, 4)};
    EXPECT_TRUE(Intersect(a, {lift(1, 1), lift(3, 3), lift(1, 3)}));         // overlapping
    EXPECT_TRUE(Intersect(a, {lift(0.5, 0.5), lift(1, 0.5), lift(0.5, 1)})); // contained
    EXPECT_TRUE(Intersect({lift(0.5, 0.5), lift(1, 0.5), lift(0.5, 1)}, a)); // container
    EXPECT_TRUE(Intersect(a, {lift(4, 0), lift(6, 0), lift(6, 2)}));         // vertex touch
    EXPECT_TRUE(Intersect(a, {lift(4, 0), lift(0, 4), lift(4, 4)}));         // shared edge
    EXPECT_TRUE(Intersect(a, {lift(2, 2), lift(4, 4), lift(2, 4)}));         // vertex on edge
    EXPECT_FALSE(Intersect(a, {lift(2.25, 2), lift(4, 4), lift(2, 4)}));     // just outside
    EXPECT_FALSE(Intersect(a, {lift(5, 0), lift(7, 0), lift(7, 2)}));        // apart
    EXPECT_TRUE(Intersect(a, {lift(-1, 1), lift(5, 1), lift(2, -1)}));       // edges crossing, no vertex in
    // Coplanar with inexact coordinates (plane x = y): random pairs against a 2D point-sampling oracle.
    std::mt19937 random(4);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    int agree = 0;
    for (int trial = 0; trial < 2000; ++trial)
    {
        Tri p, q;
        for (Vec3d& v : p)
        {
            const double x = uniform(random);
            v = Vec3d(x, x, uniform(random));
        }
        for (Vec3d& v : q)
        {
            const double x = 0.5 * uniform(random) + 0.3;
            v = Vec3d(x, x, 0.5 * uniform(random));
        }
        // Oracle: coplanar triangles meet iff an edge of one crosses an edge of the other or one contains a
        // vertex of the other; crossings in the plane x = y checked in the (x, z) chart with doubles.
        auto cross2 = [](const Vec3d& inO, const Vec3d& inA, const Vec3d& inB)
        { return (inA.x() - inO.x()) * (inB.z() - inO.z()) - (inA.z() - inO.z()) * (inB.x() - inO.x()); };
        auto inside = [&](const Vec3d& inP, const Tri& inT)
        {
            const double s0 = cross2(inT[0], inT[1], inP), s1 = cross2(inT[1], inT[2], inP),
                         s2 = cross2(inT[2], inT[0], inP);
            return (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0);
        };
        bool expected = false;
        for (int i = 0; i < 3; ++i)
        {
            expected = expected || inside(p[i], q) || inside(q[i], p);
            for (int j = 0; j < 3; ++j)
            {
                const Vec3d &a0 = p[i], &a1 = p[(i + 1) % 3], &b0 = q[j], &b1 = q[(j + 1) % 3];
                expected = expected || (cross2(a0, a1, b0) * cross2(a0, a1, b1) < 0 &&
                                        cross2(b0, b1, a0) * cross2(b0, b1, a1) < 0);
            }
        }
        ASSERT_EQ(Intersect(p, q), expected) << "trial " << trial;
        agree += expected;
    }
    EXPECT_GT(agree, 200);
}

// Exact integer oracle for segment vs triangle (small integer coordinates): the crossing point as a rational
// P + (num/den)·(Q − P), tested against the edges with integer arithmetic; coplanar segments by containment
// and edge crossings in the plane.
using V3 = Eigen::Matrix<long long, 3, 1>;

long long SideOf(const V3& inE0, const V3& inE1, const V3& inX, long long inScale, const V3& inN)
{
    return (inE1 - inE0).cross(inX - inScale * inE0).dot(inN);
}

bool IntegerSegmentTriangle(const V3& inP, const V3& inQ, const V3 (&inT)[3])
{
    const V3 n = (inT[1] - inT[0]).cross(inT[2] - inT[0]);
    auto inside = [&](const V3& inX, long long inScale)
    {
        bool negative = false, positive = false;
        for (int i = 0; i < 3; ++i)
        {
            const long long s = SideOf(inT[i], inT[(i + 1) % 3], inX, inScale, n);
            negative = negative || s < 0;
            positive = positive || s > 0;
        }
        return !(negative && positive);
    };
    const V3 d = inQ - inP;
    long long den = n.dot(d);
    long long num = n.dot(inT[0] - inP);
    if (den != 0)
    {
        if (den < 0)
        {
            den = -den;
            num = -num;
        }
        return num >= 0 && num <= den && inside(den * inP + num * d, den);
    }
    if (num != 0)
        return false;
    if (inside(inP, 1) || inside(inQ, 1))
        return true;
    auto sign = [](long long inValue) { return inValue > 0 ? 1 : (inValue < 0 ? -1 : 0); };
    auto between = [](const V3& inA, const V3& inB, const V3& inX)
    {
        return (inX.array() >= inA.cwiseMin(inB).array()).all() &&
               (inX.array() <= inA.cwiseMax(inB).array()).all();
    };
    for (int i = 0; i < 3; ++i)
    {
        const V3& e0 = inT[i];
        const V3& e1 = inT[(i + 1) % 3];
        const int o1 = sign(SideOf(inP, inQ, e0, 1, n)), o2 = sign(SideOf(inP, inQ, e1, 1, n));
        const int o3 = sign(SideOf(e0, e1, inP, 1, n)), o4 = sign(SideOf(e0, e1, inQ, 1, n));
        if ((o1 * o2 < 0 && o3 * o4 < 0) || (o1 == 0 && between(inP, inQ, e0)) ||
            (o2 == 0 && between(inP, inQ, e1)) || (o3 == 0 && between(e0, e1, inP)) ||
            (o4 == 0 && between(e0, e1, inQ)))
            return true;
    }
    return false;
}

TEST(TrianglesIntersect, MatchesExactIntegerOracleOnAGrid)
{
    // Vertices on a 4×4×4 integer grid: shared vertices, shared edges, coplanar pairs, vertices on faces and
    // degenerate (collinear) triangles are all frequent. Oracle: two triangles meet iff an edge of one meets
    // the other (a degenerate triangle is its edges).
    std::mt19937 random(13);
    std::uniform_int_distribution<int> coordinate(0, 3);
    int counts[2] = {0, 0};
    int coplanar = 0;
    for (int trial = 0; trial < 40000; ++trial)
    {
        V3 a[3], b[3];
        for (V3& v : a)
            v = V3(coordinate(random), coordinate(random), coordinate(random));
        for (V3& v : b)
            v = V3(coordinate(random), coordinate(random), coordinate(random));
        if (trial % 4 == 1)
        {
            // Force a coplanar pair on the tilted plane z = x.
            for (V3& v : a)
                v.z() = v.x();
            for (V3& v : b)
                v.z() = v.x();
        }
        const bool degenerateA = (a[1] - a[0]).cross(a[2] - a[0]).isZero();
        const bool degenerateB = (b[1] - b[0]).cross(b[2] - b[0]).isZero();
        if (degenerateA && degenerateB)
            continue;
        bool expected = false;
        for (int i = 0; i < 3; ++i)
        {
            expected = expected || (!degenerateB && IntegerSegmentTriangle(a[i], a[(i + 1) % 3], b)) ||
                       (!degenerateA && IntegerSegmentTriangle(b[i], b[(i + 1) % 3], a));
        }
        coplanar += !degenerateA && (b[0] - a[0]).dot((a[1] - a[0]).cross(a[2] - a[0])) == 0 &&
                    (b[1] - a[0]).dot((a[1] - a[0]).cross(a[2] - a[0])) == 0 &&
                    (b[2] - a[0]).dot((a[1] - a[0]).cross(a[2] - a[0])) == 0;
        Tri ta, tb;
        for (int i = 0; i < 3; ++i)
        {
            ta[i] = a[i].cast<double>();
            tb[i] = b[i].cast<double>();
        }
        ASSERT_EQ(Intersect(ta, tb), expected) << "trial " << trial;
        ASSERT_EQ(Intersect(tb, ta), expected) << "trial " << trial;
        ASSERT_EQ(Intersect({ta[2], ta[1], ta[0]}, {tb[1], tb[2], tb[0]}), expected) << "trial " << trial;
        ++counts[expected];
    }
    EXPECT_GT(counts[0], 5000);
    EXPECT_GT(counts[1], 5000);
    EXPECT_GT(coplanar, 3000);
}

TEST(TrianglesIntersect, DegenerateTrianglesAreSegmentsOrPoints)
{
    const Tri a = {Vec3d(0, 0, 0), Vec3d(4, 0, 0), Vec3d(0, 4, 0)};
    // A needle (collinear vertices) piercing A, and one passing beside it.
    EXPECT_TRUE(Intersect(a, {Vec3d(1, 1, -1), Vec3d(1, 1, 1), Vec3d(1, 1, 0.5)}));
    EXPECT_FALSE(Intersect(a, {Vec3d(3, 3, -1), Vec3d(3, 3, 1), Vec3d(3, 3, 0.5)}));
    // A point triangle on the face, and one just above it.
    EXPECT_TRUE(Intersect({Vec3d(1, 1, 0), Vec3d(1, 1, 0), Vec3d(1, 1, 0)}, a));
    EXPECT_FALSE(Intersect({Vec3d(1, 1, 1e-200), Vec3d(1, 1, 1e-200), Vec3d(1, 1, 1e-200)}, a));
    // Two needles crossing, and two skew ones.
    EXPECT_TRUE(Intersect({Vec3d(-1, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 0, 0)},
                          {Vec3d(0, -1, 0), Vec3d(0, 1, 0), Vec3d(0, 0.5, 0)}));
    EXPECT_FALSE(Intersect({Vec3d(-1, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 0, 0)},
                           {Vec3d(0, -1, 1e-9), Vec3d(0, 1, 1e-9), Vec3d(0, 0.5, 1e-9)}));
    // Collinear overlapping needles.
    EXPECT_TRUE(Intersect({Vec3d(0, 0, 0), Vec3d(2, 2, 2), Vec3d(1, 1, 1)},
                          {Vec3d(1.5, 1.5, 1.5), Vec3d(3, 3, 3), Vec3d(3, 3, 3)}));
    EXPECT_FALSE(Intersect({Vec3d(0, 0, 0), Vec3d(2, 2, 2), Vec3d(1, 1, 1)},
                           {Vec3d(2.5, 2.5, 2.5), Vec3d(3, 3, 3), Vec3d(3, 3, 3)}));
}

TEST(SegmentIntersectsTriangle, MatchesOracleOnRandomSegments)
{
    std::mt19937 random(5);
    int hits = 0;
    for (int trial = 0; trial < 20000; ++trial)
    {
        const Tri t = RandomTriangle(random);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        const Vec3d p = RandomPoint(random), q = RandomPoint(random);
        const bool expected = OracleSegmentParameter(p, q, t).has_value();
        ASSERT_EQ(SegmentIntersectsTriangle(p, q, tv), expected) << "trial " << trial;
        ASSERT_EQ(SegmentIntersectsTriangle(q, p, tv), expected) << "trial " << trial;
        hits += expected;
    }
    EXPECT_GT(hits, 1000);
}

// ---- Closest points ----

TEST(ClosestPoints, PointTriangleIsOptimalAgainstSampling)
{
    std::mt19937 random(6);
    for (int trial = 0; trial < 300; ++trial)
    {
        const Tri t = RandomTriangle(random);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        const Vec3d p = RandomPoint(random, 2.0);
        const Vec3d x = ClosestPointOnTriangle(p, tv);
        ASSERT_TRUE(OnTriangle(x, t, 1e-9)) << "trial " << trial;
        const double distance = (x - p).norm();
        double sampled = std::numeric_limits<double>::infinity();
        for (const Vec3d& s : SampleTriangle(t, 60))
            sampled = std::min(sampled, (s - p).norm());
        const double diameter = std::max({(t[1] - t[0]).norm(), (t[2] - t[1]).norm(), (t[0] - t[2]).norm()});
        EXPECT_LE(distance, sampled + 1e-12) << "trial " << trial;
        EXPECT_GE(distance, sampled - diameter / 60) << "trial " << trial;
        // First-order optimality over a convex set: (p − x)·(y − x) ≤ 0 for every vertex y.
        for (const Vec3d& y : t)
            EXPECT_LE((p - x).dot(y - x), 1e-12) << "trial " << trial;
    }
}

TEST(ClosestPoints, SegmentTriangleAgainstSampling)
{
    std::mt19937 random(7);
    int touching = 0;
    for (int trial = 0; trial < 300; ++trial)
    {
        const Tri t = RandomTriangle(random);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        const Vec3d a = RandomPoint(random, 1.5), b = RandomPoint(random, 1.5);
        Vec3d onSegment, onTriangle;
        const double distance = ClosestPointsSegmentTriangle(a, b, tv, onSegment, onTriangle);
        ASSERT_TRUE(OnTriangle(onTriangle, t, 1e-9));
        ASSERT_LE((ClosestPointOnSegment(onSegment, a, b) - onSegment).norm(), 1e-12);
        EXPECT_NEAR((onSegment - onTriangle).norm(), distance, 1e-9);
        EXPECT_EQ(distance == 0.0, SegmentIntersectsTriangle(a, b, tv));
        touching += distance == 0.0;
        double sampled = std::numeric_limits<double>::infinity();
        const int steps = 400;
        for (int i = 0; i <= steps; ++i)
        {
            const Vec3d s = a + (double(i) / steps) * (b - a);
            sampled = std::min(sampled, (ClosestPointOnTriangle(s, tv) - s).norm());
        }
        EXPECT_LE(distance, sampled + 1e-12) << "trial " << trial;
        EXPECT_GE(distance, sampled - (b - a).norm() / steps) << "trial " << trial;
    }
    EXPECT_GT(touching, 20);
}

TEST(ClosestPoints, SegmentSegmentIncludingParallelAndDegenerate)
{
    std::mt19937 random(8);
    for (int trial = 0; trial < 500; ++trial)
    {
        const Vec3d p1 = RandomPoint(random), q1 = RandomPoint(random);
        Vec3d p2 = RandomPoint(random), q2 = RandomPoint(random);
        if (trial % 5 == 1)
            q2 = p2 + 0.7 * (q1 - p1); // parallel
        if (trial % 5 == 2)
            q2 = p2; // a point
        Vec3d on1, on2;
        const double distance = ClosestPointsSegmentSegment(p1, q1, p2, q2, on1, on2);
        EXPECT_NEAR((on1 - on2).norm(), distance, 1e-12);
        double sampled = std::numeric_limits<double>::infinity();
        const int steps = 300;
        for (int i = 0; i <= steps; ++i)
        {
            const Vec3d s = p1 + (double(i) / steps) * (q1 - p1);
            sampled = std::min(sampled, (ClosestPointOnSegment(s, p2, q2) - s).norm());
        }
        EXPECT_LE(distance, sampled + 1e-12) << "trial " << trial;
        EXPECT_GE(distance, sampled - (q1 - p1).norm() / steps) << "trial " << trial;
    }
}

// ---- Boxes and rays ----

bool OracleSegmentHitsBox(const Vec3d& inP, const Vec3d& inQ, const Vec3d& inHalf)
{
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 3; ++k)
    {
        const double d = inQ[k] - inP[k];
        if (d == 0.0)
        {
            if (std::abs(inP[k]) > inHalf[k])
                return false;
            continue;
        }
        double t0 = (-inHalf[k] - inP[k]) / d, t1 = (inHalf[k] - inP[k]) / d;
        if (t0 > t1)
            std::swap(t0, t1);
        lo = std::max(lo, t0);
        hi = std::min(hi, t1);
    }
    return lo <= hi;
}

// A triangle meets a box iff one of its edges meets the box or one of the box's 12 edges meets the triangle.
bool OracleTriangleBox(const Tri& inT, const Vec3d& inHalf)
{
    for (int i = 0; i < 3; ++i)
        if (OracleSegmentHitsBox(inT[i], inT[(i + 1) % 3], inHalf))
            return true;
    for (int axis = 0; axis < 3; ++axis)
        for (int s1 : {-1, 1})
            for (int s2 : {-1, 1})
            {
                Vec3d p = Vec3d::Zero();
                p[(axis + 1) % 3] = s1 * inHalf[(axis + 1) % 3];
                p[(axis + 2) % 3] = s2 * inHalf[(axis + 2) % 3];
                Vec3d q = p;
                p[axis] = -inHalf[axis];
                q[axis] = inHalf[axis];
                if (OracleSegmentParameter(p, q, inT))
                    return true;
            }
    return false;
}

TEST(TriangleOverlapsBox, MatchesEdgeOracle)
{
    std::mt19937 random(9);
    int hits = 0;
    for (int trial = 0; trial < 20000; ++trial)
    {
        const Tri t = RandomTriangle(random, 1.5);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        const Vec3d half = RandomPoint(random).cwiseAbs() * 0.8 + Vec3d::Constant(0.05);
        const bool expected = OracleTriangleBox(t, half);
        ASSERT_EQ(TriangleOverlapsBox(tv, half), expected) << "trial " << trial;
        hits += expected;
    }
    EXPECT_GT(hits, 3000);
    EXPECT_LT(hits, 17000);
    // Touching a face exactly counts.
    const Vec3d touching[3] = {Vec3d(1, 0, 0), Vec3d(2, 1, 0), Vec3d(2, -1, 0)};
    EXPECT_TRUE(TriangleOverlapsBox(touching, Vec3d::Ones()));
    const Vec3d apart[3] = {Vec3d(1.0001, 0, 0), Vec3d(2, 1, 0), Vec3d(2, -1, 0)};
    EXPECT_FALSE(TriangleOverlapsBox(apart, Vec3d::Ones()));
}

TEST(TriangleBoundsOverlap, ClosedBoxesAndEmptyBox)
{
    const Vec3d t[3] = {Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 1, 1)};
    EXPECT_TRUE(TriangleBoundsOverlap(t, Aabb(Vec3d(1, 1, 1), Vec3d(2, 2, 2)))); // corner touch
    EXPECT_FALSE(TriangleBoundsOverlap(t, Aabb(Vec3d(1, 1, 1.001), Vec3d(2, 2, 2))));
    EXPECT_TRUE(TriangleBoundsOverlap(t, Aabb(Vec3d(0.2, 0.2, 0.2), Vec3d(0.3, 0.3, 0.3))));
    EXPECT_FALSE(TriangleBoundsOverlap(t, Aabb()));
}

TEST(RayTriangle, MatchesOracleAndIsWatertightAcrossEdges)
{
    std::mt19937 random(10);
    int hits = 0;
    for (int trial = 0; trial < 20000; ++trial)
    {
        const Tri t = RandomTriangle(random);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        // Aimed near the triangle; maxT of 0.5 to 1.5 cuts some hits short.
        const Vec3d origin = RandomPoint(random, 2.0);
        const Vec3d target = (t[0] + t[1] + t[2]) / 3 + RandomPoint(random, 0.6);
        const Ray ray{origin, target - origin, 0.5 + 0.5 * (trial % 3)};
        const std::optional<double> expected =
            OracleSegmentParameter(ray.origin, ray.origin + ray.maxT * ray.direction, t);
        const std::optional<double> hit = RayTriangle(ray, tv);
        ASSERT_EQ(hit.has_value(), expected.has_value()) << "trial " << trial;
        if (hit)
        {
            EXPECT_NEAR(*hit, *expected * ray.maxT, 1e-9 * (1 + *hit));
            ++hits;
        }
    }
    EXPECT_GT(hits, 1500);
    EXPECT_LT(hits, 18500);
    // A planar quad split along its diagonal: rays through random points of the diagonal hit at least one
    // half.
    const Vec3d q0(0.1, 0.2, 0), q1(1.3, 0.1, 0), q2(1.1, 1.7, 0), q3(0.05, 1.2, 0);
    const Vec3d left[3] = {q0, q1, q2};
    const Vec3d right[3] = {q0, q2, q3};
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (int trial = 0; trial < 5000; ++trial)
    {
        const Vec3d target = q0 + uniform(random) * (q2 - q0);
        const Vec3d origin = RandomPoint(random, 3.0) + Vec3d(0, 0, 4);
        const Ray ray{origin, target - origin, 2.0};
        ASSERT_TRUE(RayTriangle(ray, left) || RayTriangle(ray, right)) << "trial " << trial;
    }
}

} // namespace
} // namespace bdt
