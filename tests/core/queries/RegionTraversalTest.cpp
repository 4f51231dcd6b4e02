#include "core/queries/RegionTraversal.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <support/QueryOracles.h>
#include <support/TestModels.h>
#include <utility>

namespace bdt
{
namespace
{

// A body for the traversal tests: a tree, its three region kinds at one level, and a step's q and pose.
struct RegionBody
{
    std::shared_ptr<const BDTree> tree;
    SphereRegions spheres;
    BoxRegions boxes;
    DistanceRegions distances;
    std::vector<float> q;
    std::vector<Vec3f> deformed; ///< Rest frame, for the Distance Hierarchy.
    Pose pose;

    RegionBody(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel)
        : tree(inTree), spheres(inTree, inLevel),
          boxes(std::make_shared<const BDAabbTree>(BDAabbTree::Build(inTree)), inLevel),
          distances(std::make_shared<const DistanceHierarchy>(DistanceHierarchy::Build(inTree)), inLevel)
    {
    }

    void Step(std::vector<float> inQ, const Pose& inPose)
    {
        q = std::move(inQ);
        pose = inPose;
        const Model& model = tree->GetModel();
        deformed.resize(model.VertexCount());
        for (std::size_t v = 0; v < deformed.size(); ++v)
            deformed[v] = model.DeformedPosition(v, q).cast<float>();
        ASSERT_TRUE(spheres.SetStep(q, pose));
        ASSERT_TRUE(boxes.SetStep(q, pose));
        ASSERT_TRUE(distances.SetStep(deformed, pose));
    }

    // Every triangle in world, deformed as the regions see it: p + Uq in double for the BD kinds, the float
    // positions for the Distance Hierarchy (both are inside their bounds; the pairs below use the doubles and
    // check the Distance Hierarchy against its own floats).
    std::vector<test::Tri> WorldTriangles(bool inFloatPositions) const
    {
        const Model& model = tree->GetModel();
        std::vector<test::Tri> triangles;
        for (const Triangle& t : model.Triangles())
        {
            test::Tri world;
            for (int k = 0; k < 3; ++k)
                world[k] = pose.Apply(inFloatPositions ? deformed[t[k]].cast<double>()
                                                       : model.DeformedPosition(t[k], q));
            triangles.push_back(world);
        }
        return triangles;
    }

    // The region (node at the level, or leaf above it) covering tree triangle `inTriangle`.
    std::uint32_t RegionOf(std::uint32_t inTriangle) const
    {
        std::uint32_t node = 0;
        while (!spheres.IsRegion(node))
        {
            const std::uint32_t child = tree->Node(node).firstChild;
            const BDTreeNode& left = tree->Node(child);
            node = inTriangle < left.firstTriangle + left.triangleCount ? child : child + 1;
        }
        return node;
    }
};

template <class Regions>
std::set<std::pair<std::uint32_t, std::uint32_t>> Collide(Regions& ioA, Regions& ioB, RegionStats& ioStats)
{
    std::vector<RegionPair> pairs;
    CollideRegions(ioA, ioB, pairs, ioStats);
    std::set<std::pair<std::uint32_t, std::uint32_t>> unique;
    for (const RegionPair& pair : pairs)
    {
        EXPECT_TRUE(ioA.IsRegion(pair.nodeA) && ioB.IsRegion(pair.nodeB));
        EXPECT_TRUE(unique.insert({pair.nodeA, pair.nodeB}).second) << "pair reported twice";
    }
    EXPECT_EQ(ioStats.regionPairs, pairs.size());
    return unique;
}

// Conservativeness by brute force, for each kind: every pair of intersecting deformed triangles (all pairs
// tested) lies under a reported region pair, over random deformations and placements that interpenetrate.
TEST(RegionTraversal, EveryIntersectingTrianglePairLiesUnderAReportedPair)
{
    std::mt19937 random(11);
    RegionBody a(test::ShapeTree("pawn", 900, 5), 6);
    RegionBody b(test::ShapeTree("chair", 700, 5), 5);
    const double sizeA = test::ModelRadius(a.tree->GetModel());
    std::uint64_t triangleContacts = 0;
    for (int trial = 0; trial < 12; ++trial)
    {
        a.Step(test::RandomQ(5, 0.05 * sizeA * (trial % 4), random),
               {test::RandomRotation(random), Vec3d::Zero()});
        b.Step(test::RandomQ(5, 0.05 * sizeA * (trial % 3), random),
               {test::RandomRotation(random), test::RandomPoint(random, 0.3 * sizeA)});
        RegionStats sphereStats, boxStats, distanceStats;
        const auto spherePairs = Collide(a.spheres, b.spheres, sphereStats);
        const auto boxPairs = Collide(a.boxes, b.boxes, boxStats);
        const auto distancePairs = Collide(a.distances, b.distances, distanceStats);

        for (bool floats : {false, true})
        {
            const auto pairs = test::BruteForcePairs(a.WorldTriangles(floats), b.WorldTriangles(floats));
            triangleContacts += pairs.size();
            for (const TrianglePair& pair : pairs)
            {
                const std::pair<std::uint32_t, std::uint32_t> region{a.RegionOf(pair.triangleA),
                                                                     b.RegionOf(pair.triangleB)};
                if (floats)
                    EXPECT_TRUE(distancePairs.count(region))
                        << "trial " << trial << ": distance hierarchy missed a contact";
                else
                {
                    EXPECT_TRUE(spherePairs.count(region))
                        << "trial " << trial << ": spheres missed a contact";
                    EXPECT_TRUE(boxPairs.count(region)) << "trial " << trial << ": boxes missed a contact";
                }
            }
        }
        // Every reported pair's own bounds overlap (the traversal reports nothing its test rejects).
        for (const auto& [nodeA, nodeB] : boxPairs)
            EXPECT_TRUE(
                BoxOverlapTest(a.pose.rotation, b.pose.rotation)(a.boxes.Bound(nodeA), b.boxes.Bound(nodeB)));
        for (const auto& [nodeA, nodeB] : spherePairs)
            EXPECT_TRUE(BallsOverlap(a.spheres.Bound(nodeA), b.spheres.Bound(nodeB)));
    }
    EXPECT_GT(triangleContacts, 50u) << "the placements must make contacts for the test to mean anything";
}

// Far apart: one root test, nothing reported, one bound updated on each side.
TEST(RegionTraversal, SeparatedBodiesCostOneTest)
{
    RegionBody a(test::ShapeTree("torus", 500, 3), 4);
    RegionBody b(test::ShapeTree("torus", 500, 3), 4);
    a.Step({0.01f, 0.0f, -0.02f}, Pose::Identity());
    b.Step({0.0f, 0.03f, 0.0f}, {Mat3d::Identity(), Vec3d(5.0, 0.0, 0.0)});
    RegionStats stats;
    EXPECT_TRUE(Collide(a.boxes, b.boxes, stats).empty());
    EXPECT_TRUE(Collide(a.spheres, b.spheres, stats).empty());
    EXPECT_TRUE(Collide(a.distances, b.distances, stats).empty());
    EXPECT_EQ(stats.overlapTests, 3u);
    EXPECT_EQ(a.boxes.Updates() + a.spheres.Updates() + a.distances.Updates(), 3u);
}

// The box test against an independent oracle: overlapping iff some point lies in both boxes. Points sampled
// in A that lie in B prove overlap (the test must say so); a separating plane found among the 15 candidate
// axes by projecting all 8 corners proves separation (the test must say so).
TEST(RegionTraversal, BoxTestMatchesCornerProjections)
{
    std::mt19937 random(21);
    int overlapping = 0, separated = 0;
    for (int trial = 0; trial < 4000; ++trial)
    {
        const Mat3d ra = test::RandomRotation(random), rb = test::RandomRotation(random);
        const WorldBox a{test::RandomPoint(random, 0.3),
                         Vec3d(test::Uniform(random, 0.01, 0.4), test::Uniform(random, 0.01, 0.4),
                               test::Uniform(random, 0.01, 0.4))};
        const WorldBox b{test::RandomPoint(random, 1.0),
                         Vec3d(test::Uniform(random, 0.01, 0.4), test::Uniform(random, 0.01, 0.4),
                               test::Uniform(random, 0.01, 0.4))};
        const auto corners = [](const WorldBox& inBox, const Mat3d& inAxes)
        {
            std::vector<Vec3d> out;
            for (int k = 0; k < 8; ++k)
                out.push_back(inBox.center + inAxes * Vec3d((k & 1 ? 1 : -1) * inBox.halfExtents[0],
                                                            (k & 2 ? 1 : -1) * inBox.halfExtents[1],
                                                            (k & 4 ? 1 : -1) * inBox.halfExtents[2]));
            return out;
        };
        const auto ca = corners(a, ra), cb = corners(b, rb);
        bool splitFound = false;
        std::vector<Vec3d> axes;
        for (int i = 0; i < 3; ++i)
        {
            axes.push_back(ra.col(i));
            axes.push_back(rb.col(i));
            for (int j = 0; j < 3; ++j)
                axes.push_back(ra.col(i).cross(rb.col(j)));
        }
        for (const Vec3d& axis : axes)
        {
            if (axis.norm() < 1e-6)
                continue;
            double loA = 1e30, hiA = -1e30, loB = 1e30, hiB = -1e30;
            for (int k = 0; k < 8; ++k)
            {
                loA = std::min(loA, ca[k].dot(axis));
                hiA = std::max(hiA, ca[k].dot(axis));
                loB = std::min(loB, cb[k].dot(axis));
                hiB = std::max(hiB, cb[k].dot(axis));
            }
            if (hiA < loB - 1e-9 || hiB < loA - 1e-9)
                splitFound = true;
        }
        const bool result = BoxOverlapTest(ra, rb)(a, b);
        EXPECT_EQ(result, !splitFound) << "trial " << trial;
        (result ? overlapping : separated)++;
    }
    EXPECT_GT(overlapping, 300);
    EXPECT_GT(separated, 300);
}

// Bad steps are refused and change nothing: wrong-sized, NaN or huge q, a NaN pose, a zero scale, NaN
// positions.
TEST(RegionTraversal, BadStepsAreRefused)
{
    RegionBody a(test::ShapeTree("box", 300, 2), 3);
    a.Step({0.01f, 0.02f}, Pose::Identity());
    const std::vector<float> nan = {std::nanf(""), 0.0f};
    EXPECT_FALSE(a.spheres.SetStep(nan, Pose::Identity()));
    EXPECT_FALSE(a.boxes.SetStep(std::vector<float>{1e20f, 0.0f}, Pose::Identity()));
    EXPECT_FALSE(a.boxes.SetStep(std::vector<float>{0.0f}, Pose::Identity()));
    Pose bad;
    bad.translation.x() = std::nan("");
    EXPECT_FALSE(a.spheres.SetStep(a.q, bad));
    EXPECT_FALSE(a.boxes.SetStep(a.q, Pose::Identity(), 0.0));
    std::vector<Vec3f> positions = a.deformed;
    positions[3].y() = std::nanf("");
    EXPECT_FALSE(a.distances.SetStep(positions, Pose::Identity()));
    positions.pop_back();
    EXPECT_FALSE(a.distances.SetStep(positions, Pose::Identity()));
    // The last good step stands: its bounds are finite.
    EXPECT_TRUE(std::isfinite(a.distances.Bound(0).radius));
    EXPECT_TRUE(a.boxes.Bound(0).halfExtents.allFinite());
    EXPECT_TRUE(std::isfinite(a.spheres.Bound(0).radius));
}

} // namespace
} // namespace bdt
