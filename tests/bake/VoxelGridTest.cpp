#include <bdt/bake/VoxelGrid.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <numbers>
#include <vector>

namespace bdt
{
namespace
{

// Brute-force oracle: the generalised winding number of a closed mesh about a point (1 inside, 0 outside),
// the sum of the solid angles of all triangles over 4π (Van Oosterom and Strackee).
double WindingNumber(const ShapeMesh& inMesh, const Vec3d& inPoint)
{
    double total = 0.0;
    for (const Triangle& t : inMesh.triangles)
    {
        const Vec3d a = inMesh.positions[t[0]].cast<double>() - inPoint;
        const Vec3d b = inMesh.positions[t[1]].cast<double>() - inPoint;
        const Vec3d c = inMesh.positions[t[2]].cast<double>() - inPoint;
        const double la = a.norm(), lb = b.norm(), lc = c.norm();
        const double numerator = a.dot(b.cross(c));
        const double denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        total += 2.0 * std::atan2(numerator, denominator);
    }
    return total / (4.0 * std::numbers::pi);
}

// Distance from a point to the nearest vertex-or-face of the mesh, bounded below by the distance to the
// nearest triangle's plane within its box (cheap; used only to skip cells whose centre sits on the surface).
double NearSurface(const ShapeMesh& inMesh, const Vec3d& inPoint)
{
    double best = std::numeric_limits<double>::infinity();
    for (const Triangle& t : inMesh.triangles)
    {
        const Vec3d a = inMesh.positions[t[0]].cast<double>();
        const Vec3d b = inMesh.positions[t[1]].cast<double>();
        const Vec3d c = inMesh.positions[t[2]].cast<double>();
        Eigen::AlignedBox3d box(a);
        box.extend(b);
        box.extend(c);
        if (box.exteriorDistance(inPoint) > best)
            continue;
        const Vec3d n = (b - a).cross(c - a);
        if (n.norm() == 0.0)
            continue;
        best = std::min(best,
                        std::max(std::abs(n.normalized().dot(inPoint - a)), box.exteriorDistance(inPoint)));
    }
    return best;
}

void ExpectMatchesWindingNumber(const ShapeMesh& inMesh, const VoxelGrid& inGrid, std::size_t& outChecked)
{
    outChecked = 0;
    for (std::uint32_t k = 0; k < inGrid.cells[2]; ++k)
        for (std::uint32_t j = 0; j < inGrid.cells[1]; ++j)
            for (std::uint32_t i = 0; i < inGrid.cells[0]; ++i)
            {
                const Vec3d centre = inGrid.origin + inGrid.cellSize * Vec3d(i + 0.5, j + 0.5, k + 0.5);
                if (NearSurface(inMesh, centre) < 1e-6 * inGrid.cellSize)
                    continue;
                const bool inside = WindingNumber(inMesh, centre) > 0.5;
                ASSERT_EQ(inGrid.solid[inGrid.CellIndex(i, j, k)] != 0, inside)
                    << "cell " << i << " " << j << " " << k << " centre " << centre.transpose();
                ++outChecked;
            }
}

TEST(VoxelGrid, SolidCellsAreTheCellsWhoseCentreIsInsideTheMesh)
{
    for (EShape shape : {EShape::Sphere, EShape::Torus, EShape::Pawn})
    {
        const ShapeMesh mesh = MakeShape(shape, 800);
        VoxelReport report;
        const VoxelGrid grid = VoxeliseSolid(mesh.positions, mesh.triangles, 0.07, &report);
        std::size_t checked = 0;
        ExpectMatchesWindingNumber(mesh, grid, checked);
        EXPECT_GT(checked, 100u) << ShapeName(shape);
        EXPECT_GT(grid.SolidCount(), 10u) << ShapeName(shape);
        EXPECT_FALSE(report.shellFallback) << ShapeName(shape);
        EXPECT_EQ(report.undecidedRays, 0u) << ShapeName(shape);
        EXPECT_EQ(report.boundaryEdges, 0u) << ShapeName(shape);
    }
}

TEST(VoxelGrid, AGridAlignedBoxFillsExactlyItsCells)
{
    // The beam (2 × 0.2 × 0.2 m) on 0.05 m cells: its faces lie on cell faces and rays pass through the
    // diagonals of its face triangles, where the half-open rule must count each crossing once.
    const ShapeMesh beam = MakeShape(EShape::Beam, 2000);
    VoxelReport report;
    const VoxelGrid grid = VoxeliseSolid(beam.positions, beam.triangles, 0.05, &report);
    EXPECT_EQ(grid.cells[0], 40u);
    EXPECT_EQ(grid.cells[1], 4u);
    EXPECT_EQ(grid.cells[2], 4u);
    EXPECT_EQ(grid.SolidCount(), grid.CellCount());
    EXPECT_EQ(report.undecidedRays, 0u);
}

TEST(VoxelGrid, ASmallHoleIsOutvotedByTheOtherAxes)
{
    const ShapeMesh closed = MakeShape(EShape::Sphere, 800);
    const VoxelGrid reference = VoxeliseSolid(closed.positions, closed.triangles, 0.07);
    ShapeMesh holed = closed;
    holed.triangles.erase(holed.triangles.begin() + std::ptrdiff_t(holed.triangles.size() / 3));
    VoxelReport report;
    const VoxelGrid grid = VoxeliseSolid(holed.positions, holed.triangles, 0.07, &report);
    EXPECT_GT(report.boundaryEdges, 0u);
    EXPECT_GT(report.undecidedRays, 0u); // the rays through the hole abstain
    EXPECT_FALSE(report.shellFallback);
    EXPECT_EQ(grid.solid, reference.solid);
}

TEST(VoxelGrid, AnOpenSheetBecomesAShell)
{
    const ShapeMesh curtain = MakeShape(EShape::Curtain, 2000);
    VoxelReport report;
    const VoxelGrid grid = VoxeliseSolid(curtain.positions, curtain.triangles, 0.05, &report);
    EXPECT_TRUE(report.shellFallback);
    EXPECT_GT(report.boundaryEdges, 0u);
    EXPECT_GT(grid.SolidCount(), 0u);
    // One piece: every solid cell face-connected to the others.
    EXPECT_EQ(report.droppedCells, 0u);
}

TEST(VoxelGrid, TwoSeparatePiecesKeepTheLarger)
{
    ShapeMesh big = MakeShape(EShape::Sphere, 800);
    const ShapeMesh small = MakeShape(EShape::Sphere, 200);
    const auto offset = std::uint32_t(big.positions.size());
    for (const Vec3f& p : small.positions)
        big.positions.push_back(0.5f * p + Vec3f(2.0f, 0.0f, 0.0f));
    for (const Triangle& t : small.triangles)
        big.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
    VoxelReport report;
    const VoxelGrid grid = VoxeliseSolid(big.positions, big.triangles, 0.07, &report);
    EXPECT_GT(report.droppedCells, 0u);
    for (std::uint32_t k = 0; k < grid.cells[2]; ++k)
        for (std::uint32_t j = 0; j < grid.cells[1]; ++j)
            for (std::uint32_t i = 0; i < grid.cells[0]; ++i)
                if (grid.solid[grid.CellIndex(i, j, k)] != 0)
                {
                    EXPECT_LT(grid.origin.x() + (i + 0.5) * grid.cellSize, 1.0);
                }
}

TEST(VoxelGrid, TheDefaultCellSizeGivesAboutTheBudget)
{
    for (EShape shape : {EShape::Sphere, EShape::Beam, EShape::Chair})
    {
        const ShapeMesh mesh = MakeShape(shape, 4000);
        const double size = CellSizeForBudget(mesh.positions, mesh.triangles, 4000.0);
        const VoxelGrid grid = VoxeliseSolid(mesh.positions, mesh.triangles, size);
        EXPECT_GT(double(grid.SolidCount()), 0.5 * 4000.0) << ShapeName(shape);
        EXPECT_LT(double(grid.SolidCount()), 2.0 * 4000.0) << ShapeName(shape);
    }
}

TEST(VoxelGrid, BadInputIsRejected)
{
    const ShapeMesh mesh = MakeShape(EShape::Box, 200);
    EXPECT_THROW(VoxeliseSolid({}, {}, 0.1), Error);
    EXPECT_THROW(VoxeliseSolid(mesh.positions, mesh.triangles, 0.0), Error);
    EXPECT_THROW(VoxeliseSolid(mesh.positions, mesh.triangles, std::nan("")), Error);
    EXPECT_THROW(VoxeliseSolid(mesh.positions, mesh.triangles, 1e-9), Error); // more than 2^28 cells
    ShapeMesh bad = mesh;
    bad.positions[3].x() = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(VoxeliseSolid(bad.positions, bad.triangles, 0.1), Error);
    bad = mesh;
    bad.triangles[2][1] = std::uint32_t(bad.positions.size());
    EXPECT_THROW(VoxeliseSolid(bad.positions, bad.triangles, 0.1), Error);
    EXPECT_THROW(CellSizeForBudget(mesh.positions, mesh.triangles, 0.0), Error);
}

} // namespace
} // namespace bdt
