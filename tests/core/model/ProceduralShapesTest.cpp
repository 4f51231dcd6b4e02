#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

namespace bdt
{
namespace
{

constexpr std::uint32_t cTargets[] = {200, 500, 1000, 3000, 12020, 18000};

bool IsClosed(EShape inShape)
{
    return inShape != EShape::Curtain;
}

std::string Label(EShape inShape, std::uint32_t inTarget)
{
    return std::string(ShapeName(inShape)) + "@" + std::to_string(inTarget);
}

// Counts how often each undirected edge occurs, and each directed edge.
struct EdgeCounts
{
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> undirected;
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
};

EdgeCounts CountEdges(const ShapeMesh& inMesh)
{
    EdgeCounts counts;
    for (const Triangle& t : inMesh.triangles)
        for (int k = 0; k < 3; ++k)
        {
            const std::uint32_t a = t[k], b = t[(k + 1) % 3];
            ++counts.directed[{a, b}];
            ++counts.undirected[{std::min(a, b), std::max(a, b)}];
        }
    return counts;
}

double SignedVolume(const ShapeMesh& inMesh)
{
    double volume = 0.0;
    for (const Triangle& t : inMesh.triangles)
    {
        const Vec3d a = inMesh.positions[t[0]].cast<double>();
        const Vec3d b = inMesh.positions[t[1]].cast<double>();
        const Vec3d c = inMesh.positions[t[2]].cast<double>();
        volume += a.dot(b.cross(c)) / 6.0;
    }
    return volume;
}

TEST(ProceduralShapesTest, CountsWithinFifteenPercent)
{
    for (const EShape shape : AllShapes())
        for (const std::uint32_t target : cTargets)
        {
            const ShapeMesh mesh = MakeShape(shape, target);
            const double ratio = double(mesh.triangles.size()) / target;
            EXPECT_NEAR(ratio, 1.0, 0.15) << Label(shape, target) << ": " << mesh.triangles.size();
        }
}

TEST(ProceduralShapesTest, CountsWithinFifteenPercentForEveryTargetSampled)
{
    for (const EShape shape : AllShapes())
        for (std::uint32_t target = 200; target <= 5000; target += 13)
        {
            const std::size_t count = MakeShape(shape, target).triangles.size();
            ASSERT_NEAR(double(count) / target, 1.0, 0.15) << Label(shape, target) << ": " << count;
        }
}

TEST(ProceduralShapesTest, SmallTargetsAreRaisedToTheMinimum)
{
    for (const EShape shape : AllShapes())
    {
        const std::size_t minimum = MakeShape(shape, 0).triangles.size();
        EXPECT_GE(minimum, 2u) << ShapeName(shape);
        EXPECT_EQ(MakeShape(shape, 1).triangles.size(), minimum) << ShapeName(shape);
        EXPECT_GE(MakeShape(shape, 199).triangles.size(), minimum) << ShapeName(shape);
    }
}

TEST(ProceduralShapesTest, IndicesValidAndNoDegenerateTriangles)
{
    for (const EShape shape : AllShapes())
        for (const std::uint32_t target : {1u, 50u, 200u, 3000u})
        {
            const ShapeMesh mesh = MakeShape(shape, target);
            ASSERT_FALSE(mesh.triangles.empty()) << Label(shape, target);
            for (const Triangle& t : mesh.triangles)
            {
                for (const std::uint32_t index : t)
                    ASSERT_LT(index, mesh.positions.size()) << Label(shape, target);
                const Vec3d a = mesh.positions[t[0]].cast<double>();
                const Vec3d b = mesh.positions[t[1]].cast<double>();
                const Vec3d c = mesh.positions[t[2]].cast<double>();
                ASSERT_GT((b - a).cross(c - a).norm(), 1e-10) << Label(shape, target);
            }
        }
}

TEST(ProceduralShapesTest, ClosedShapesAreWatertightAndConsistentlyOriented)
{
    for (const EShape shape : AllShapes())
    {
        if (!IsClosed(shape))
            continue;
        for (const std::uint32_t target : {1u, 200u, 333u, 777u, 2500u})
        {
            const ShapeMesh mesh = MakeShape(shape, target);
            const EdgeCounts edges = CountEdges(mesh);
            for (const auto& [edge, count] : edges.undirected)
                ASSERT_EQ(count, 2) << Label(shape, target) << " edge " << edge.first << "-" << edge.second;
            // Consistent orientation: each directed edge once, its twin in the neighbour.
            for (const auto& [edge, count] : edges.directed)
                ASSERT_EQ(count, 1) << Label(shape, target);
            EXPECT_GT(SignedVolume(mesh), 0.0) << Label(shape, target);
        }
    }
}

TEST(ProceduralShapesTest, VolumesMatchTheShapes)
{
    EXPECT_NEAR(SignedVolume(MakeShape(EShape::Box, 1000)), 1.0, 1e-5);
    EXPECT_NEAR(SignedVolume(MakeShape(EShape::Beam, 1000)), 2.0 * 0.2 * 0.2, 1e-6);
    const double sphere = 4.0 / 3.0 * 3.14159265358979 * 0.125;
    EXPECT_NEAR(SignedVolume(MakeShape(EShape::Sphere, 20000)), sphere, 0.01 * sphere);
    const double torus = 2.0 * 3.14159265358979 * 3.14159265358979 * 0.5 * 0.15 * 0.15;
    EXPECT_NEAR(SignedVolume(MakeShape(EShape::Torus, 20000)), torus, 0.01 * torus);
}

TEST(ProceduralShapesTest, BoundsAsDocumented)
{
    const auto bounds = [](EShape inShape)
    {
        Eigen::AlignedBox3f box;
        for (const Vec3f& p : MakeShape(inShape, 2000).positions)
            box.extend(p);
        return box;
    };
    const Eigen::AlignedBox3f chair = bounds(EShape::Chair);
    EXPECT_NEAR(chair.sizes().y(), 0.9f, 1e-5f);
    EXPECT_NEAR(chair.sizes().x(), 0.45f, 1e-5f);
    const Eigen::AlignedBox3f curtain = bounds(EShape::Curtain);
    EXPECT_NEAR(curtain.sizes().x(), 2.0f, 1e-5f);
    EXPECT_NEAR(curtain.sizes().y(), 2.5f, 1e-5f);
    EXPECT_GT(curtain.sizes().z(), 0.0f);
    EXPECT_LT(curtain.sizes().z(), 0.1f);
    EXPECT_TRUE(bounds(EShape::Beam).sizes().isApprox(Eigen::Vector3f(2.0f, 0.2f, 0.2f), 1e-5f));
    for (const EShape shape : AllShapes())
        EXPECT_LT(bounds(shape).center().norm(), 0.1f) << ShapeName(shape);
}

// The chair's mesh is the surfaces of its parts: every vertex on the surface of one of `ChairParts`' boxes,
// the mesh's area their total area, its bounds their union's.
TEST(ProceduralShapesTest, ChairIsTheSurfaceOfItsParts)
{
    const std::vector<BoxPart> parts = ChairParts();
    ASSERT_EQ(parts.size(), 6u);
    const ShapeMesh mesh = MakeShape(EShape::Chair, 3000);
    const auto onSurface = [](const BoxPart& inPart, const Vec3d& inPoint)
    {
        const Vec3d offset = (inPoint - inPart.center).cwiseAbs() - 0.5 * inPart.size;
        return offset.maxCoeff() <= 1e-6 && offset.maxCoeff() >= -1e-6;
    };
    for (const Vec3f& p : mesh.positions)
        ASSERT_TRUE(std::any_of(parts.begin(), parts.end(),
                                [&](const BoxPart& inPart) { return onSurface(inPart, p.cast<double>()); }))
            << p.transpose();
    double meshArea = 0.0;
    for (const Triangle& t : mesh.triangles)
    {
        const Vec3d a = mesh.positions[t[0]].cast<double>(), b = mesh.positions[t[1]].cast<double>(),
                    c = mesh.positions[t[2]].cast<double>();
        meshArea += 0.5 * (b - a).cross(c - a).norm();
    }
    double partsArea = 0.0;
    Eigen::AlignedBox3d partsBounds;
    for (const BoxPart& part : parts)
    {
        const Vec3d& s = part.size;
        partsArea += 2.0 * (s.x() * s.y() + s.y() * s.z() + s.z() * s.x());
        partsBounds.extend(part.center - 0.5 * s);
        partsBounds.extend(part.center + 0.5 * s);
    }
    EXPECT_NEAR(meshArea, partsArea, 1e-5 * partsArea);
    Eigen::AlignedBox3d meshBounds;
    for (const Vec3f& p : mesh.positions)
        meshBounds.extend(p.cast<double>());
    EXPECT_LT((meshBounds.min() - partsBounds.min()).norm(), 1e-6);
    EXPECT_LT((meshBounds.max() - partsBounds.max()).norm(), 1e-6);
}

TEST(ProceduralShapesTest, CurtainIsOpenManifoldGrid)
{
    const ShapeMesh mesh = MakeShape(EShape::Curtain, 12020);
    const EdgeCounts edges = CountEdges(mesh);
    int boundary = 0;
    for (const auto& [edge, count] : edges.undirected)
    {
        ASSERT_LE(count, 2);
        boundary += count == 1 ? 1 : 0;
    }
    EXPECT_GT(boundary, 0);
    for (const auto& [edge, count] : edges.directed)
        ASSERT_EQ(count, 1);
}

// The slab is a closed, outward 1 × 0.1 × 1 plate near the count asked for, its cells about square on every
// face (the thin sides too): each grid edge, along x, y or z, about as long as every other.
TEST(ProceduralShapesTest, SlabIsAnEvenlySubdividedPlate)
{
    for (const std::uint32_t target : {3000u, 20000u})
    {
        const ShapeMesh mesh = MakeShape(EShape::Slab, target);
        const std::string label = Label(EShape::Slab, target);
        EXPECT_NEAR(double(mesh.triangles.size()) / target, 1.0, 0.15) << label;
        const EdgeCounts edges = CountEdges(mesh);
        for (const auto& [edge, count] : edges.undirected)
            ASSERT_EQ(count, 2) << label;
        for (const auto& [edge, count] : edges.directed)
            ASSERT_EQ(count, 1) << label;
        EXPECT_NEAR(SignedVolume(mesh), 0.1, 1e-6) << label;
        Eigen::AlignedBox3f box;
        for (const Vec3f& p : mesh.positions)
            box.extend(p);
        EXPECT_TRUE(box.sizes().isApprox(Eigen::Vector3f(1.0f, 0.1f, 1.0f), 1e-5f)) << label;
        EXPECT_LT(box.center().norm(), 1e-5f) << label;
        // Axis-aligned edges (the grid's, not the quads' diagonals): shortest and longest.
        double shortest = 1e9, longest = 0.0;
        for (const auto& [edge, count] : edges.undirected)
        {
            const Vec3d d =
                (mesh.positions[edge.second] - mesh.positions[edge.first]).cast<double>().cwiseAbs();
            const double length = d.maxCoeff();
            if (d.sum() - length > 1e-9)
                continue;
            shortest = std::min(shortest, length);
            longest = std::max(longest, length);
        }
        EXPECT_LT(longest / shortest, 1.5) << label;
    }
}

TEST(ProceduralShapesTest, PaperSizedModels)
{
    const ShapeMesh chair = MakeShape(EShape::Chair, 18000);
    EXPECT_NEAR(double(chair.triangles.size()), 17914.0, 0.05 * 17914.0);
    const ShapeMesh curtain = MakeShape(EShape::Curtain, 12020);
    EXPECT_NEAR(double(curtain.triangles.size()), 12020.0, 0.01 * 12020.0);
}

TEST(ProceduralShapesTest, Deterministic)
{
    for (const EShape shape : AllShapes())
    {
        const ShapeMesh a = MakeShape(shape, 1500);
        const ShapeMesh b = MakeShape(shape, 1500);
        EXPECT_EQ(a.triangles, b.triangles);
        EXPECT_EQ(a.positions, b.positions);
    }
}

TEST(ProceduralShapesTest, NamesRoundTrip)
{
    EXPECT_EQ(AllShapes().size(), 8u);
    for (const EShape shape : AllShapes())
    {
        const auto parsed = ShapeFromName(ShapeName(shape));
        ASSERT_TRUE(parsed.has_value());
        EXPECT_EQ(*parsed, shape);
    }
    EXPECT_FALSE(ShapeFromName("Chair").has_value());
    EXPECT_FALSE(ShapeFromName("").has_value());
}

TEST(ProceduralShapesTest, HugeTargetThrows)
{
    EXPECT_THROW(MakeShape(EShape::Box, 50'000'001u), Error);
}

} // namespace
} // namespace bdt
