// The refitted baselines of `bdt-bench curtain` (LayeredSphereTree, AabbTree) against brute force: every
// node's volume holds its deformed triangles, and a ball query finds exactly the triangles that
// `TriangleSphereContact` says it touches, over random deformations and balls.
#include "reference/AabbTree.h"
#include "reference/DeformVertices.h"
#include "reference/LayeredSphereTree.h"
#include "support/TestModels.h"

#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <gtest/gtest.h>
#include <random>

namespace bdt::bench
{
namespace
{

std::vector<std::uint32_t> BruteForceTriangles(const Model& inModel, std::span<const Vec3f> inVertices,
                                               const Sphere& inBall)
{
    std::vector<std::uint32_t> found;
    for (std::size_t k = 0; k < inModel.TriangleCount(); ++k)
    {
        const Triangle& t = inModel.Triangles()[k];
        const Vec3d corners[3] = {inVertices[t[0]].cast<double>(), inVertices[t[1]].cast<double>(),
                                  inVertices[t[2]].cast<double>()};
        if (TriangleSphereContact(corners, inBall))
            found.push_back(std::uint32_t(k));
    }
    return found;
}

struct Deformed
{
    std::shared_ptr<const BDTree> tree;
    std::vector<Vec3f> vertices;
};

Deformed RandomDeformation(const char* inShape, std::uint32_t inTriangles, std::mt19937& ioRandom)
{
    Deformed deformed{test::ShapeTree(inShape, inTriangles, 6), {}};
    const Model& model = deformed.tree->GetModel();
    const std::vector<float> q = test::RandomQ(6, 0.3 * test::ModelRadius(model), ioRandom);
    deformed.vertices.resize(model.VertexCount());
    DeformVertices(model, q, deformed.vertices);
    return deformed;
}

TEST(DeformVerticesTest, MatchesModelDeformedPosition)
{
    std::mt19937 random(7);
    const auto tree = test::ShapeTree("torus", 800, 6);
    const Model& model = tree->GetModel();
    const std::vector<float> q = test::RandomQ(6, 0.2, random);
    std::vector<Vec3f> vertices(model.VertexCount());
    DeformVertices(model, q, vertices);
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
        ASSERT_LT((vertices[i].cast<double>() - model.DeformedPosition(i, q)).norm(), 1e-5) << "vertex " << i;
}

TEST(LayeredSphereTreeTest, EverySphereHoldsItsTrianglesAndEncloseItsChildren)
{
    std::mt19937 random(11);
    for (const char* shape : {"chair", "torus", "curtain"})
        for (int trial = 0; trial < 3; ++trial)
        {
            const Deformed d = RandomDeformation(shape, 1500, random);
            LayeredSphereTree layered(d.tree);
            layered.Refit(d.vertices);
            for (std::uint32_t node = 0; node < d.tree->NodeCount(); ++node)
            {
                const Sphere sphere = layered.NodeSphere(node);
                for (const std::uint32_t v : test::NodeVertices(*d.tree, node))
                    ASSERT_LE((d.vertices[v].cast<double>() - sphere.center).norm(), sphere.radius)
                        << shape << " node " << node << " vertex " << v;
                const BDTreeNode& topology = d.tree->Node(node);
                if (topology.IsLeaf())
                    continue;
                // Layered: the parent encloses both children's spheres.
                for (const std::uint32_t child : {topology.firstChild, topology.firstChild + 1})
                {
                    const Sphere inner = layered.NodeSphere(child);
                    ASSERT_LE((inner.center - sphere.center).norm() + inner.radius,
                              sphere.radius * (1.0 + 1e-6))
                        << shape << " node " << node << " child " << child;
                }
            }
        }
}

TEST(AabbTreeTest, EveryBoxHoldsItsTrianglesAndItsChildren)
{
    std::mt19937 random(13);
    for (const char* shape : {"chair", "torus", "curtain"})
    {
        const Deformed d = RandomDeformation(shape, 1500, random);
        AabbTree aabb(d.tree);
        aabb.Refit(d.vertices);
        for (std::uint32_t node = 0; node < d.tree->NodeCount(); ++node)
        {
            const auto box = aabb.NodeBox(node);
            for (const std::uint32_t v : test::NodeVertices(*d.tree, node))
                for (int axis = 0; axis < 3; ++axis)
                {
                    ASSERT_LE(box[axis], d.vertices[v][axis]) << shape << " node " << node;
                    ASSERT_GE(box[3 + axis], d.vertices[v][axis]) << shape << " node " << node;
                }
        }
        // The root is the vertices' exact box: the refit is tight, not merely conservative.
        Vec3f lo = d.vertices.front(), hi = d.vertices.front();
        for (const Vec3f& v : d.vertices)
        {
            lo = lo.cwiseMin(v);
            hi = hi.cwiseMax(v);
        }
        for (int axis = 0; axis < 3; ++axis)
        {
            EXPECT_EQ(aabb.NodeBox(0)[axis], lo[axis]) << shape;
            EXPECT_EQ(aabb.NodeBox(0)[3 + axis], hi[axis]) << shape;
        }
    }
}

TEST(RefitTreesTest, BallQueriesFindExactlyWhatBruteForceFinds)
{
    std::mt19937 random(17);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::size_t nonEmpty = 0;
    for (const char* shape : {"chair", "torus", "curtain"})
        for (int trial = 0; trial < 4; ++trial)
        {
            const Deformed d = RandomDeformation(shape, 2000, random);
            const Model& model = d.tree->GetModel();
            LayeredSphereTree layered(d.tree);
            AabbTree aabb(d.tree);
            layered.Refit(d.vertices);
            aabb.Refit(d.vertices);
            const double size = test::ModelRadius(model);
            for (int b = 0; b < 25; ++b)
            {
                const Vec3f& anchor = d.vertices[random() % d.vertices.size()];
                const Sphere ball{anchor.cast<double>() +
                                      0.1 * size * Vec3d(unit(random), unit(random), unit(random)),
                                  size * (0.02 + 0.2 * (unit(random) + 1.0))};
                const std::vector<std::uint32_t> expected = BruteForceTriangles(model, d.vertices, ball);
                nonEmpty += expected.empty() ? 0 : 1;
                for (int method = 0; method < 2; ++method)
                {
                    std::vector<std::uint32_t> found;
                    QueryStats stats;
                    if (method == 0)
                        layered.Query(ball, d.vertices, found, stats);
                    else
                        aabb.Query(ball, d.vertices, found, stats);
                    std::sort(found.begin(), found.end());
                    ASSERT_EQ(found, expected)
                        << shape << " trial " << trial << " ball " << b << " method " << method;
                    EXPECT_EQ(stats.contacts, expected.size());
                    EXPECT_GE(stats.triangleTests, expected.size());
                    EXPECT_GE(stats.overlapTests, 1u);
                }
            }
        }
    EXPECT_GT(nonEmpty, 100u); // the balls mostly touch the surface: the comparison is not vacuous
}

TEST(RefitTreesTest, NoTreeIsAnError)
{
    EXPECT_THROW(LayeredSphereTree(nullptr), Error);
    EXPECT_THROW(AabbTree(nullptr), Error);
}

} // namespace
} // namespace bdt::bench
