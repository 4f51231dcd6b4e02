#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <support/Conservativeness.h>
#include <support/TestModels.h>

namespace bdt
{
namespace
{

UpdatedBox BoxAt(const BDAabbTree& inBoxes, std::uint32_t inNode, std::span<const float> inQ)
{
    AlignedVector<float> qq(8 * inQ.size() + 8);
    MakeBoxUpdateInput(inQ, qq.data());
    UpdatedBox box;
    UpdateBox(inBoxes.Row(inNode), qq.data(), inBoxes.ModeCount(), box);
    return box;
}

// §3.5's property, by brute force: every deformed vertex p + Uq (double) of every node lies in the node's
// updated box, with no tolerance, for q from zero to ten times the model's size.
TEST(BDAabbTree, BoxesContainEveryDeformedVertex)
{
    std::mt19937 random(5);
    for (const char* shape : {"chair", "pawn", "torus", "curtain"})
    {
        const auto tree = test::ShapeTree(shape, 1200, 7);
        const BDAabbTree boxes = BDAabbTree::Build(tree);
        const test::NodeVertexTable vertices(*tree);
        const Model& model = tree->GetModel();
        const double size = test::ModelRadius(model);
        std::uint64_t checks = 0;
        for (double amplitude : {0.0, 0.003, 0.03, 0.3, 3.0, 10.0})
        {
            const std::vector<float> q = test::RandomQ(model.ModeCount(), amplitude * size, random);
            std::vector<Vec3d> deformed(model.VertexCount());
            for (std::size_t v = 0; v < deformed.size(); ++v)
                deformed[v] = model.DeformedPosition(v, q);
            int failures = 0;
            for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
            {
                const UpdatedBox box = BoxAt(boxes, i, q);
                for (std::uint32_t v : vertices.Of(i))
                    for (int a = 0; a < 3; ++a)
                    {
                        ++checks;
                        const double excess = std::abs(deformed[v][a] - box.center[a]) - box.halfExtents[a];
                        if (excess > 0.0 && failures++ < 5)
                            ADD_FAILURE()
                                << shape << " amplitude " << amplitude << ": node " << i << " vertex " << v
                                << " axis " << a << " lies " << excess << " outside its box";
                    }
            }
        }
        EXPECT_GT(checks, 100000u) << shape;
    }
}

// At q = 0 the box is the node's own vertex box (wrapped, §3.1), up to the float rounding allowance (a few γ
// of the coordinates, `FloatUpdateSlack`).
TEST(BDAabbTree, RestBoxesWrapTheirVertices)
{
    const auto tree = test::ShapeTree("pawn", 2000, 5);
    const BDAabbTree boxes = BDAabbTree::Build(tree);
    const test::NodeVertexTable vertices(*tree);
    const std::vector<float> zero(5, 0.0f);
    const double size = test::ModelRadius(tree->GetModel());
    for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
    {
        Vec3d lo = Vec3d::Constant(1e30), hi = -lo;
        for (std::uint32_t v : vertices.Of(i))
        {
            lo = lo.cwiseMin(tree->GetModel().Positions()[v].cast<double>());
            hi = hi.cwiseMax(tree->GetModel().Positions()[v].cast<double>());
        }
        const UpdatedBox box = BoxAt(boxes, i, zero);
        for (int a = 0; a < 3; ++a)
        {
            EXPECT_LE(box.center[a] - box.halfExtents[a], lo[a]) << "node " << i;
            EXPECT_GE(box.center[a] + box.halfExtents[a], hi[a]) << "node " << i;
            EXPECT_NEAR(2.0 * box.halfExtents[a], hi[a] - lo[a], 8.0 * FloatUpdateSlack(5) * size)
                << "node " << i << " axis " << a;
        }
    }
}

// The 8-wide kernel against c + Σ Ū_j q_j and h + Σ ΔB_j |q_j| term by term in double, for every M up to 13
// (the paired and the odd remainder paths).
TEST(BDAabbTree, UpdateKernelComputesThePerAxisBound)
{
    std::mt19937 random(9);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (std::uint32_t m = 0; m <= 13; ++m)
    {
        AlignedVector<float> row(NodeBoxLayout::RowStride(m));
        for (float& value : row)
            value = uniform(random);
        std::vector<float> q(m);
        for (float& value : q)
            value = uniform(random);
        AlignedVector<float> qq(8 * m + 8);
        MakeBoxUpdateInput(q, qq.data());
        UpdatedBox box;
        UpdateBox(row.data(), qq.data(), m, box);
        for (int a = 0; a < 3; ++a)
        {
            double centre = row[a], half = row[4 + a];
            for (std::uint32_t j = 0; j < m; ++j)
            {
                centre += double(row[8 * (j + 1) + a]) * q[j];
                half += double(row[8 * (j + 1) + 4 + a]) * std::abs(q[j]);
            }
            EXPECT_NEAR(box.center[a], centre, 1e-5) << "M " << m;
            EXPECT_NEAR(box.halfExtents[a], half, 1e-5) << "M " << m;
        }
    }
}

TEST(BDAabbTree, BuildNeedsATree)
{
    EXPECT_THROW(BDAabbTree::Build(nullptr), Error);
}

// A box row is 32(M + 1) bytes a node.
TEST(BDAabbTree, MemoryIsOneRowANode)
{
    const auto tree = test::ShapeTree("box", 500, 10);
    const BDAabbTree boxes = BDAabbTree::Build(tree);
    EXPECT_EQ(boxes.MemoryBytes(), std::size_t(tree->NodeCount()) * 32 * 11);
}

} // namespace
} // namespace bdt
