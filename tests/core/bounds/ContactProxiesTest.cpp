#include "support/Conservativeness.h"
#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/bounds/TreeState.h>

#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <span>
#include <iostream>

namespace bdt
{
namespace
{

// Every node above the proxies must contain, as updated spheres, all of its descendant proxies (§3.4).
std::uint64_t ExpectProxiesWrapped(TreeState& ioState, const std::string& inContext)
{
    const ContactProxies& proxies = ioState.Proxies();
    const BDTree& tree = ioState.Tree();
    std::uint64_t checks = 0;
    int failures = 0;
    for (std::uint32_t n = 0; n < proxies.WrappedCount(); ++n)
    {
        const UpdatedSphere outer = ioState.Sphere(n);
        const Vec3d outerCenter(outer.center[0], outer.center[1], outer.center[2]);
        std::vector<std::uint32_t> stack = {n};
        while (!stack.empty())
        {
            const std::uint32_t d = stack.back();
            stack.pop_back();
            if (proxies.IsProxy(d))
            {
                const UpdatedSphere inner = ioState.Sphere(d);
                const Vec3d innerCenter(inner.center[0], inner.center[1], inner.center[2]);
                const double reach = (innerCenter - outerCenter).norm() + inner.radius;
                ++checks;
                if (reach > outer.radius && failures++ < 5)
                    ADD_FAILURE() << inContext << ": proxy " << d << " sticks out of node " << n << " by "
                                  << reach - outer.radius;
                continue;
            }
            const BDTreeNode& node = tree.Node(d);
            stack.push_back(node.firstChild);
            stack.push_back(node.firstChild + 1);
        }
    }
    return checks;
}

TEST(ContactProxies, CoarseNodesWrapTheirProxiesUnderDeformation)
{
    for (const char* shape : {"chair", "torus", "curtain"})
    {
        const auto tree = test::ShapeTree(shape, 2500, 10);
        const test::NodeVertexTable vertices(*tree);
        const double size = test::ModelRadius(tree->GetModel());
        std::mt19937 random(9);
        for (std::uint32_t level : {1u, 3u, 6u, 9u})
        {
            const auto proxies = std::make_shared<const ContactProxies>(tree, level);
            for (EBound bound : {EBound::Paper, EBound::Tight})
            {
                for (bool coherence : {false, true})
                {
                    TreeState state(proxies);
                    state.SetBound(bound);
                    state.SetTemporalCoherence(coherence, 0.05f);
                    std::uint64_t checks = 0;
                    for (double amplitude : {1e-4, 1e-2, 0.2, 0.5})
                    {
                        auto q = test::RandomQ(10, amplitude * size, random);
                        ASSERT_TRUE(state.SetQ(q));
                        if (coherence)
                        {
                            // Prime the cache, then move q a little so the eq. 11 enlargement is in play.
                            state.UpdateRange(0, proxies->VisitCount());
                            for (float& value : q)
                                value += static_cast<float>(1e-4 * size);
                            ASSERT_TRUE(state.SetQ(q));
                        }
                        const std::string context = std::string(shape) + " L=" + std::to_string(level) +
                                                    " amplitude " + std::to_string(amplitude);
                        checks += ExpectProxiesWrapped(state, context);
                        test::ExpectSpheresContainVertices(state, vertices, proxies->VisitCount(), context);
                    }
                    EXPECT_GT(checks, 0u);
                }
            }
        }
    }
}

TEST(ContactProxies, WrapsOnlyNodesAboveTheProxies)
{
    const auto tree = test::ShapeTree("pawn", 1000, 4);
    const ContactProxies proxies(tree, 5);
    EXPECT_EQ(proxies.Level(), 5u);
    EXPECT_EQ(proxies.WrappedCount(), tree->LevelBegin(5));
    EXPECT_EQ(proxies.VisitCount(), tree->LevelEnd(5));
    for (std::uint32_t i = 0; i < tree->NodeCount(); ++i)
    {
        const float* own = tree->Row(i);
        const float* used = proxies.Row(i);
        if (i >= proxies.WrappedCount() || tree->Node(i).IsLeaf())
        {
            // A leaf above L is a proxy itself: the tree's row, unchanged.
            for (std::uint32_t k = 0; k < tree->RowStride(); ++k)
                ASSERT_EQ(used[k], own[k]) << "node " << i << " entry " << k;
            continue;
        }
        // The tree's radii are those of the minimal spheres of the node's vertices (R) and of their
        // displacements per mode (ΔR_j): no wrap of the proxies, which enclose those, can be smaller.
        for (std::uint32_t j = 0; j <= 4; ++j)
            ASSERT_GE(used[4 * j + 3], own[4 * j + 3]) << "node " << i << " column " << j;
    }
    // Asking for a level below the deepest clamps to the deepest.
    EXPECT_EQ(ContactProxies(tree, 1000).Level(), tree->LevelCount() - 1);
}

// Each coarse node is measured against its proxies directly, not composed level by level from its children
// (which adds the triangle inequality's slack at every level): its rest radius is at most what the node's own
// centre gives, R_min + the largest proxy radius below it (every proxy centre lies in the node's minimal
// sphere), and for the chair's root, close to the minimal sphere itself.
TEST(ContactProxies, CoarseSpheresStayCloseToTheMinimalSpheres)
{
    const auto tree = test::ShapeTree("chair", 18000, 10);
    // The composed wrap gave 1.66 at L = 10.
    for (const auto& [level, bound] : {std::pair{4u, 1.08}, std::pair{10u, 1.02}})
    {
        const ContactProxies proxies(tree, level);
        for (std::uint32_t i = 0; i < proxies.WrappedCount(); ++i)
        {
            double largestProxy = 0.0;
            std::vector<std::uint32_t> stack = {i};
            while (!stack.empty())
            {
                const std::uint32_t d = stack.back();
                stack.pop_back();
                if (proxies.IsProxy(d))
                {
                    largestProxy = std::max(largestProxy, double(tree->Row(d)[3]));
                    continue;
                }
                stack.push_back(tree->Node(d).firstChild);
                stack.push_back(tree->Node(d).firstChild + 1);
            }
            ASSERT_LE(proxies.Row(i)[3], (tree->Row(i)[3] + largestProxy) * (1.0 + 1e-5))
                << "L=" << level << " node " << i;
        }
        const double rootRatio = double(proxies.Row(0)[3]) / double(tree->Row(0)[3]);
        std::cout << "[ info ] L=" << level << ": wrapped root radius / minimal " << rootRatio << "\n";
        EXPECT_LT(rootRatio, bound);
    }
}

// `ProxyRadiusBounds` bound every proxy's updated radius, R + ΔRᵀ|q| at most e_0 + Σ e_j|q_j|, and its change
// between two q, at most max(Σ e_j|Δq_j|, e_{M+1}‖Δq‖₂), under both bounds: what the pair cache's skin test
// relies on. Checked on the float spheres the queries use, against every proxy for random q pairs (small and
// large steps).
TEST(ContactProxies, ProxyRadiusBoundsBoundEveryProxy)
{
    const auto tree = test::ShapeTree("chair", 2500, 8);
    const double size = test::ModelRadius(tree->GetModel());
    const auto proxies = std::make_shared<const ContactProxies>(tree, 6);
    const std::span<const float> bounds = proxies->ProxyRadiusBounds();
    const std::uint32_t m = tree->ModeCount();
    ASSERT_EQ(bounds.size(), m + 2u);
    std::mt19937 random(3);
    double usedChange = 0.0; // the largest share of the change bound a proxy's radius used
    for (EBound bound : {EBound::Paper, EBound::Tight})
    {
        TreeState before(proxies), after(proxies);
        before.SetBound(bound);
        after.SetBound(bound);
        for (int trial = 0; trial < 40; ++trial)
        {
            const std::vector<float> q0 = test::RandomQ(m, 0.1 * size, random);
            std::vector<float> q1 = q0;
            const double step = trial % 2 == 0 ? 1e-3 * size : 0.05 * size;
            const std::vector<float> dq = test::RandomQ(m, step, random);
            for (std::uint32_t j = 0; j < m; ++j)
                q1[j] += dq[j];
            ASSERT_TRUE(before.SetQ(q0));
            ASSERT_TRUE(after.SetQ(q1));
            double largest = bounds[0], grown = 0.0, squared = 0.0;
            for (std::uint32_t j = 0; j < m; ++j)
            {
                const double d = std::abs(double(q1[j]) - double(q0[j]));
                largest += double(bounds[j + 1]) * std::abs(double(q1[j]));
                grown += double(bounds[j + 1]) * d;
                squared += d * d;
            }
            const double change = std::max(grown, double(bounds[m + 1]) * std::sqrt(squared));
            for (std::uint32_t node : test::ProxyNodes(*proxies))
            {
                const double r0 = before.ComputeSphereNow(node).radius;
                const double r1 = after.ComputeSphereNow(node).radius;
                ASSERT_LE(r1, largest * (1.0 + 1e-5)) << "proxy " << node;
                ASSERT_LE(std::abs(r1 - r0), change + 1e-5 * largest) << "proxy " << node;
                if (change > 0.0)
                    usedChange = std::max(usedChange, std::abs(r1 - r0) / change);
            }
        }
    }
    // Not vacuous: some proxy's radius changes by a good share of the bound.
    std::cout << "[ info ] largest share of the change bound used: " << usedChange << "\n";
    EXPECT_GT(usedChange, 0.3);
}

} // namespace
} // namespace bdt
