#include "support/QueryOracles.h"

#include "core/geometry/ExactPredicates.h"
#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace bdt
{
namespace
{

using namespace test;

TEST(ExactPredicates, AgreeWithDoublesAwayFromDegeneracy)
{
    std::mt19937 random(1);
    int checked = 0;
    for (int trial = 0; trial < 20000; ++trial)
    {
        const Vec3d a = RandomPoint(random), b = RandomPoint(random), c = RandomPoint(random),
                    d = RandomPoint(random);
        const double det = (b - a).cross(c - a).dot(d - a);
        if (std::abs(det) < 1e-6)
            continue;
        ++checked;
        ASSERT_EQ(Orient3D(a, b, c, d), det > 0 ? 1 : -1);
        // Antisymmetric in every pair of arguments.
        ASSERT_EQ(Orient3D(b, a, c, d), -Orient3D(a, b, c, d));
        ASSERT_EQ(Orient3D(a, b, d, c), -Orient3D(a, b, c, d));
        const double det2 =
            (b.head<2>() - a.head<2>()).x() * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
        if (std::abs(det2) > 1e-6)
        {
            ASSERT_EQ(Orient2D(a.head<2>(), b.head<2>(), c.head<2>()), det2 > 0 ? 1 : -1);
        }
    }
    EXPECT_GT(checked, 19000);
}

TEST(ExactPredicates, ExactOnCoplanarPointsWithInexactCoordinates)
{
    // Points (x, x, z) lie exactly on the plane x = y whatever the doubles; one ulp off it is a definite
    // side.
    std::mt19937 random(2);
    std::uniform_real_distribution<double> uniform(-10.0, 10.0);
    for (int trial = 0; trial < 2000; ++trial)
    {
        Vec3d p[4];
        for (Vec3d& v : p)
        {
            const double x = uniform(random);
            v = Vec3d(x, x, uniform(random));
        }
        ASSERT_EQ(Orient3D(p[0], p[1], p[2], p[3]), 0) << "trial " << trial;
        const int side = Orient3D(p[0], p[1], p[2], p[3] + Vec3d(1, 0, 0));
        ASSERT_NE(side, 0);
        const Vec3d ulp(std::nextafter(p[3].x(), 100.0), p[3].y(), p[3].z());
        ASSERT_EQ(Orient3D(p[0], p[1], p[2], ulp), side) << "trial " << trial;
        // 2D: (x, x) is on the diagonal exactly.
        const Vec2d q0(p[0].x(), p[0].x()), q1(p[1].x(), p[1].x()), q2(p[2].x(), p[2].x());
        ASSERT_EQ(Orient2D(q0, q1, q2), 0);
        const int side2 = Orient2D(q0, q1, Vec2d(q2.x() + 1, q2.y()));
        ASSERT_EQ(Orient2D(q0, q1, Vec2d(std::nextafter(q2.x(), 100.0), q2.y())), side2);
    }
}

TEST(ExactPredicates, UlpGridNearALineGetsEverySignRight)
{
    // Shewchuk's classic: a = (0.5 + i·ulp, 0.5 + j·ulp) against the line through (12, 12) and (24, 24).
    // Exactly, orient(a, b, c) = 12·(a.y − a.x), so the sign is that of j − i; the rounded determinant gets
    // a large share of these wrong. The same points lifted against the plane x = y test Orient3D.
    const Vec2d b(12, 12), c(24, 24);
    const Vec3d b3(12, 12, 0), c3(24, 24, 0), d3(0, 0, 1);
    const int reference3 = Orient3D(Vec3d(0, 1, 0), b3, c3, d3); // a clear case fixes the plane's sign
    ASSERT_NE(reference3, 0);
    const double ulp = std::nextafter(0.5, 1.0) - 0.5;
    for (int i = 0; i < 64; ++i)
    {
        for (int j = 0; j < 64; ++j)
        {
            const Vec2d a(0.5 + i * ulp, 0.5 + j * ulp);
            const int expected = (j > i) - (j < i);
            ASSERT_EQ(Orient2D(a, b, c), expected) << i << ", " << j;
            ASSERT_EQ(Orient3D(Vec3d(a.x(), a.y(), 0), b3, c3, d3), expected * reference3) << i << ", " << j;
        }
    }
}

} // namespace
} // namespace bdt
