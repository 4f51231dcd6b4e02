#include "support/Conservativeness.h"
#include "support/TestModels.h"

#include <bdt/core/base/Error.h>
#include <bdt/core/bounds/TreeState.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>
#include <limits>

namespace bdt
{
namespace
{

// Models the bounds are checked on: procedural shapes and real meshes from assimp-testmodels.
struct ModelCase
{
    const char* name;
    std::shared_ptr<const BDTree> (*make)();
};

const ModelCase cModels[] = {
    {"chair", [] { return test::ShapeTree("chair", 3000, 10); }},
    {"curtain", [] { return test::ShapeTree("curtain", 2000, 12); }},
    {"torus", [] { return test::ShapeTree("torus", 1500, 6); }},
    {"pawn", [] { return test::ShapeTree("pawn", 1200, 20); }},
    {"spider.obj", [] { return test::AssimpTree("OBJ/spider.obj", 8); }},
    {"Wuson.off", [] { return test::AssimpTree("OFF/Wuson.off", 10); }},
};

// q amplitudes from tiny to half the model size (fields are scaled so |U_ij| ≤ 1 model unit).
const double cAmplitudes[] = {1e-5, 1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.25, 0.5};

class SphereBounds : public ::testing::TestWithParam<ModelCase>
{
};

TEST_P(SphereBounds, EveryDeformedVertexLiesInItsUpdatedSphere)
{
    const auto tree = GetParam().make();
    const test::NodeVertexTable vertices(*tree);
    const double size = test::ModelRadius(tree->GetModel());
    const auto proxies = std::make_shared<const ContactProxies>(tree, tree->LevelCount() - 1);
    std::mt19937 random(42);
    std::uint64_t checks = 0;
    for (EBound bound : {EBound::Paper, EBound::Tight})
    {
        TreeState state(proxies);
        state.SetBound(bound);
        for (double amplitude : cAmplitudes)
        {
            for (int trial = 0; trial < 8; ++trial)
            {
                ASSERT_TRUE(state.SetQ(test::RandomQ(tree->ModeCount(), amplitude * size, random)));
                checks += test::ExpectSpheresContainVertices(state, vertices, tree->NodeCount(),
                                                             std::string(GetParam().name) + " amplitude " +
                                                                 std::to_string(amplitude));
            }
        }
    }
    EXPECT_GT(checks, 10u * tree->NodeCount());
}

TEST_P(SphereBounds, TightBoundIsNeverLooserThanThePapersBound)
{
    const auto tree = GetParam().make();
    const auto proxies = std::make_shared<const ContactProxies>(tree, tree->LevelCount() - 1);
    TreeState paper(proxies);
    TreeState tight(proxies);
    paper.SetBound(EBound::Paper);
    tight.SetBound(EBound::Tight);
    std::mt19937 random(3);
    const double size = test::ModelRadius(tree->GetModel());
    for (int trial = 0; trial < 10; ++trial)
    {
        const auto q = test::RandomQ(tree->ModeCount(), 0.3 * size, random);
        ASSERT_TRUE(paper.SetQ(q));
        ASSERT_TRUE(tight.SetQ(q));
        for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
        {
            const UpdatedSphere a = paper.Sphere(i);
            const UpdatedSphere b = tight.Sphere(i);
            ASSERT_LE(b.radius, a.radius);
            ASSERT_EQ(a.center[0], b.center[0]);
        }
    }
}

TEST_P(SphereBounds, TemporalCoherenceBoundContainsVerticesAfterSmallChanges)
{
    const auto tree = GetParam().make();
    const test::NodeVertexTable vertices(*tree);
    const double size = test::ModelRadius(tree->GetModel());
    const auto proxies = std::make_shared<const ContactProxies>(tree, tree->LevelCount() - 1);
    std::mt19937 random(11);
    for (EBound bound : {EBound::Paper, EBound::Tight})
    {
        TreeState state(proxies);
        state.SetBound(bound);
        state.SetTemporalCoherence(true, 0.05f);
        for (double amplitude : {1e-3, 0.1, 0.4})
        {
            auto q = test::RandomQ(tree->ModeCount(), amplitude * size, random);
            ASSERT_TRUE(state.SetQ(q));
            state.UpdateRange(0, proxies->VisitCount()); // cache every sphere at this q
            const std::uint64_t updated = state.SpheresUpdated();
            for (int step = 0; step < 5; ++step)
            {
                // A small step: δq of about 0.1% of the model size, below the refresh threshold.
                const auto dq = test::RandomQ(tree->ModeCount(), 1e-3 * size / std::sqrt(double(tree->ModeCount())), random);
                for (std::size_t j = 0; j < q.size(); ++j)
                    q[j] += dq[j];
                ASSERT_TRUE(state.SetQ(q));
                test::ExpectSpheresContainVertices(state, vertices, tree->NodeCount(), "coherence");
            }
            // Cached spheres were reused (§3.5): only nodes beyond the cache were recomputed.
            EXPECT_EQ(state.SpheresUpdated(), updated);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Models, SphereBounds, ::testing::ValuesIn(cModels),
                         [](const auto& inInfo)
                         {
                             std::string name = inInfo.param.name;
                             std::replace(name.begin(), name.end(), '.', '_');
                             return name;
                         });

TEST(TreeState, RejectsBadQAndKeepsTheOldOne)
{
    const auto tree = test::ShapeTree("box", 200, 3);
    TreeState state(std::make_shared<const ContactProxies>(tree, 4));
    const float good[] = {0.1f, 0.2f, 0.3f};
    ASSERT_TRUE(state.SetQ(good));
    const float nan[] = {0.1f, std::numeric_limits<float>::quiet_NaN(), 0.3f};
    const float inf[] = {std::numeric_limits<float>::infinity(), 0.0f, 0.0f};
    const float huge[] = {0.0f, 2e12f, 0.0f};
    const float shortQ[] = {0.1f, 0.2f};
    EXPECT_FALSE(state.SetQ(nan));
    EXPECT_FALSE(state.SetQ(inf));
    EXPECT_FALSE(state.SetQ(huge));
    EXPECT_FALSE(state.SetQ(shortQ));
    EXPECT_EQ(state.Q()[1], 0.2f);
    const UpdatedSphere root = state.Sphere(0);
    EXPECT_TRUE(std::isfinite(root.radius));
}

TEST(TreeState, LazyUpdatesHappenOncePerNodeAndStepInAnyOrder)
{
    const auto tree = test::ShapeTree("sphere", 1000, 5);
    const auto proxies = std::make_shared<const ContactProxies>(tree, 6);
    TreeState lazy(proxies);
    TreeState batch(proxies);
    std::mt19937 random(5);
    const auto q = test::RandomQ(5, 0.1, random);
    ASSERT_TRUE(lazy.SetQ(q));
    ASSERT_TRUE(batch.SetQ(q));
    batch.UpdateRange(0, proxies->VisitCount());

    std::vector<std::uint32_t> order(proxies->VisitCount());
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), random);
    for (int pass = 0; pass < 3; ++pass)
    {
        for (std::uint32_t i : order)
        {
            const UpdatedSphere a = lazy.Sphere(i);
            const UpdatedSphere b = batch.Sphere(i);
            ASSERT_EQ(0, std::memcmp(&a, &b, sizeof(a))) << "node " << i;
        }
    }
    EXPECT_EQ(lazy.SpheresUpdated(), proxies->VisitCount()); // once each, whatever the order and repeats
    // A new q is a new stamp: every node is updated again on its next visit, together with its sibling
    // (children are stored side by side, 3 and 4 are the root's grandchildren), each still once.
    ASSERT_TRUE(lazy.SetQ(q));
    lazy.Sphere(3);
    EXPECT_EQ(lazy.SpheresUpdated(), proxies->VisitCount() + 2u);
    const UpdatedSphere sibling = lazy.Sphere(4);
    const UpdatedSphere expected = batch.Sphere(4);
    EXPECT_EQ(0, std::memcmp(&sibling, &expected, sizeof(sibling)));
    EXPECT_EQ(lazy.SpheresUpdated(), proxies->VisitCount() + 2u);
    // The root has no sibling.
    lazy.Sphere(0);
    EXPECT_EQ(lazy.SpheresUpdated(), proxies->VisitCount() + 3u);
    // Nodes below the proxy level are computed without caching.
    const std::uint32_t deep = tree->NodeCount() - 1;
    lazy.Sphere(deep);
    lazy.Sphere(deep);
    EXPECT_EQ(lazy.SpheresUpdated(), proxies->VisitCount() + 5u);
}

// Two threads in `ConcurrentScope`s visit every cached node of one state in their own random orders, over
// many steps, racing on the misses: each gets the serial batch's spheres bit for bit, every node ends up
// cached (a serial visit afterwards computes nothing), and at least each node's update is counted.
TEST(TreeState, ConcurrentScopesGetTheBatchSpheresFromTwoThreads)
{
    const auto tree = test::ShapeTree("chair", 3000, 10);
    const auto proxies = std::make_shared<const ContactProxies>(tree, 9);
    TreeState shared(proxies);
    TreeState batch(proxies);
    const std::uint32_t count = proxies->VisitCount();
    std::mt19937 random(11);
    for (int step = 0; step < 40; ++step)
    {
        const auto q = test::RandomQ(10, 0.2, random);
        ASSERT_TRUE(shared.SetQ(q));
        ASSERT_TRUE(batch.SetQ(q));
        batch.UpdateRange(0, count);
        shared.ResetCounters();
        std::vector<std::uint32_t> orders[2];
        for (auto& order : orders)
        {
            order.resize(count);
            std::iota(order.begin(), order.end(), 0u);
            std::shuffle(order.begin(), order.end(), random);
        }
        std::vector<UpdatedSphere> seen[2];
        const auto visit = [&](int inThread)
        {
            TreeState::ConcurrentScope scope;
            seen[inThread].resize(count);
            for (std::uint32_t node : orders[inThread])
                seen[inThread][node] = shared.Sphere(node);
        };
        {
            std::jthread other(visit, 1);
            visit(0);
        }
        for (int t = 0; t < 2; ++t)
            for (std::uint32_t node = 0; node < count; ++node)
            {
                const UpdatedSphere expected = batch.Sphere(node);
                ASSERT_EQ(0, std::memcmp(&seen[t][node], &expected, sizeof(expected)))
                    << "thread " << t << " node " << node << " step " << step;
            }
        EXPECT_GE(shared.SpheresUpdated(), count);
        const std::uint64_t updated = shared.SpheresUpdated();
        for (std::uint32_t node = 0; node < count; ++node)
        {
            const UpdatedSphere cached = shared.Sphere(node);
            const UpdatedSphere expected = batch.Sphere(node);
            ASSERT_EQ(0, std::memcmp(&cached, &expected, sizeof(expected))) << "node " << node;
        }
        EXPECT_EQ(shared.SpheresUpdated(), updated); // all cached and stamped by the threads
    }
}

TEST(TreeState, CacheIsSizedByTheProxyLevelAndFollowsLiveChanges)
{
    const auto tree = test::ShapeTree("chair", 4000, 10);
    auto shallow = std::make_shared<const ContactProxies>(tree, 4);
    auto deep = std::make_shared<const ContactProxies>(tree, 9);
    TreeState state(shallow);
    const std::size_t shallowBytes = state.MemoryBytes();
    state.SetProxies(deep);
    const std::size_t deepBytes = state.MemoryBytes();
    EXPECT_EQ(deepBytes - shallowBytes, (deep->VisitCount() - shallow->VisitCount()) * (4 * sizeof(float) + sizeof(std::uint32_t)));
    EXPECT_LT(deepBytes, tree->NodeCount() * 20u);
    const auto other = test::ShapeTree("chair", 4000, 10);
    EXPECT_THROW(state.SetProxies(std::make_shared<const ContactProxies>(other, 4)), Error);
}

TEST(TreeState, ThousandsOfBodiesShareOneModelWithinTwoGigabytes)
{
    // The paper's Figure 1: 3601 chairs of about 18k triangles, M = 10, proxies at level 10.
    const auto tree = test::ShapeTree("chair", 18000, 10);
    const auto proxies = std::make_shared<const ContactProxies>(tree, 10);
    std::vector<TreeState> bodies;
    bodies.reserve(3601);
    std::size_t bytes = tree->MemoryBytes() + proxies->MemoryBytes();
    for (int k = 0; k < 3601; ++k)
    {
        bodies.emplace_back(proxies);
        bytes += bodies.back().MemoryBytes();
    }
    EXPECT_LT(bytes, std::size_t(2) << 30);
    // Each body's cache covers only the nodes it can visit, not the whole tree.
    EXPECT_LT(bodies.back().MemoryBytes(), tree->NodeCount() * 4u);
    RecordProperty("bytes_for_3601_bodies", std::to_string(bytes));
}

} // namespace
} // namespace bdt

namespace bdt
{
namespace
{

TEST(TreeState, RigidModelWithNoModesKeepsItsRestSpheres)
{
    const auto tree = test::ShapeTree("torus", 400, 0);
    TreeState state(std::make_shared<const ContactProxies>(tree, 3));
    ASSERT_TRUE(state.SetQ(std::span<const float>()));
    const float one[] = {1.0f};
    EXPECT_FALSE(state.SetQ(one));
    for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
    {
        const UpdatedSphere s = state.Sphere(i);
        const float* row = state.Proxies().Row(i);
        EXPECT_EQ(s.center[0], row[0]);
        EXPECT_EQ(s.center[2], row[2]);
        EXPECT_EQ(s.radius, row[3]);
    }
}

} // namespace
} // namespace bdt
