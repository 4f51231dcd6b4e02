// Simulation nodes for meshless (blended) bodies: farthest-point nodes on the vertices, convex kernel weights
// of the nearest nodes, and node transforms from a deformation map.
#include <bdt/bake/MeshlessNodes.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <gtest/gtest.h>
#include <set>

namespace bdt
{
namespace
{

TEST(MeshlessNodes, NodesAreSpreadAndWeightsConvex)
{
    ShapeMesh shape = MakeShape(EShape::Chair, 2000);
    const std::size_t vertices = shape.positions.size();
    const MeshlessNodes nodes = SampleMeshlessNodes(shape.positions, shape.triangles, 40, 5);
    ASSERT_EQ(nodes.nodePositions.size(), 40u);
    std::set<std::tuple<double, double, double>> distinct;
    for (const Vec3d& x : nodes.nodePositions)
        distinct.insert({x.x(), x.y(), x.z()});
    EXPECT_EQ(distinct.size(), 40u);
    ASSERT_EQ(nodes.mesh.weightStart.size(), vertices + 1);
    for (std::size_t k = 0; k < vertices; ++k)
    {
        double sum = 0.0;
        ASSERT_EQ(nodes.mesh.weightStart[k + 1] - nodes.mesh.weightStart[k], 5u);
        for (std::uint32_t i = nodes.mesh.weightStart[k]; i < nodes.mesh.weightStart[k + 1]; ++i)
        {
            EXPECT_GT(nodes.mesh.weights[i].weight, 0.0f);
            sum += nodes.mesh.weights[i].weight;
        }
        EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    EXPECT_NO_THROW(BlendedMesh::Create(nodes.mesh));
    EXPECT_THROW(SampleMeshlessNodes(shape.positions, shape.triangles, 0), Error);
    EXPECT_THROW(SampleMeshlessNodes({}, {}, 3), Error);
}

// An affine map is its own first-order expansion: every node gets exactly it.
TEST(MeshlessNodes, TransformsOfAnAffineMapAreThatMap)
{
    Mat3d a;
    a << 1.1, 0.2, -0.3, 0.0, 0.9, 0.4, 0.1, -0.2, 1.3;
    const Vec3d t(0.5, -1.0, 2.0);
    const std::vector<Vec3d> nodes = {Vec3d(0, 0, 0), Vec3d(1, 2, 3), Vec3d(-4, 0.5, 2)};
    const auto transforms =
        TransformsOfMap([&](const Vec3d& inX) { return Vec3d(a * inX + t); }, nodes, 1e-3);
    for (const AffineTransform& transform : transforms)
    {
        EXPECT_LT((transform.linear - a).norm(), 1e-9);
        EXPECT_LT((transform.translation - t).norm(), 1e-9);
    }
}

} // namespace
} // namespace bdt
