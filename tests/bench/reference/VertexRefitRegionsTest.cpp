// The Distance Hierarchy paper's refitted baselines of `bdt-bench bounds` against brute force: every region's
// refitted sphere and box (posed in world) holds the region's deformed vertices, with no tolerance.
#include "reference/VertexRefitRegions.h"

#include "reference/DeformVertices.h"
#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include <gtest/gtest.h>
#include <random>

namespace bdt::bench
{
namespace
{

TEST(VertexRefitRegions, BoundsHoldTheDeformedVertices)
{
    std::mt19937 random(8);
    const auto tree = test::ShapeTree("pawn", 1200, 6);
    const auto hierarchy = std::make_shared<const DistanceHierarchy>(DistanceHierarchy::Build(tree));
    const Model& model = tree->GetModel();
    RefitSphereRegions spheres(hierarchy, 64);
    RefitBoxRegions boxes(hierarchy, 64);
    std::vector<Vec3f> deformed(model.VertexCount());
    std::uint64_t checks = 0;
    for (double amplitude : {0.0, 0.02, 0.2})
    {
        DeformVertices(model, test::RandomQ(6, amplitude, random), deformed);
        const Pose pose{test::RandomRotation(random), test::RandomPoint(random, 3.0)};
        ASSERT_TRUE(spheres.SetStep(deformed, pose, 1.5));
        ASSERT_TRUE(boxes.SetStep(deformed, pose, 1.5));
        for (std::uint32_t node = 0; node < tree->NodeCount(); ++node)
        {
            const WorldBall ball = spheres.Bound(node);
            const WorldBox box = boxes.Bound(node);
            for (std::uint32_t v : hierarchy->RegionVertices(node))
            {
                const Vec3d world = pose.Apply(1.5 * deformed[v].cast<double>());
                EXPECT_LE((world - ball.center).norm(), ball.radius) << "node " << node;
                const Vec3d local = pose.rotation.transpose() * (world - box.center);
                EXPECT_TRUE(
                    (local.cwiseAbs().array() <= box.halfExtents.array() * (1.0 + 1e-12) + 1e-12).all())
                    << "node " << node;
                ++checks;
            }
        }
    }
    EXPECT_GT(checks, 30000u);
    // A bad step is refused: NaN vertices.
    deformed[5].x() = std::nanf("");
    EXPECT_FALSE(spheres.SetStep(deformed, Pose::Identity()));
    EXPECT_FALSE(boxes.SetStep(deformed, Pose::Identity()));
}

} // namespace
} // namespace bdt::bench
