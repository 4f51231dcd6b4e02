#include "core/bounds/DistanceHierarchy.h"

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <gtest/gtest.h>
#include <random>
#include <support/TestModels.h>

namespace bdt
{
namespace
{

// §3.1 by brute force: each region's vertices are its node's, its central vertex is the one closest to their
// centroid, and its rest radius is the largest distance from it, rounded up.
TEST(DistanceHierarchy, RegionsAreCentralVertexAndRadius)
{
    const auto tree = test::ShapeTree("pawn", 1500, 4);
    const DistanceHierarchy hierarchy = DistanceHierarchy::Build(tree);
    const auto positions = tree->GetModel().Positions();
    for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
    {
        std::vector<std::uint32_t> expected = test::NodeVertices(*tree, i);
        std::vector<std::uint32_t> actual(hierarchy.RegionVertices(i).begin(),
                                          hierarchy.RegionVertices(i).end());
        std::sort(expected.begin(), expected.end());
        std::sort(actual.begin(), actual.end());
        ASSERT_EQ(actual, expected) << "node " << i;

        Vec3d centroid = Vec3d::Zero();
        for (std::uint32_t v : expected)
            centroid += positions[v].cast<double>();
        centroid /= double(expected.size());
        const DistanceRegion& region = hierarchy.Region(i);
        const double chosen = (positions[region.centralVertex].cast<double>() - centroid).norm();
        double farthest = 0.0;
        for (std::uint32_t v : expected)
        {
            EXPECT_LE(chosen, (positions[v].cast<double>() - centroid).norm()) << "node " << i;
            farthest = std::max(
                farthest,
                (positions[v].cast<double>() - positions[region.centralVertex].cast<double>()).norm());
        }
        EXPECT_TRUE(std::binary_search(expected.begin(), expected.end(), region.centralVertex));
        EXPECT_GE(double(region.restRadius), farthest);
        EXPECT_NEAR(region.restRadius, farthest, 1e-6);
    }
}

// After any deformation, `Radius` gives a ball about the moved central vertex containing every moved region
// vertex (no tolerance), and no larger than its float rounding allowance (16 units, 1e-6 relative) needs.
TEST(DistanceHierarchy, RadiusContainsTheDeformedRegion)
{
    std::mt19937 random(3);
    const auto tree = test::ShapeTree("chair", 1500, 6);
    const DistanceHierarchy hierarchy = DistanceHierarchy::Build(tree);
    const Model& model = tree->GetModel();
    const double size = test::ModelRadius(model);
    for (double amplitude : {0.0, 0.05, 0.5})
    {
        const std::vector<float> q = test::RandomQ(6, amplitude * size, random);
        std::vector<Vec3f> deformed(model.VertexCount());
        for (std::size_t v = 0; v < deformed.size(); ++v)
            deformed[v] = model.DeformedPosition(v, q).cast<float>();
        for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
        {
            const float radius = hierarchy.Radius(i, deformed);
            const Vec3d centre = deformed[hierarchy.Region(i).centralVertex].cast<double>();
            double farthest = 0.0;
            for (std::uint32_t v : hierarchy.RegionVertices(i))
                farthest = std::max(farthest, (deformed[v].cast<double>() - centre).norm());
            EXPECT_GE(double(radius), farthest) << "node " << i;
            EXPECT_LE(double(radius), farthest * (1.0 + 2e-6) + 1e-12) << "node " << i;
        }
    }
}

// The paper's memory claim: 8 bytes a region (the vertex lists are what the radius update reads).
TEST(DistanceHierarchy, EightBytesARegion)
{
    const auto tree = test::ShapeTree("torus", 800, 2);
    const DistanceHierarchy hierarchy = DistanceHierarchy::Build(tree);
    EXPECT_EQ(hierarchy.RegionBytes(), 8u * tree->NodeCount());
    EXPECT_GT(hierarchy.VertexListBytes(), 4u * tree->GetModel().VertexCount());
    EXPECT_THROW(DistanceHierarchy::Build(nullptr), Error);
}

} // namespace
} // namespace bdt
