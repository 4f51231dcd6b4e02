#include "support/TestModels.h"

#include "core/geometry/MinimalSphere.h"

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

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

// σ₁ of the 3×M matrix of columns `inColumns` by power iteration on A·Aᵀ in long double from each axis
// (the largest Rayleigh quotient after 4000 steps): independent of the eigen-solvers the norms use.
double LargestSingularValue(const std::vector<Vec3d>& inColumns)
{
    using Real = long double;
    Real gram[3][3] = {};
    for (const Vec3d& column : inColumns)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                gram[r][c] += Real(column[r]) * Real(column[c]);
    Real best = 0;
    for (int axis = 0; axis < 3; ++axis)
    {
        Real v[3] = {0, 0, 0};
        v[axis] = 1;
        for (int step = 0; step < 4000; ++step)
        {
            Real w[3] = {};
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c)
                    w[r] += gram[r][c] * v[c];
            const Real length = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
            if (!(length > 0))
                break;
            for (int r = 0; r < 3; ++r)
                v[r] = w[r] / length;
        }
        Real rayleigh = 0;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                rayleigh += v[r] * gram[r][c] * v[c];
        best = std::max(best, rayleigh);
    }
    return double(std::sqrt(best));
}

// Both spectral norms against the largest singular value of the 3×M matrix: never below it (less the
// oracle's own rounding, 1e-14 of the Frobenius norm), at most 1e-8 relative above (plus that), for
// random matrices of every scale, rank-deficient ones (one column, repeated columns, a plane) and zero.
TEST(BDTree, SpectralNormsBoundTheLargestSingularValue)
{
    std::mt19937 random(11);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> exponent(-12.0, 6.0);
    for (int trial = 0; trial < 2000; ++trial)
    {
        const int columns = 1 + trial % 12;
        const double scale = std::pow(10.0, exponent(random));
        std::vector<Vec3d> matrix(std::size_t(columns), Vec3d::Zero());
        for (Vec3d& column : matrix)
            column = scale * Vec3d(normal(random), normal(random), normal(random));
        if (trial % 5 == 1)
            for (Vec3d& column : matrix)
                column = normal(random) * matrix[0]; // rank 1
        if (trial % 5 == 2)
            for (Vec3d& column : matrix)
                column.z() = 0.0; // rank ≤ 2
        if (trial % 97 == 3)
            for (Vec3d& column : matrix)
                column.setZero();
        const double exact = LargestSingularValue(matrix);
        double frobenius = 0.0;
        for (const Vec3d& column : matrix)
            frobenius += column.squaredNorm();
        frobenius = std::sqrt(frobenius);
        for (const double bound : {SpectralNorm(matrix), SpectralNormBound(matrix)})
        {
            EXPECT_GE(bound, exact - 1e-14 * frobenius) << "trial " << trial;
            EXPECT_LE(bound, exact * (1.0 + 1e-8) + 1e-14 * frobenius) << "trial " << trial;
        }
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

// The connected components of a model's triangles (sharing a vertex connects), by brute force: labels in
// triangle order, numbered from 0.
std::vector<std::uint32_t> Components(const Model& inModel, std::uint32_t& outCount)
{
    const auto triangles = inModel.Triangles();
    std::vector<std::uint32_t> label(triangles.size());
    std::iota(label.begin(), label.end(), 0u);
    for (bool changed = true; changed;)
    {
        changed = false;
        std::vector<std::uint32_t> ofVertex(inModel.VertexCount(), ~0u);
        for (std::size_t t = 0; t < triangles.size(); ++t)
            for (const std::uint32_t v : triangles[t])
                ofVertex[v] = std::min(ofVertex[v], label[t]);
        for (std::size_t t = 0; t < triangles.size(); ++t)
            for (const std::uint32_t v : triangles[t])
                if (ofVertex[v] < label[t])
                {
                    label[t] = ofVertex[v];
                    changed = true;
                }
    }
    std::vector<std::uint32_t> number(triangles.size(), ~0u);
    outCount = 0;
    for (std::uint32_t& l : label)
    {
        if (number[l] == ~0u)
            number[l] = outCount++;
        l = number[l];
    }
    return label;
}

// A chair is six boxes: every node either splits at its median or keeps each component whole on one side, and
// a part that is the whole of a node can be one contact piece.
TEST(BDTree, PartsOfAModelMadeOfPartsGetNodesOfTheirOwn)
{
    const auto tree = test::ShapeTree("chair", 3000, 4);
    std::uint32_t partCount = 0;
    const std::vector<std::uint32_t> part = Components(tree->GetModel(), partCount);
    ASSERT_EQ(partCount, 6u);
    std::vector<std::uint32_t> size(partCount, 0);
    for (const std::uint32_t p : part)
        ++size[p];
    std::vector<bool> ownNode(partCount, false);
    for (const BDTreeNode& node : tree->Nodes())
    {
        const auto partsIn = [&](std::uint32_t inFirst, std::uint32_t inCount)
        {
            std::vector<std::uint32_t> in(partCount, 0);
            for (std::uint32_t t = inFirst; t < inFirst + inCount; ++t)
                ++in[part[t]];
            return in;
        };
        const std::vector<std::uint32_t> in = partsIn(node.firstTriangle, node.triangleCount);
        for (std::uint32_t p = 0; p < partCount; ++p)
            if (in[p] == node.triangleCount && in[p] == size[p])
                ownNode[p] = true;
        if (node.IsLeaf())
            continue;
        const BDTreeNode& left = tree->Node(node.firstChild);
        const BDTreeNode& right = tree->Node(node.firstChild + 1);
        const bool median = std::max(left.triangleCount, right.triangleCount) -
                                std::min(left.triangleCount, right.triangleCount) <=
                            1;
        const std::vector<std::uint32_t> inLeft = partsIn(left.firstTriangle, left.triangleCount);
        bool whole = true;
        for (std::uint32_t p = 0; p < partCount; ++p)
            whole = whole && (inLeft[p] == 0 || inLeft[p] == in[p]);
        EXPECT_TRUE(median || whole) << "node at level " << node.level << " cuts a part unevenly";
    }
    // The four legs (the smallest parts) each have a node of their own, and so does one of the two large parts.
    // The other is cut at medians: at the node holding it and the legs, the legs lie either side of it along that
    // node's longest axis, so no cut between parts leaves a quarter of the triangles on its smaller side.
    std::vector<std::uint32_t> bySize(partCount);
    std::iota(bySize.begin(), bySize.end(), 0u);
    std::sort(bySize.begin(), bySize.end(), [&](std::uint32_t a, std::uint32_t b) { return size[a] < size[b]; });
    for (std::uint32_t k = 0; k < 4; ++k)
        EXPECT_TRUE(ownNode[bySize[k]]) << "leg " << bySize[k] << " of " << size[bySize[k]] << " triangles";
    EXPECT_TRUE(ownNode[bySize[4]] || ownNode[bySize[5]]);
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
