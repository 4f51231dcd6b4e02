// Steinemann et al. 2008's bounds by brute force: every node's refitted k-DOP (eq. 12) holds its deformed
// vertices, at rest it is the rest box, front tracking changes the work and not the answer, and the tree
// query finds exactly the intersecting triangle pairs that all-pairs testing finds.
#include "support/QueryOracles.h"

#include "core/bounds/BlendBounds.h"

#include <algorithm>
#include <bdt/bake/MeshlessNodes.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace bdt
{
namespace
{

struct Meshless
{
    std::shared_ptr<const BlendedMesh> mesh;
    std::shared_ptr<const BlendBoundsTree> tree;
    std::vector<Vec3d> nodes;
};

Meshless MakeMeshless(EShape inShape, std::uint32_t inTriangles, std::uint32_t inNodes)
{
    ShapeMesh shape = MakeShape(inShape, inTriangles);
    MeshlessNodes sampled =
        SampleMeshlessNodes(std::move(shape.positions), std::move(shape.triangles), inNodes);
    Meshless out;
    out.mesh = std::make_shared<const BlendedMesh>(BlendedMesh::Create(std::move(sampled.mesh)));
    out.tree = std::make_shared<const BlendBoundsTree>(BlendBoundsTree::Build(out.mesh));
    out.nodes = std::move(sampled.nodePositions);
    return out;
}

// A smooth large deformation: a twist about y growing with height, a bend in x and a stretch, scaled by
// `inAmount`, then a rigid motion.
DeformationMap TwistBend(double inAmount, const Mat3d& inRotation, const Vec3d& inShift)
{
    return [=](const Vec3d& inX)
    {
        const double angle = 1.2 * inAmount * inX.y();
        const double c = std::cos(angle), s = std::sin(angle);
        Vec3d y(c * inX.x() - s * inX.z(), inX.y() * (1.0 + 0.3 * inAmount), s * inX.x() + c * inX.z());
        y.x() += 0.4 * inAmount * inX.y() * inX.y();
        return Vec3d(inRotation * y + inShift);
    };
}

TEST(BlendBounds, RefittedDopsHoldEveryDeformedVertex)
{
    std::mt19937 random(4);
    for (EShape shape : {EShape::Pawn, EShape::Torus})
    {
        const Meshless body = MakeMeshless(shape, 1500, 24);
        std::uint64_t checks = 0;
        for (double amount : {0.0, 0.3, 1.0, 2.5})
        {
            // A smooth map, and the same with every node's transform perturbed at random (not a smooth
            // field).
            std::vector<AffineTransform> transforms = TransformsOfMap(
                TwistBend(amount, test::RandomRotation(random), test::RandomPoint(random)), body.nodes, 1e-4);
            if (amount > 2.0)
                for (AffineTransform& t : transforms)
                {
                    t.linear += 0.3 * Mat3d::Random();
                    t.translation += 0.2 * Vec3d::Random();
                }
            for (EDop kind : {EDop::Box6, EDop::Dop14})
                for (std::uint32_t node = 0; node < body.tree->Topology().NodeCount(); ++node)
                {
                    const Dop dop = RefitDop(*body.tree, node, transforms, kind);
                    for (std::uint32_t v : body.tree->NodeVertices(node))
                    {
                        const Vec3d p = body.mesh->DeformedPosition(v, transforms);
                        for (int a = 0; a < AxisCount(kind); ++a)
                        {
                            const double x = DopAxes()[a].dot(p);
                            ASSERT_LE(x, dop.hi[a])
                                << "node " << node << " axis " << a << " amount " << amount;
                            ASSERT_GE(x, dop.lo[a])
                                << "node " << node << " axis " << a << " amount " << amount;
                            ++checks;
                        }
                    }
                }
        }
        EXPECT_GT(checks, 500000u);
    }
}

// With every node under one transform T (the identity, or a rigid motion), eq. 12 gives the box of T B₀, the
// rest box transformed (the weights sum to 1), up to its slack: the rest box itself at the identity; and
// never less than the optimal box of the moved vertices.
TEST(BlendBounds, OneTransformForAllNodesGivesTheTransformedRestBox)
{
    const Meshless body = MakeMeshless(EShape::Pawn, 2000, 30);
    AffineTransform turn;
    turn.linear = Eigen::AngleAxisd(0.7, Vec3d(1, 2, 3).normalized()).toRotationMatrix();
    turn.translation = Vec3d(3, -1, 2);
    for (const AffineTransform& common : {AffineTransform(), turn})
    {
        const std::vector<AffineTransform> transforms(30, common);
        for (std::uint32_t node = 0; node < body.tree->Topology().NodeCount(); ++node)
        {
            const Dop refit = RefitDop(*body.tree, node, transforms, EDop::Box6);
            const Dop exact = ExactDop(*body.tree, node, transforms, EDop::Box6);
            const Vec3d centre = common.Apply(body.tree->RestCentre(node));
            const Vec3d half = common.linear.cwiseAbs() * body.tree->RestHalf(node);
            for (int a = 0; a < 3; ++a)
            {
                EXPECT_NEAR(refit.hi[a], centre[a] + half[a], 1e-4) << node;
                EXPECT_NEAR(refit.lo[a], centre[a] - half[a], 1e-4) << node;
                EXPECT_GE(refit.hi[a], exact.hi[a]) << node;
                EXPECT_LE(refit.lo[a], exact.lo[a]) << node;
            }
        }
    }
}

// Eq. 12 against the linear program it bounds: its value is never below the greedy maximum of Σ w_j b_j over
// {l ≤ w ≤ h, Σ w = 1}, for random boxes of nodes' extremes and weight intervals containing a convex vector.
TEST(BlendBounds, EquationTwelveBoundsTheLimitedWeightSpace)
{
    std::mt19937 random(12);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 2000; ++trial)
    {
        const int n = 1 + trial % 9;
        // A few convex weight vectors; l and h are their componentwise minima and maxima.
        std::vector<double> l(n, 1.0), h(n, 0.0), b(n);
        for (int sample = 0; sample < 3; ++sample)
        {
            std::vector<double> w(n);
            double sum = 0.0;
            for (double& x : w)
                sum += x = unit(random);
            for (int j = 0; j < n; ++j)
            {
                l[j] = std::min(l[j], w[j] / sum);
                h[j] = std::max(h[j], w[j] / sum);
            }
        }
        for (double& x : b)
            x = 4.0 * unit(random) - 2.0;
        // Greedy LP maximum: everyone at l, the rest of the mass to the largest b first, up to h.
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int inA, int inB) { return b[inA] > b[inB]; });
        double mass = 1.0, lp = 0.0;
        for (int j = 0; j < n; ++j)
        {
            mass -= l[j];
            lp += l[j] * b[j];
        }
        for (int j : order)
        {
            const double add = std::min(h[j] - l[j], mass);
            lp += add * b[j];
            mass -= add;
        }
        double eq12 = b[order[0]];
        if (n > 1)
        {
            double othersLow = 0.0, othersDot = 0.0;
            for (int k = 2; k < n; ++k)
            {
                othersLow += l[order[k]];
                othersDot += l[order[k]] * b[order[k]];
            }
            eq12 = h[order[0]] * b[order[0]] + (1.0 - h[order[0]] - othersLow) * b[order[1]] + othersDot;
        }
        EXPECT_GE(eq12, lp - 1e-12) << "trial " << trial;
        EXPECT_LE(eq12, b[order[0]] + 1e-12) << "never looser than the largest single extreme";
    }
}

TEST(BlendBounds, TreeQueryFindsExactlyTheBruteForcePairsWithAndWithoutFront)
{
    std::mt19937 random(6);
    const Meshless a = MakeMeshless(EShape::Torus, 900, 16);
    const Meshless b = MakeMeshless(EShape::Pawn, 800, 12);
    for (EDop kind : {EDop::Box6, EDop::Dop14})
    {
        BlendBoundsState plainA(a.tree, kind), plainB(b.tree, kind), frontA(a.tree, kind),
            frontB(b.tree, kind);
        frontA.SetFrontTracking(true);
        frontB.SetFrontTracking(true);
        std::uint64_t found = 0;
        for (int step = 0; step < 12; ++step)
        {
            const double t = step / 11.0;
            const auto ta =
                TransformsOfMap(TwistBend(0.8 * t, Mat3d::Identity(), Vec3d::Zero()), a.nodes, 1e-4);
            const auto tb = TransformsOfMap(
                TwistBend(-0.5 * t, Eigen::AngleAxisd(0.9 * t, Vec3d::UnitX()).toRotationMatrix(),
                          Vec3d(0.35 - 0.1 * t, 0.1, 0.0)),
                b.nodes, 1e-4);
            ASSERT_TRUE(plainA.SetTransforms(ta) && plainB.SetTransforms(tb));
            ASSERT_TRUE(frontA.SetTransforms(ta) && frontB.SetTransforms(tb));
            std::vector<TrianglePair> plain, front;
            QueryStats stats;
            CollideBlended(plainA, plainB, plain, stats);
            CollideBlended(frontA, frontB, front, stats);
            std::sort(plain.begin(), plain.end());
            std::sort(front.begin(), front.end());
            std::vector<test::Tri> worldA, worldB;
            for (std::uint32_t k = 0; k < a.tree->Topology().GetModel().TriangleCount(); ++k)
            {
                const Triangle& tri = a.tree->TreeTriangle(k);
                worldA.push_back({a.mesh->DeformedPosition(tri[0], ta), a.mesh->DeformedPosition(tri[1], ta),
                                  a.mesh->DeformedPosition(tri[2], ta)});
            }
            for (std::uint32_t k = 0; k < b.tree->Topology().GetModel().TriangleCount(); ++k)
            {
                const Triangle& tri = b.tree->TreeTriangle(k);
                worldB.push_back({b.mesh->DeformedPosition(tri[0], tb), b.mesh->DeformedPosition(tri[1], tb),
                                  b.mesh->DeformedPosition(tri[2], tb)});
            }
            const auto expected = test::BruteForcePairs(worldA, worldB);
            EXPECT_EQ(plain, expected) << "step " << step;
            EXPECT_EQ(front, expected) << "step " << step;
            found += expected.size();
        }
        EXPECT_GT(found, 100u);
        // The front refits the visited coarse nodes by bounding their children: fewer eq. 12 refits.
        EXPECT_GT(frontA.ChildUnions() + frontB.ChildUnions(), 0u);
        EXPECT_LT(frontA.Refits() + frontB.Refits(), plainA.Refits() + plainB.Refits());
    }
}

TEST(BlendedMesh, BadInputIsAClearError)
{
    const auto make = [](std::vector<BlendWeight> inWeights, std::uint32_t inNodes)
    {
        BlendedMeshData data;
        data.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0)};
        data.triangles = {{0, 1, 2}};
        data.nodeCount = inNodes;
        data.weightStart = {0, 1, 2, std::uint32_t(inWeights.size())};
        data.weights = std::move(inWeights);
        return BlendedMesh::Create(std::move(data));
    };
    EXPECT_NO_THROW(make({{0, 1.0f}, {1, 1.0f}, {0, 0.5f}, {1, 0.5f}}, 2));
    EXPECT_THROW(make({{0, 1.0f}, {1, 1.0f}, {0, 0.5f}, {1, 0.4f}}, 2), Error);  // sums to 0.9
    EXPECT_THROW(make({{0, 1.0f}, {3, 1.0f}, {0, 0.5f}, {1, 0.5f}}, 2), Error);  // node out of range
    EXPECT_THROW(make({{0, 1.0f}, {1, 1.0f}, {0, 1.5f}, {1, -0.5f}}, 2), Error); // negative
    EXPECT_THROW(make({{0, 1.0f}, {1, 1.0f}, {1, 0.5f}, {1, 0.5f}}, 2), Error);  // node twice
    EXPECT_THROW(make({{0, 1.0f}, {1, 1.0f}, {0, 0.5f}, {1, 0.5f}}, 0), Error);  // no nodes
}

// The reduced-model form (M = 12n) deforms every vertex as the blend does.
TEST(BlendedMesh, ReducedModelDeformsAsTheBlend)
{
    std::mt19937 random(2);
    const Meshless body = MakeMeshless(EShape::Sphere, 600, 10);
    const Model model = body.mesh->ToReducedModel();
    ASSERT_EQ(model.ModeCount(), 120u);
    std::vector<AffineTransform> transforms(10);
    for (AffineTransform& t : transforms)
    {
        t.linear = test::RandomRotation(random) + 0.2 * Mat3d::Random();
        t.translation = test::RandomPoint(random);
    }
    const std::vector<float> q = body.mesh->ReducedCoordinates(transforms);
    for (std::size_t k = 0; k < model.VertexCount(); ++k)
        EXPECT_LT((model.DeformedPosition(k, q) - body.mesh->DeformedPosition(k, transforms)).norm(), 1e-5)
            << k;
}

} // namespace
} // namespace bdt
