#include "support/TestModels.h"

#include <algorithm>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/contacts/ProxyPatches.h>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <utility>

namespace bdt
{
namespace
{

using EdgeKey = std::pair<std::uint32_t, std::uint32_t>;

EdgeKey Key(std::uint32_t inA, std::uint32_t inB)
{
    return {std::min(inA, inB), std::max(inA, inB)};
}

// The mesh's edges (by vertex pair) with their faces, and each vertex's neighbours, by brute force.
struct Topology
{
    std::map<EdgeKey, std::vector<std::uint32_t>> faces;
    std::vector<std::set<std::uint32_t>> rings;
    std::vector<std::uint32_t> lowestTriangle;
};

Topology BruteTopology(const Model& inModel)
{
    Topology topology;
    topology.rings.resize(inModel.VertexCount());
    topology.lowestTriangle.assign(inModel.VertexCount(), cNoIndex);
    const auto triangles = inModel.Triangles();
    for (std::uint32_t t = 0; t < triangles.size(); ++t)
        for (int k = 0; k < 3; ++k)
        {
            const std::uint32_t a = triangles[t][k], b = triangles[t][(k + 1) % 3];
            topology.lowestTriangle[a] = std::min(topology.lowestTriangle[a], t);
            if (a == b)
                continue;
            topology.faces[Key(a, b)].push_back(t);
            topology.rings[a].insert(b);
            topology.rings[b].insert(a);
        }
    return topology;
}

// The proxy owning each triangle, from the proxy nodes' ranges.
std::vector<std::uint32_t> ProxyOfTriangle(const ContactProxies& inProxies)
{
    const BDTree& tree = inProxies.Tree();
    std::vector<std::uint32_t> proxyOf(tree.GetModel().TriangleCount(), cNoIndex);
    for (std::uint32_t node = 0; node < inProxies.VisitCount(); ++node)
        if (inProxies.IsProxy(node))
            for (std::uint32_t t = 0; t < tree.Node(node).triangleCount; ++t)
                proxyOf[tree.Node(node).firstTriangle + t] = node;
    return proxyOf;
}

// Every triangle, vertex and edge is in exactly one proxy's care, the one of its lowest incident triangle,
// and each patch's lists (vertices, triangles, edges, rings) say what the mesh says.
void CheckPatches(const std::shared_ptr<const BDTree>& inTree, std::uint32_t inLevel, const char* inShape)
{
    SCOPED_TRACE(std::string(inShape) + " at level " + std::to_string(inLevel));
    const auto proxies = std::make_shared<const ContactProxies>(inTree, inLevel);
    const ProxyPatches patches(proxies);
    const Model& model = inTree->GetModel();
    const auto triangles = model.Triangles();
    const Topology topology = BruteTopology(model);
    const std::vector<std::uint32_t> proxyOf = ProxyOfTriangle(*proxies);

    std::vector<int> ownedVertex(model.VertexCount(), 0), ownTriangle(triangles.size(), 0);
    std::map<EdgeKey, int> ownedEdge;
    for (std::uint32_t node = 0; node < proxies->VisitCount(); ++node)
    {
        const auto vertices = patches.Vertices(node);
        if (!proxies->IsProxy(node))
        {
            ASSERT_TRUE(vertices.empty());
            continue;
        }
        const auto local = patches.Triangles(node);
        ASSERT_EQ(patches.OwnTriangleCount(node), inTree->Node(node).triangleCount);
        for (std::uint32_t t = 0; t < local.size(); ++t)
        {
            const std::uint32_t global = patches.TreeTriangle(node, t);
            for (int k = 0; k < 3; ++k)
                ASSERT_EQ(vertices[local[t][k]], triangles[global][k])
                    << "corner " << k << " of triangle " << global;
            if (t < patches.OwnTriangleCount(node))
            {
                ASSERT_EQ(proxyOf[global], node);
                ++ownTriangle[global];
            }
            else
                ASSERT_NE(proxyOf[global], node) << "a halo triangle of the patch's own";
        }
        for (std::uint32_t v = 0; v < patches.OwnedVertexCount(node); ++v)
        {
            const std::uint32_t vertex = vertices[v];
            ++ownedVertex[vertex];
            ASSERT_EQ(patches.VertexTriangles(node)[v], topology.lowestTriangle[vertex]);
            ASSERT_EQ(proxyOf[topology.lowestTriangle[vertex]], node);
            std::set<std::uint32_t> ring;
            for (const std::uint32_t w : patches.Neighbours(node, v))
                ring.insert(vertices[w]);
            ASSERT_EQ(ring, topology.rings[vertex]) << "ring of vertex " << vertex;
        }
        for (const ProxyPatches::Edge& edge : patches.Edges(node))
        {
            const EdgeKey key = Key(vertices[edge.a], vertices[edge.b]);
            ++ownedEdge[key];
            const std::vector<std::uint32_t>& faces = topology.faces.at(key);
            ASSERT_EQ(patches.TreeTriangle(node, edge.faces[0]), faces[0]);
            ASSERT_EQ(proxyOf[faces[0]], node);
            // a → b runs along the owner face's winding.
            const auto& owner = local[edge.faces[0]];
            bool along = false;
            for (int k = 0; k < 3; ++k)
                along = along || (owner[k] == edge.a && owner[(k + 1) % 3] == edge.b);
            ASSERT_TRUE(along);
            if (faces.size() >= 2)
                ASSERT_EQ(patches.TreeTriangle(node, edge.faces[1]), faces[1]);
            else
                ASSERT_EQ(edge.faces[1], ProxyPatches::cNoFace);
            const auto runs = [&](std::uint32_t inFace, std::uint32_t inFrom, std::uint32_t inTo)
            {
                for (int k = 0; k < 3; ++k)
                    if (triangles[inFace][k] == inFrom && triangles[inFace][(k + 1) % 3] == inTo)
                        return true;
                return false;
            };
            const bool consistent = faces.size() == 2 && runs(faces[0], key.first, key.second) !=
                                                             runs(faces[1], key.first, key.second);
            ASSERT_EQ(edge.open, !consistent);
        }
    }
    for (std::size_t t = 0; t < triangles.size(); ++t)
        ASSERT_EQ(ownTriangle[t], 1) << "triangle " << t;
    for (std::size_t v = 0; v < model.VertexCount(); ++v)
        ASSERT_EQ(ownedVertex[v], topology.rings[v].empty() && topology.lowestTriangle[v] == cNoIndex ? 0 : 1)
            << "vertex " << v;
    ASSERT_EQ(ownedEdge.size(), topology.faces.size());
    for (const auto& [key, count] : ownedEdge)
        ASSERT_EQ(count, 1);
}

TEST(ProxyPatches, EveryFeatureIsOwnedOnceWithItsNeighbourhood)
{
    for (const char* shape : {"box", "chair", "torus", "curtain"})
    {
        const auto tree = test::ShapeTree(shape, 1500, 4);
        for (std::uint32_t level : {0u, 3u, 7u, 30u})
            CheckPatches(tree, level, shape);
    }
}

TEST(ProxyPatches, ClosedSurfacesHaveAnOutsideAndOpenOnesDoNot)
{
    const auto box = std::make_shared<const ContactProxies>(test::ShapeTree("box", 800, 2), 4);
    const auto curtain = std::make_shared<const ContactProxies>(test::ShapeTree("curtain", 800, 2), 4);
    EXPECT_TRUE(ProxyPatches(box).Closed());
    const ProxyPatches open(curtain);
    EXPECT_FALSE(open.Closed());
    // The curtain's border vertices are open, its inner ones are not.
    std::size_t openVertices = 0, vertices = 0;
    for (std::uint32_t node = 0; node < open.Proxies().VisitCount(); ++node)
        for (std::uint32_t v = 0; v < open.OwnedVertexCount(node); ++v, ++vertices)
            openVertices += open.OpenVertex(node, v) ? 1 : 0;
    EXPECT_GT(openVertices, 0u);
    EXPECT_LT(openVertices, vertices / 4);
}

} // namespace
} // namespace bdt
