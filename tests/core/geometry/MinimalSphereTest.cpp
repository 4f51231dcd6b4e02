#include "core/geometry/MinimalSphere.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

namespace bdt
{
namespace
{

// Brute-force oracle: the smallest of all spheres through 1 to 4 points of the set that enclose the set.
// O(n^5), for small sets only.
Sphere BruteForceMinimalSphere(const std::vector<Vec3d>& inPoints)
{
    Sphere best{Vec3d::Zero(), std::numeric_limits<double>::infinity()};
    const std::size_t n = inPoints.size();
    auto consider = [&](std::vector<Vec3d> inSupport)
    {
        const Sphere s = SphereFromSupport(inSupport);
        if (!(s.radius < best.radius))
            return;
        for (const Vec3d& p : inPoints)
            if ((p - s.center).norm() > s.radius * (1 + 1e-9) + 1e-12)
                return;
        best = s;
    };
    for (std::size_t a = 0; a < n; ++a)
    {
        consider({inPoints[a]});
        for (std::size_t b = a + 1; b < n; ++b)
        {
            consider({inPoints[a], inPoints[b]});
            for (std::size_t c = b + 1; c < n; ++c)
            {
                consider({inPoints[a], inPoints[b], inPoints[c]});
                for (std::size_t d = c + 1; d < n; ++d)
                    consider({inPoints[a], inPoints[b], inPoints[c], inPoints[d]});
            }
        }
    }
    return best;
}

void ExpectEnclosesAll(const Sphere& inSphere, const std::vector<Vec3d>& inPoints)
{
    for (const Vec3d& p : inPoints)
        EXPECT_LE((p - inSphere.center).norm(), inSphere.radius);
}

TEST(MinimalSphere, MatchesBruteForceOnRandomSets)
{
    std::mt19937 random(7);
    std::normal_distribution<double> normal;
    for (int trial = 0; trial < 200; ++trial)
    {
        const std::size_t n = 1 + trial % 12;
        std::vector<Vec3d> points(n);
        for (Vec3d& p : points)
            p = Vec3d(normal(random), normal(random), normal(random)) * (1 + trial % 5);
        const Sphere welzl = MinimalEnclosingSphere(points);
        const Sphere brute = BruteForceMinimalSphere(points);
        ExpectEnclosesAll(welzl, points);
        EXPECT_NEAR(welzl.radius, brute.radius, 1e-9 * (1 + brute.radius)) << "trial " << trial;
    }
}

TEST(MinimalSphere, DegenerateSetsAreEnclosedMinimally)
{
    // Duplicates, collinear, coplanar cocircular (a square grid) and a single repeated point.
    const std::vector<std::vector<Vec3d>> sets = {
        {Vec3d(1, 2, 3), Vec3d(1, 2, 3), Vec3d(1, 2, 3)},
        {Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(2, 0, 0), Vec3d(3, 0, 0), Vec3d(3, 0, 0)},
        {Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(1, 1, 0), Vec3d(0, 1, 0), Vec3d(0.5, 0.5, 0), Vec3d(1, 1, 0)},
        {Vec3d(1, 0, 0), Vec3d(0, 1, 0), Vec3d(-1, 0, 0), Vec3d(0, -1, 0), Vec3d(0.7071067811865476, 0.7071067811865476, 0)},
        {Vec3d(1, 0, 0), Vec3d(-1, 0, 0), Vec3d(0, 1, 0), Vec3d(0, -1, 0), Vec3d(0, 0, 1), Vec3d(0, 0, -1)},
    };
    const double expected[] = {0.0, 1.5, std::sqrt(0.5), 1.0, 1.0};
    for (std::size_t k = 0; k < sets.size(); ++k)
    {
        const Sphere s = MinimalEnclosingSphere(sets[k]);
        ExpectEnclosesAll(s, sets[k]);
        EXPECT_NEAR(s.radius, expected[k], 1e-12) << "set " << k;
        EXPECT_NEAR(s.radius, BruteForceMinimalSphere(sets[k]).radius, 1e-12) << "set " << k;
    }
}

TEST(MinimalSphere, LargeGridWithManyCosphericalPoints)
{
    // Vertices of a subdivided cube surface: many points on the minimal sphere's boundary (the 8 corners).
    std::vector<Vec3d> points;
    for (int x = 0; x <= 10; ++x)
        for (int y = 0; y <= 10; ++y)
            for (int z = 0; z <= 10; ++z)
                points.emplace_back(x, y, z);
    const Sphere s = MinimalEnclosingSphere(points);
    ExpectEnclosesAll(s, points);
    EXPECT_NEAR(s.radius, 5.0 * std::sqrt(3.0), 1e-9);
    EXPECT_NEAR((s.center - Vec3d(5, 5, 5)).norm(), 0.0, 1e-9);
}

TEST(MinimalSphere, EmptyInputIsZeroSphere)
{
    const Sphere s = MinimalEnclosingSphere({});
    EXPECT_EQ(s.radius, 0.0);
}

} // namespace
} // namespace bdt
