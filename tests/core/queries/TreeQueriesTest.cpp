#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <bdt/core/queries/TreeQueries.h>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <random>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;

const double cAmplitudes[] = {1e-4, 1e-2, 0.1, 0.3, 0.5};

// ---- Rays and boxes ----

TEST(RayCast, EqualsBruteForceNearestHit)
{
    std::mt19937 random(26);
    int hits = 0, misses = 0;
    for (const char* shape : {"chair", "torus", "box"})
    {
        QueryBody body(test::ShapeTree(shape, 1200, 5), 3);
        for (double amplitude : cAmplitudes)
        {
            ASSERT_TRUE(body.state->SetQ(test::RandomQ(5, amplitude * body.Size(), random)));
            body.pose.rotation = RandomRotation(random);
            body.pose.translation =
                Vec3d(Uniform(random, -3, 3), Uniform(random, -3, 3), Uniform(random, -3, 3));
            const auto triangles = WorldTriangles(body);
            for (int trial = 0; trial < 40; ++trial)
            {
                const double size = body.Size();
                Ray ray;
                // Mostly from outside; every fifth ray from near the centre (often inside the body).
                const double away = trial % 5 == 1 ? Uniform(random, 0.0, 0.2) : 2.5;
                ray.origin = body.WorldCenter() + away * size * RandomDirection(random);
                const Tri& aim = triangles[random() % triangles.size()];
                const Vec3d target = aim[0] + Uniform(random, 0, 0.3) * size * RandomDirection(random);
                ray.direction = (target - ray.origin) * Uniform(random, 0.1, 3.0);
                ray.maxT = trial % 4 == 0 ? Uniform(random, 0.1, 0.5) : 1e30;
                // Brute force: nearest hit over all triangles, lowest index among ties.
                std::optional<double> bestT;
                std::uint32_t bestTriangle = cNoIndex;
                for (std::uint32_t t = 0; t < triangles.size(); ++t)
                {
                    const Vec3d v[3] = {triangles[t][0], triangles[t][1], triangles[t][2]};
                    const auto hit = RayTriangle(ray, v);
                    if (hit && (!bestT || *hit < *bestT))
                    {
                        bestT = hit;
                        bestTriangle = t;
                    }
                }
                QueryStats stats;
                const std::optional<RayHit> hit = RayCast(body.Body(), ray, stats);
                ASSERT_EQ(hit.has_value(), bestT.has_value()) << shape << " trial " << trial;
                if (!hit)
                {
                    ++misses;
                    continue;
                }
                ++hits;
                EXPECT_NEAR(hit->t, *bestT, 1e-9 * std::abs(*bestT));
                EXPECT_EQ(hit->triangle, bestTriangle);
                EXPECT_NEAR(hit->normal.norm(), 1.0, 1e-12);
                EXPECT_LE(hit->normal.dot(ray.direction), 0.0);
                EXPECT_NEAR((hit->point - (ray.origin + hit->t * ray.direction)).norm(), 0.0, 1e-9 * size);
            }
        }
    }
    EXPECT_GT(hits, 200);
    EXPECT_GT(misses, 20);
}

TEST(ClosestSurfacePoint, EqualsBruteForceNearestPoint)
{
    std::mt19937 random(31);
    int near = 0;
    for (const char* shape : {"chair", "torus", "box"})
    {
        QueryBody body(test::ShapeTree(shape, 1200, 5), 3);
        for (double amplitude : cAmplitudes)
        {
            ASSERT_TRUE(body.state->SetQ(test::RandomQ(5, amplitude * body.Size(), random)));
            body.pose.rotation = RandomRotation(random);
            body.pose.translation = Vec3d(Uniform(random, -3, 3), Uniform(random, -3, 3), Uniform(random, -3, 3));
            const auto triangles = WorldTriangles(body);
            for (int trial = 0; trial < 40; ++trial)
            {
                const double size = body.Size();
                // Near a random triangle (inside or outside), near the centre, or far away.
                const Tri& aim = triangles[random() % triangles.size()];
                const double spread = trial % 3 == 0 ? 0.02 : (trial % 3 == 1 ? 0.3 : 3.0);
                const Vec3d point = (trial % 7 == 0 ? body.WorldCenter() : aim[0]) +
                                    Uniform(random, 0, spread) * size * RandomDirection(random);
                double bestDistance = 1e300;
                std::uint32_t bestTriangle = cNoIndex;
                for (std::uint32_t t = 0; t < triangles.size(); ++t)
                {
                    const Vec3d v[3] = {triangles[t][0], triangles[t][1], triangles[t][2]};
                    const double distance = (ClosestPointOnTriangle(point, v) - point).norm();
                    if (distance < bestDistance)
                    {
                        bestDistance = distance;
                        bestTriangle = t;
                    }
                }
                QueryStats stats;
                const std::optional<SurfaceProjection> found = ClosestSurfacePoint(body.Body(), point, stats);
                ASSERT_TRUE(found.has_value());
                EXPECT_NEAR(found->distance, bestDistance, 1e-12 * size) << shape << " trial " << trial;
                EXPECT_NEAR((found->point - point).norm(), found->distance, 1e-12 * size);
                // The barycentric coordinates name the same point on the triangle found.
                const Tri& t = triangles[found->triangle];
                const Vec3d& b = found->barycentric;
                EXPECT_NEAR(b.sum(), 1.0, 1e-12);
                EXPECT_GE(b.minCoeff(), -1e-9);
                EXPECT_NEAR((b[0] * t[0] + b[1] * t[1] + b[2] * t[2] - found->point).norm(), 0.0, 1e-9 * size);
                if (found->triangle == bestTriangle)
                    ++near;
                if (spread < 0.05 && trial % 7 != 0)
                {
                    EXPECT_LT(stats.triangleTests, triangles.size() / 10) << "a point near the surface visits few";
                }
            }
        }
        QueryStats stats;
        EXPECT_FALSE(ClosestSurfacePoint(body.Body(), Vec3d(std::nan(""), 0, 0), stats).has_value());
    }
    EXPECT_GT(near, 500); // the same triangle but for exact ties (a point nearest a shared edge or vertex)
}

TEST(QueryTriangles, EqualsBruteForceBoxSet)
{
    std::mt19937 random(27);
    std::uint64_t reported = 0;
    for (const char* shape : {"chair", "sphere"})
    {
        QueryBody body(test::ShapeTree(shape, 1000, 6), 4);
        for (double amplitude : cAmplitudes)
        {
            ASSERT_TRUE(body.state->SetQ(test::RandomQ(6, amplitude * body.Size(), random)));
            const std::vector<Tri> rest = WorldTriangles(body); // identity pose: rest frame
            for (int trial = 0; trial < 10; ++trial)
            {
                const Vec3d center = rest[random() % rest.size()][0];
                const Vec3d half = body.Size() * Vec3d(Uniform(random, 0.01, 0.5), Uniform(random, 0.01, 0.5),
                                                       Uniform(random, 0.01, 0.5));
                const Aabb box(center - half, center + half);
                std::vector<std::uint32_t> expected;
                for (std::uint32_t t = 0; t < rest.size(); ++t)
                {
                    const Vec3d v[3] = {rest[t][0], rest[t][1], rest[t][2]};
                    if (TriangleBoundsOverlap(v, box))
                        expected.push_back(t);
                }
                std::vector<std::uint32_t> found;
                QueryStats stats;
                QueryTriangles(
                    *body.state, box,
                    [&](std::uint32_t inTriangle, const Vec3d(&inVertices)[3])
                    {
                        found.push_back(inTriangle);
                        for (int k = 0; k < 3; ++k)
                            EXPECT_EQ(inVertices[k], rest[inTriangle][k]);
                    },
                    stats);
                std::sort(found.begin(), found.end());
                ASSERT_EQ(std::adjacent_find(found.begin(), found.end()), found.end()) << "reported twice";
                ASSERT_EQ(found, expected);
                EXPECT_EQ(stats.contacts, found.size());
                reported += found.size();
            }
        }
    }
    EXPECT_GT(reported, 1000u);
}

// ---- Work counters and output sensitivity ----

TEST(QueryStats, FarAwayPrimitivesCostOneTest)
{
    QueryBody body(test::ShapeTree("chair", 1500, 6), 4);
    std::mt19937 random(28);
    ASSERT_TRUE(body.state->SetQ(test::RandomQ(6, 0.1 * body.Size(), random)));
    const double far = 100 * body.Size();
    QueryStats stats;
    std::vector<TriangleContact> triangles;
    std::vector<ProxyContact> proxies;
    CollideTriangles(body.Body(), Sphere{Vec3d(far, 0, 0), 1.0}, triangles, stats);
    EXPECT_EQ(stats.overlapTests, 1u);
    EXPECT_EQ(stats.triangleTests, 0u);
    EXPECT_EQ(stats.contacts, 0u);
    CollideProxies(body.Body(), Capsule{Vec3d(far, 0, 0), Vec3d(far, far, 0), 1.0}, proxies, stats);
    CollideProxies(body.Body(), Plane{Vec3d::UnitY(), -far}, proxies, stats);
    OrientedBox box;
    box.pose.translation = Vec3d(0, 0, far);
    CollideTriangles(body.Body(), box, triangles, stats);
    const std::optional<RayHit> hit =
        RayCast(body.Body(), Ray{Vec3d(far, 0, 0), Vec3d::UnitY(), 1e30}, stats);
    EXPECT_FALSE(hit);
    EXPECT_EQ(stats.overlapTests, 5u); // counters accumulate: one root test per query
    EXPECT_EQ(stats.contacts, 0u);
    EXPECT_TRUE(triangles.empty() && proxies.empty());

    QueryBody other(test::ShapeTree("box", 300, 3), 4);
    other.pose.translation = Vec3d(far, 0, 0);
    std::vector<TrianglePair> pairs;
    QueryStats pairStats;
    CollideTriangles(body.Body(), other.Body(), pairs, pairStats);
    EXPECT_EQ(pairStats.overlapTests, 1u);
    EXPECT_TRUE(pairs.empty());
}

TEST(QueryStats, SmallContactTouchesFewNodes)
{
    QueryBody body(test::ShapeTree("chair", 2000, 8), 100);
    std::mt19937 random(29);
    ASSERT_TRUE(body.state->SetQ(test::RandomQ(8, 0.01 * body.Size(), random)));
    const auto triangles = WorldTriangles(body);
    body.state->ResetCounters();
    // A small sphere on one vertex of the surface.
    const Sphere probe{triangles[123][0], 0.01 * body.Size()};
    std::vector<TriangleContact> contacts;
    QueryStats stats;
    CollideTriangles(body.Body(), probe, contacts, stats);
    EXPECT_FALSE(contacts.empty());
    const std::uint32_t nodes = body.tree->NodeCount();
    EXPECT_LT(body.state->SpheresUpdated(), nodes / 20);
    EXPECT_LT(stats.overlapTests, nodes / 20);
    EXPECT_LT(stats.triangleTests, 40u);
    const std::uint64_t before = stats.overlapTests;
    CollideTriangles(body.Body(), probe, contacts, stats);
    EXPECT_EQ(stats.overlapTests, 2 * before); // same work again, counters add up
    std::cout << "[ info ] small contact: " << body.state->SpheresUpdated() << " sphere updates, " << before
              << " overlap tests, " << nodes << " nodes\n";
}

TEST(DeformedTriangle, IsRestPlusBasisTimesQ)
{
    const auto tree = test::ShapeTree("torus", 300, 4);
    TreeState state(std::make_shared<const ContactProxies>(tree, 3));
    const Model& model = tree->GetModel();
    Vec3d v[3];
    DeformedTriangle(state, 7, v);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(v[k], model.Positions()[model.Triangles()[7][k]].cast<double>());
    const std::vector<float> q = {0.1f, -0.2f, 0.05f, 0.3f};
    ASSERT_TRUE(state.SetQ(q));
    DeformedTriangle(state, 7, v);
    for (int k = 0; k < 3; ++k)
    {
        const std::uint32_t vertex = model.Triangles()[7][k];
        Vec3d expected = model.Positions()[vertex].cast<double>();
        for (std::uint32_t j = 0; j < 4; ++j)
            expected += double(q[j]) * model.BasisVector(vertex, j).cast<double>();
        EXPECT_NEAR((v[k] - expected).norm(), 0.0, 1e-12);
    }
}

} // namespace
} // namespace bdt
