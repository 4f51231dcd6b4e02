// CollectProxies and the scale / inflate of DeformedBody in the proxy-level queries, against brute force over
// every proxy node of the level (TreeState::Sphere, scaled, posed, inflated by hand).

#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include <bdt/core/queries/TreeQueries.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;

// A QueryBody with a uniform scale and an inflation, as the Bullet layer sets them.
struct ScaledBody
{
    QueryBody body;
    double scale = 1.0;
    double inflate = 0.0;

    ScaledBody(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel) : body(std::move(inTree), inLevel)
    {
    }
    DeformedBody Deformed() const { return {body.state.get(), body.pose, scale, inflate}; }
    /// The brute-force world sphere of a node: x ↦ pose(scale·x), radius·scale + inflate.
    Sphere WorldSphere(std::uint32_t inNode) const
    {
        const UpdatedSphere s = body.state->Sphere(inNode);
        return {body.pose.Apply(scale * Vec3d(s.center[0], s.center[1], s.center[2])),
                scale * double(s.radius) + inflate};
    }
    /// Every deformed vertex of every triangle, scaled and posed, with its triangle (tree order).
    std::vector<std::pair<Vec3d, std::uint32_t>> WorldVertices() const
    {
        std::vector<std::pair<Vec3d, std::uint32_t>> vertices;
        for (std::uint32_t t = 0; t < body.tree->GetModel().TriangleCount(); ++t)
        {
            Vec3d v[3];
            DeformedTriangle(*body.state, t, v);
            for (const Vec3d& p : v)
                vertices.push_back({body.pose.Apply(scale * p), t});
        }
        return vertices;
    }
    void Randomise(double inAmplitude, std::mt19937& ioRandom)
    {
        const std::uint32_t m = body.tree->ModeCount();
        ASSERT_TRUE(body.state->SetQ(RandomQ(m, inAmplitude * body.Size(), ioRandom)));
        body.pose.rotation = RandomRotation(ioRandom);
        body.pose.translation = RandomPoint(ioRandom, 3.0);
        scale = std::exp(Uniform(ioRandom, std::log(0.3), std::log(3.0)));
        inflate = Uniform(ioRandom, 0.0, 0.1) * scale * body.Size();
    }
};

double BoxDistance(const Aabb& inBox, const Vec3d& inPoint)
{
    return (inPoint - inPoint.cwiseMax(inBox.min()).cwiseMin(inBox.max())).norm();
}

// A box around a random deformed vertex, sized relative to the (scaled) body.
Aabb NearBox(const ScaledBody& inBody, const std::vector<std::pair<Vec3d, std::uint32_t>>& inVertices,
             std::mt19937& ioRandom)
{
    const double size = inBody.scale * inBody.body.Size();
    const Vec3d center =
        inVertices[ioRandom() % inVertices.size()].first + 0.2 * size * RandomPoint(ioRandom);
    const Vec3d half = size * Vec3d(Uniform(ioRandom, 0.01, 0.4), Uniform(ioRandom, 0.01, 0.4),
                                    Uniform(ioRandom, 0.01, 0.4));
    return Aabb(center - half, center + half);
}

TEST(CollectProxies, EqualsBruteForceOverEveryProxy)
{
    std::mt19937 random(31);
    std::uint64_t reported = 0, missedByBox = 0;
    for (const char* shape : {"chair", "torus", "curtain"})
    {
        ScaledBody a(ShapeTree(shape, 1200, 6), 2);
        for (double amplitude : {1e-3, 0.05, 0.3})
        {
            for (std::uint32_t level : {1u, 3u, 5u, 8u})
            {
                a.body.SetLevel(level);
                a.Randomise(amplitude, random);
                const auto vertices = a.WorldVertices();
                for (int trial = 0; trial < 4; ++trial)
                {
                    const Aabb box = NearBox(a, vertices, random);
                    const std::string context = std::string(shape) + " L=" + std::to_string(level) +
                                                " amplitude " + std::to_string(amplitude) + " trial " +
                                                std::to_string(trial);
                    std::vector<ProxySphere> found(1); // appends: the first entry stays
                    found[0].node = 12345;
                    QueryStats stats;
                    CollectProxies(a.Deformed(), box, found, stats);
                    ASSERT_EQ(found[0].node, 12345u) << context;
                    found.erase(found.begin());
                    EXPECT_EQ(stats.contacts, found.size()) << context;
                    std::map<std::uint32_t, ProxySphere> byNode;
                    for (const ProxySphere& proxy : found)
                        EXPECT_TRUE(byNode.emplace(proxy.node, proxy).second) << context << ": duplicate";
                    // Brute force: every proxy node of the level, its updated world sphere against the box.
                    for (std::uint32_t n : ProxyNodes(a.body.state->Proxies()))
                    {
                        const Sphere s = a.WorldSphere(n);
                        const double gap = BoxDistance(box, s.center) - s.radius;
                        const auto it = byNode.find(n);
                        if (gap <= 0.0)
                        {
                            ASSERT_NE(it, byNode.end())
                                << context << ": proxy " << n << " overlaps by " << -gap;
                        }
                        else if (it != byNode.end())
                        {
                            // Only the documented slack (1e-9 of the radius, 1e-13 of the position) may add.
                            EXPECT_LE(gap, 1e-9 * s.radius + 1e-13 * s.center.cwiseAbs().maxCoeff() + 1e-15)
                                << context << ": proxy " << n << " reported " << gap << " away";
                        }
                        if (it != byNode.end())
                        {
                            EXPECT_LT((it->second.center - s.center).norm(), 1e-12 * (1.0 + s.center.norm()))
                                << context;
                            EXPECT_NEAR(it->second.radius, s.radius, 1e-12 * s.radius) << context;
                            byNode.erase(it);
                        }
                        else if (gap > 0.0)
                        {
                            ++missedByBox;
                        }
                    }
                    EXPECT_TRUE(byNode.empty()) << context << ": reported nodes that are not proxies";
                    reported += found.size();
                }
            }
        }
    }
    EXPECT_GT(reported, 500u);
    EXPECT_GT(missedByBox, 5000u) << "the boxes should also leave many proxies out";
}

TEST(CollectProxies, EmptyBoxAndFarBoxReportNothing)
{
    ScaledBody a(ShapeTree("pawn", 600, 4), 4);
    std::mt19937 random(32);
    a.Randomise(0.05, random);
    std::vector<ProxySphere> found;
    QueryStats stats;
    CollectProxies(a.Deformed(), Aabb(), found, stats); // default-constructed: empty
    EXPECT_TRUE(found.empty());
    const Vec3d far = a.body.pose.translation + Vec3d(100.0, 0.0, 0.0);
    CollectProxies(a.Deformed(), Aabb(far, far + Vec3d::Ones()), found, stats);
    EXPECT_TRUE(found.empty());
    EXPECT_EQ(stats.contacts, 0u);
    EXPECT_EQ(stats.overlapTests, 1u) << "the root sphere alone rejects a far box";
    // A box around the whole body reports every proxy.
    const auto vertices = a.WorldVertices();
    Aabb all;
    for (const auto& [p, t] : vertices)
        all.extend(p);
    all.min() -= Vec3d::Constant(0.5);
    all.max() += Vec3d::Constant(0.5);
    CollectProxies(a.Deformed(), all, found, stats);
    EXPECT_EQ(found.size(), ProxyNodes(a.body.state->Proxies()).size());
}

// Every scaled, posed deformed vertex lies in the world sphere of its proxy; so a primitive containing the
// vertex overlaps that sphere, and the proxy must be reported.
TEST(CollideProxies, ScaledBodyCoversEveryVertexInsideThePrimitive)
{
    std::mt19937 random(33);
    std::uint64_t covered = 0;
    for (const char* shape : {"chair", "sphere", "curtain"})
    {
        ScaledBody a(ShapeTree(shape, 1000, 6), 3);
        for (double amplitude : {1e-3, 0.1, 0.4})
        {
            for (std::uint32_t level : {2u, 5u})
            {
                a.body.SetLevel(level);
                a.Randomise(amplitude, random);
                a.inflate = 0.0; // containment must hold on the bare spheres
                const auto vertices = a.WorldVertices();
                const std::string context =
                    std::string(shape) + " L=" + std::to_string(level) + " scale " + std::to_string(a.scale);
                for (const auto& [p, t] : vertices)
                {
                    const Sphere s = a.WorldSphere(ProxyOf(a.body.state->Proxies(), t));
                    ASSERT_LE((p - s.center).norm(), s.radius * (1.0 + 1e-9) + 1e-12) << context;
                }
                const double size = a.scale * a.body.Size();
                for (int trial = 0; trial < 4; ++trial)
                {
                    const Sphere ball{vertices[random() % vertices.size()].first +
                                          0.1 * size * RandomPoint(random),
                                      Uniform(random, 0.05, 0.3) * size};
                    std::vector<ProxyContact> contacts;
                    QueryStats stats;
                    CollideProxies(a.Deformed(), ball, contacts, stats);
                    std::set<std::uint32_t> nodes;
                    for (const ProxyContact& contact : contacts)
                        nodes.insert(contact.nodeA);
                    for (const auto& [p, t] : vertices)
                    {
                        if ((p - ball.center).norm() > ball.radius)
                            continue;
                        ASSERT_TRUE(nodes.count(ProxyOf(a.body.state->Proxies(), t)))
                            << context << ": vertex of triangle " << t
                            << " inside the ball, proxy not reported";
                        ++covered;
                    }
                }
            }
        }
    }
    EXPECT_GT(covered, 1000u);
}

TEST(CollideProxies, InflateAddsExactlyToDepths)
{
    std::mt19937 random(34);
    for (const char* shape : {"torus", "chair"})
    {
        ScaledBody a(ShapeTree(shape, 800, 5), 4);
        ScaledBody b(ShapeTree("sphere", 500, 3), 4);
        for (int trial = 0; trial < 6; ++trial)
        {
            a.Randomise(0.05, random);
            b.Randomise(0.05, random);
            b.body.pose.translation =
                a.body.pose.translation + 0.4 * a.scale * a.body.Size() * RandomDirection(random);
            const double inflateA = a.inflate, inflateB = b.inflate;
            const std::string context = std::string(shape) + " trial " + std::to_string(trial);

            // Tree vs primitives: a sphere and a half-space through deformed vertices of the body.
            const auto vertices = a.WorldVertices();
            const Sphere ball{vertices[random() % vertices.size()].first, 0.2 * a.scale * a.body.Size()};
            const Vec3d n = RandomDirection(random);
            const Plane plane{n, n.dot(vertices[random() % vertices.size()].first)};
            auto primitive = [&](double inInflate, auto inPrimitive)
            {
                a.inflate = inInflate;
                std::vector<ProxyContact> contacts;
                QueryStats stats;
                CollideProxies(a.Deformed(), inPrimitive, contacts, stats);
                std::map<std::uint32_t, ProxyContact> byNode;
                for (const ProxyContact& contact : contacts)
                    byNode[contact.nodeA] = contact;
                return byNode;
            };
            for (int kind = 0; kind < 2; ++kind)
            {
                const auto bare = kind == 0 ? primitive(0.0, ball) : primitive(0.0, plane);
                const auto inflated = kind == 0 ? primitive(inflateA, ball) : primitive(inflateA, plane);
                ASSERT_FALSE(bare.empty()) << context;
                EXPECT_GE(inflated.size(), bare.size()) << context;
                for (const auto& [node, contact] : bare)
                {
                    const auto it = inflated.find(node);
                    ASSERT_NE(it, inflated.end()) << context << ": inflating lost proxy " << node;
                    EXPECT_NEAR(it->second.depth, contact.depth + inflateA, 1e-12 * (1.0 + contact.depth))
                        << context;
                    EXPECT_LT((it->second.normal - contact.normal).norm(), 1e-12) << context;
                    // The bare depth is that of the scaled sphere (no inflation).
                    a.inflate = 0.0;
                    const Sphere s = a.WorldSphere(node);
                    const double expected = kind == 0
                                                ? s.radius + ball.radius - (s.center - ball.center).norm()
                                                : s.radius - (plane.normal.dot(s.center) - plane.offset);
                    EXPECT_NEAR(contact.depth, std::max(0.0, expected), 1e-12 * (1.0 + s.radius)) << context;
                }
                // Proxies newly reached by the inflation are within it of the primitive.
                for (const auto& [node, contact] : inflated)
                {
                    if (!bare.count(node))
                    {
                        EXPECT_LE(contact.depth, inflateA * (1.0 + 1e-9)) << context;
                    }
                }
            }

            // Tree vs tree: both inflations add to every pair's depth.
            auto pairs = [&](double inA, double inB)
            {
                a.inflate = inA;
                b.inflate = inB;
                std::vector<ProxyContact> contacts;
                QueryStats stats;
                CollideProxies(a.Deformed(), b.Deformed(), contacts, stats);
                std::map<std::pair<std::uint32_t, std::uint32_t>, ProxyContact> byPair;
                for (const ProxyContact& contact : contacts)
                    byPair[{contact.nodeA, contact.nodeB}] = contact;
                return byPair;
            };
            const auto bare = pairs(0.0, 0.0);
            const auto inflated = pairs(inflateA, inflateB);
            EXPECT_GE(inflated.size(), bare.size()) << context;
            for (const auto& [key, contact] : bare)
            {
                const auto it = inflated.find(key);
                ASSERT_NE(it, inflated.end()) << context;
                EXPECT_NEAR(it->second.depth, contact.depth + inflateA + inflateB,
                            1e-12 * (1.0 + contact.depth))
                    << context;
            }
            // Completeness with scale and inflation: every overlapping pair of brute-force world spheres.
            a.inflate = inflateA;
            b.inflate = inflateB;
            for (std::uint32_t na : ProxyNodes(a.body.state->Proxies()))
            {
                const Sphere sa = a.WorldSphere(na);
                for (std::uint32_t nb : ProxyNodes(b.body.state->Proxies()))
                {
                    const Sphere sb = b.WorldSphere(nb);
                    if ((sa.center - sb.center).norm() <= sa.radius + sb.radius)
                    {
                        const auto it = inflated.find({na, nb});
                        ASSERT_NE(it, inflated.end()) << context << ": proxies " << na << ", " << nb;
                        EXPECT_NEAR(it->second.depth, sa.radius + sb.radius - (sa.center - sb.center).norm(),
                                    1e-12 * (sa.radius + sb.radius))
                            << context;
                    }
                }
            }
        }
    }
}

} // namespace
} // namespace bdt
