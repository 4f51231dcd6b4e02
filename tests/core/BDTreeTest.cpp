#include "support/TestModels.h"

#include <bdt/core/BDTree.h>
#include <bdt/core/Error.h>
#include <bdt/core/MinimalSphere.h>
#include <bdt/core/ProceduralShapes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace bdt
{
namespace
{

TEST(BDTree, TopologyIsBreadthFirstBinaryWithContiguousRanges)
{
    const auto tree = test::ShapeTree("torus", 900, 4);
    const std::uint32_t triangleCount = static_cast<std::uint32_t>(tree->GetModel().TriangleCount());
    ASSERT_EQ(tree->NodeCount(), 2 * triangleCount - 1); // binary, one triangle per leaf
    EXPECT_EQ(tree->Node(0).triangleCount, triangleCount);
    std::uint32_t leaves = 0;
    for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
    {
        const BDTreeNode& node = tree->Node(i);
        if (i > 0)
        {
            EXPECT_GE(node.level, tree->Node(i - 1).level) << "breadth-first order";
        }
        if (node.IsLeaf())
        {
            EXPECT_EQ(node.triangleCount, 1u);
            ++leaves;
            continue;
        }
        const BDTreeNode& left = tree->Node(node.firstChild);
        const BDTreeNode& right = tree->Node(node.firstChild + 1);
        EXPECT_EQ(left.firstTriangle, node.firstTriangle);
        EXPECT_EQ(right.firstTriangle, left.firstTriangle + left.triangleCount);
        EXPECT_EQ(left.triangleCount + right.triangleCount, node.triangleCount);
        EXPECT_LE(std::max(left.triangleCount, right.triangleCount) - std::min(left.triangleCount, right.triangleCount), 1u)
            << "median split";
    }
    EXPECT_EQ(leaves, triangleCount);
    // Levels are prefixes: LevelEnd(l) counts the nodes of levels 0..l.
    for (std::uint32_t l = 0; l < tree->LevelCount(); ++l)
    {
        const std::uint32_t end = tree->LevelEnd(l);
        for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
            EXPECT_EQ(i < end, tree->Node(i).level <= l);
    }
    // The tree's triangles are the input's, permuted by TriangleOrder.
    std::vector<std::uint32_t> order(tree->TriangleOrder().begin(), tree->TriangleOrder().end());
    std::sort(order.begin(), order.end());
    std::vector<std::uint32_t> identity(triangleCount);
    std::iota(identity.begin(), identity.end(), 0u);
    EXPECT_EQ(order, identity);
}

TEST(BDTree, RestSpheresAreMinimalAndWrapTheirVertices)
{
    const auto tree = test::ShapeTree("pawn", 800, 3);
    const Model& model = tree->GetModel();
    for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
    {
        std::vector<Vec3d> points;
        for (std::uint32_t v : test::NodeVertices(*tree, i))
            points.push_back(model.Positions()[v].cast<double>());
        const Sphere minimal = MinimalEnclosingSphere(points);
        const float* row = tree->Row(i);
        const Vec3d center(row[0], row[1], row[2]);
        for (const Vec3d& p : points)
            EXPECT_LE((p - center).norm(), row[3]);
        // Wrapped (eq. 2) and minimal up to float rounding of the stored centre.
        EXPECT_NEAR(row[3], minimal.radius, 1e-5 * (1.0 + minimal.radius)) << "node " << i;
    }
}

TEST(BDTree, ModeGrowthIsZeroForTranslationFields)
{
    // A basis that translates every vertex equally: ΔR = 0 for every node (paper §3.3), so R' = R.
    ShapeMesh mesh = MakeShape(EShape::Box, 300);
    ModelData data;
    data.positions = mesh.positions;
    data.triangles = mesh.triangles;
    data.modeCount = 1;
    for (std::size_t i = 0; i < mesh.positions.size(); ++i)
        data.basis.insert(data.basis.end(), {0.0f, 1.0f, 0.0f});
    const BDTree tree = BDTree::Build(Model::Create(std::move(data)));
    for (std::uint32_t i = 0; i < tree.NodeCount(); ++i)
    {
        const float* row = tree.Row(i);
        EXPECT_FLOAT_EQ(row[5], 1.0f); // Ū_0.y
        EXPECT_LT(row[7], 1e-5f);       // ΔR_0 is only the float rounding allowance
    }
}

TEST(BDTree, RejectsImpossibleSettings)
{
    ShapeMesh mesh = MakeShape(EShape::Box, 100);
    const Model model = test::SmoothModel(mesh.positions, mesh.triangles, 2);
    BDTreeSettings settings;
    settings.maxLeafTriangles = 0;
    EXPECT_THROW(BDTree::Build(model, settings), Error);
}

TEST(BDTree, LeafSizeSettingGroupsTriangles)
{
    ShapeMesh mesh = MakeShape(EShape::Sphere, 1000);
    const Model model = test::SmoothModel(mesh.positions, mesh.triangles, 2);
    BDTreeSettings settings;
    settings.maxLeafTriangles = 4;
    const BDTree tree = BDTree::Build(model, settings);
    for (const BDTreeNode& node : tree.Nodes())
    {
        if (node.IsLeaf())
            EXPECT_LE(node.triangleCount, 4u);
        else
            EXPECT_GT(node.triangleCount, 4u);
    }
}

} // namespace
} // namespace bdt
