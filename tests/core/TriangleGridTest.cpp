// The rest-triangle grid (core/TriangleGrid.h) against brute force: for points on, near and far from
// procedural meshes, the triangle it names is as near as the nearest of all, the lowest index of those as
// near, and its barycentric coordinates give that nearest point.
#include "core/TriangleGrid.h"

#include "core/TriangleGeometry.h"

#include <bdt/core/Error.h>
#include <bdt/core/ProceduralShapes.h>
#include <gtest/gtest.h>
#include <limits>
#include <random>

namespace bdt
{
namespace
{

struct Nearest
{
    std::uint32_t triangle = cNoIndex;
    double distance2 = std::numeric_limits<double>::infinity();
};

Vec3d Corner(const ShapeMesh& inMesh, std::uint32_t inTriangle, int inCorner)
{
    return inMesh.positions[inMesh.triangles[inTriangle][std::size_t(inCorner)]].cast<double>();
}

// Brute force: every triangle's closest point; the lowest index of the nearest.
Nearest BruteForce(const ShapeMesh& inMesh, const Vec3d& inPoint)
{
    Nearest best;
    for (std::uint32_t t = 0; t < inMesh.triangles.size(); ++t)
    {
        const Vec3d corners[3] = {Corner(inMesh, t, 0), Corner(inMesh, t, 1), Corner(inMesh, t, 2)};
        const double d2 = (ClosestPointOnTriangle(inPoint, corners) - inPoint).squaredNorm();
        if (d2 < best.distance2)
            best = {t, d2};
    }
    // Of the triangles as near within rounding (a shared edge or vertex), the lowest index.
    const double tie = 1e-9 * best.distance2 + 1e-18 * (1.0 + inPoint.squaredNorm());
    for (std::uint32_t t = 0; t < best.triangle; ++t)
    {
        const Vec3d corners[3] = {Corner(inMesh, t, 0), Corner(inMesh, t, 1), Corner(inMesh, t, 2)};
        if ((ClosestPointOnTriangle(inPoint, corners) - inPoint).squaredNorm() <= best.distance2 + tie)
            return {t, best.distance2};
    }
    return best;
}

// Points on the surface (triangle interiors, edges, vertices), just off it, and anywhere round the mesh out
// to its size again beyond its bounds; each located by the grid and checked against brute force.
void CheckAgainstBruteForce(const ShapeMesh& inMesh, int inPoints)
{
    const TriangleGrid grid(inMesh.positions, inMesh.triangles);
    Vec3d lower = Vec3d::Constant(1e30), upper = Vec3d::Constant(-1e30);
    for (const Vec3f& p : inMesh.positions)
    {
        lower = lower.cwiseMin(p.cast<double>());
        upper = upper.cwiseMax(p.cast<double>());
    }
    const Vec3d size = upper - lower;
    std::mt19937 random(7);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<std::uint32_t> pick(0, std::uint32_t(inMesh.triangles.size() - 1));
    for (int i = 0; i < inPoints; ++i)
    {
        Vec3d point;
        const std::uint32_t t = pick(random);
        double a = unit(random), b = unit(random) * (1.0 - a);
        if (i % 4 == 1) // on an edge, or at a vertex
        {
            b = i % 8 == 1 ? 0.0 : 1.0 - a;
            a = i % 16 == 1 ? 1.0 : a;
        }
        point = a * Corner(inMesh, t, 0) + b * Corner(inMesh, t, 1) + (1.0 - a - b) * Corner(inMesh, t, 2);
        if (i % 4 == 2) // just off the surface, up to 1% of the mesh's size
            point += 0.01 * size.norm() * Vec3d(unit(random) - 0.5, unit(random) - 0.5, unit(random) - 0.5);
        if (i % 4 == 3) // anywhere in the bounds grown by their size on every side
            point = lower - size + 3.0 * size.cwiseProduct(Vec3d(unit(random), unit(random), unit(random)));
        Vec3d bary;
        const std::uint32_t found = grid.Nearest(point, bary);
        const Nearest expected = BruteForce(inMesh, point);
        ASSERT_LT(found, inMesh.triangles.size()) << "point " << i;
        const Vec3d corners[3] = {Corner(inMesh, found, 0), Corner(inMesh, found, 1),
                                  Corner(inMesh, found, 2)};
        const Vec3d at = bary[0] * corners[0] + bary[1] * corners[1] + bary[2] * corners[2];
        EXPECT_NEAR(bary.sum(), 1.0, 1e-12);
        EXPECT_NEAR((at - point).squaredNorm(), expected.distance2, 1e-8 * expected.distance2 + 1e-15)
            << "point " << i;
        EXPECT_EQ(found, expected.triangle) << "point " << i;
    }
}

TEST(TriangleGrid, FindsTheNearestTriangleAsBruteForceDoes)
{
    for (const EShape shape : {EShape::Chair, EShape::Sphere, EShape::Torus, EShape::Pawn, EShape::Curtain})
    {
        SCOPED_TRACE(int(shape));
        CheckAgainstBruteForce(MakeShape(shape, 3000), 800);
    }
}

TEST(TriangleGrid, ForEachWithinVisitsTheTrianglesInTheBall)
{
    // Balls round points on and off a chair's surface: brute force's triangles within the radius are visited,
    // each with its squared distance, and no other.
    const ShapeMesh mesh = MakeShape(EShape::Chair, 3000);
    const TriangleGrid grid(mesh.positions, mesh.triangles);
    std::mt19937 random(11);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<std::uint32_t> pick(0, std::uint32_t(mesh.triangles.size() - 1));
    std::size_t visitedTotal = 0;
    for (int i = 0; i < 300; ++i)
    {
        const std::uint32_t t = pick(random);
        const double a = unit(random), b = unit(random) * (1.0 - a);
        const Vec3d point = a * Corner(mesh, t, 0) + b * Corner(mesh, t, 1) + (1.0 - a - b) * Corner(mesh, t, 2) +
                            0.02 * (i % 3) * Vec3d(unit(random) - 0.5, unit(random) - 0.5, unit(random) - 0.5);
        const double radius = 0.001 + 0.05 * unit(random);
        std::vector<std::uint8_t> visited(mesh.triangles.size(), 0);
        grid.ForEachWithin(point, radius,
                           [&](std::uint32_t inTriangle, double inDistance2)
                           {
                               const Vec3d corners[3] = {Corner(mesh, inTriangle, 0), Corner(mesh, inTriangle, 1),
                                                         Corner(mesh, inTriangle, 2)};
                               EXPECT_NEAR(inDistance2, (ClosestPointOnTriangle(point, corners) - point).squaredNorm(),
                                           1e-15);
                               visited[inTriangle] = 1;
                           });
        for (std::uint32_t r = 0; r < mesh.triangles.size(); ++r)
        {
            const Vec3d corners[3] = {Corner(mesh, r, 0), Corner(mesh, r, 1), Corner(mesh, r, 2)};
            const double d2 = (ClosestPointOnTriangle(point, corners) - point).squaredNorm();
            // (Not on the sphere itself, where rounding decides.)
            EXPECT_TRUE(std::abs(d2 - radius * radius) < 1e-12 || (visited[r] != 0) == (d2 <= radius * radius))
                << "point " << i << " triangle " << r;
            visitedTotal += visited[r];
        }
    }
    EXPECT_GT(visitedTotal, 300u);
}

TEST(TriangleGrid, HugeTrianglesBesideSmallOnesCoarsenTheGrid)
{
    // A detailed sphere on two triangles a thousand times its size: the grid stays within its reference
    // budget (coarser cells) and still answers as brute force.
    ShapeMesh mesh = MakeShape(EShape::Sphere, 4000);
    const auto base = std::uint32_t(mesh.positions.size());
    for (const Vec3f& corner :
         {Vec3f(-500, -2, -500), Vec3f(500, -2, -500), Vec3f(500, -2, 500), Vec3f(-500, -2, 500)})
        mesh.positions.push_back(corner);
    mesh.triangles.push_back({base, base + 2, base + 1});
    mesh.triangles.push_back({base, base + 3, base + 2});
    const TriangleGrid grid(mesh.positions, mesh.triangles);
    EXPECT_LE(grid.MemoryBytes(), 64 * mesh.triangles.size() * sizeof(std::uint32_t) +
                                      3 * mesh.triangles.size() * sizeof(Vec3f) + 4096);
    CheckAgainstBruteForce(mesh, 400);
}

TEST(TriangleGrid, BadInputThrowsAndEmptyOrNonFiniteFindsNothing)
{
    ShapeMesh mesh = MakeShape(EShape::Box, 200);
    mesh.triangles.push_back({0, 1, std::uint32_t(mesh.positions.size())});
    EXPECT_THROW(TriangleGrid(mesh.positions, mesh.triangles), Error);
    mesh.triangles.pop_back();
    ShapeMesh nan = mesh;
    nan.positions[0].x() = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(TriangleGrid(nan.positions, nan.triangles), Error);

    Vec3d bary;
    const TriangleGrid empty(mesh.positions, {});
    EXPECT_EQ(empty.Nearest(Vec3d::Zero(), bary), cNoIndex);
    EXPECT_EQ(bary, Vec3d(1.0, 0.0, 0.0));
    const TriangleGrid grid(mesh.positions, mesh.triangles);
    EXPECT_EQ(grid.Nearest(Vec3d(0.0, std::numeric_limits<double>::quiet_NaN(), 0.0), bary), cNoIndex);
    EXPECT_LT(grid.Nearest(Vec3d(1e30, 0.0, 0.0), bary), mesh.triangles.size()); // far, yet found
}

} // namespace
} // namespace bdt
