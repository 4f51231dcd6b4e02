#include <algorithm>
#include <bdt/core/Error.h>
#include <bdt/core/ProxyPatches.h>
#include <limits>

namespace bdt
{

namespace
{

constexpr std::uint32_t cNone = std::numeric_limits<std::uint32_t>::max();

// One face's side of an undirected edge: the edge (low, high vertex), the face (tree order) and whether the
// face runs it low → high.
struct EdgeSide
{
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    std::uint32_t face = 0;
    bool forward = false;
};

// The mesh's edges with their faces, grouped (sorted by vertices, then face): each edge's sides are adjacent.
std::vector<EdgeSide> EdgeSides(std::span<const Triangle> inTriangles)
{
    std::vector<EdgeSide> sides;
    sides.reserve(3 * inTriangles.size());
    for (std::uint32_t t = 0; t < inTriangles.size(); ++t)
        for (int k = 0; k < 3; ++k)
        {
            const std::uint32_t from = inTriangles[t][k], to = inTriangles[t][(k + 1) % 3];
            if (from == to)
                continue; // a degenerate triangle's collapsed edge is no edge
            sides.push_back({std::min(from, to), std::max(from, to), t, from < to});
        }
    std::sort(sides.begin(), sides.end(),
              [](const EdgeSide& inX, const EdgeSide& inY)
              {
                  if (inX.low != inY.low)
                      return inX.low < inY.low;
                  if (inX.high != inY.high)
                      return inX.high < inY.high;
                  return inX.face < inY.face;
              });
    return sides;
}

} // namespace

ProxyPatches::ProxyPatches(std::shared_ptr<const ProxyLevel> inProxies) : mProxies(std::move(inProxies))
{
    if (!mProxies)
        throw Error("proxy patches need a proxy level");
    const BDTree& tree = mProxies->Tree();
    const Model& model = tree.GetModel();
    const std::span<const Triangle> triangles = model.Triangles();
    const std::uint32_t visit = mProxies->VisitCount();

    // The proxy of every triangle (the proxies partition them), and each vertex's naming triangle (its
    // lowest).
    std::vector<std::uint32_t> proxyOf(triangles.size(), cNone);
    for (std::uint32_t node = 0; node < visit; ++node)
        if (mProxies->IsProxy(node))
        {
            const BDTreeNode& n = tree.Node(node);
            for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
                proxyOf[t] = node;
        }
    std::vector<std::uint32_t> vertexTriangle(model.VertexCount(), cNone);
    for (std::uint32_t t = 0; t < triangles.size(); ++t)
        for (const std::uint32_t v : triangles[t])
            vertexTriangle[v] = std::min(vertexTriangle[v], t);

    // Each vertex's incident triangles (tree order, ascending; a triangle that repeats a vertex lists it
    // once).
    const auto distinctCorners = [](const Triangle& inTriangle, std::uint32_t(&outCorners)[3])
    {
        int count = 0;
        for (int k = 0; k < 3; ++k)
            if (std::find(outCorners, outCorners + count, inTriangle[k]) == outCorners + count)
                outCorners[count++] = inTriangle[k];
        return count;
    };
    std::vector<std::uint32_t> incidentBegin(model.VertexCount() + 1, 0), incident;
    std::uint32_t corners[3];
    for (const Triangle& triangle : triangles)
        for (int k = 0, count = distinctCorners(triangle, corners); k < count; ++k)
            ++incidentBegin[corners[k] + 1];
    for (std::size_t v = 0; v < model.VertexCount(); ++v)
        incidentBegin[v + 1] += incidentBegin[v];
    incident.resize(incidentBegin.back());
    {
        std::vector<std::uint32_t> fill(incidentBegin.begin(), incidentBegin.end() - 1);
        for (std::uint32_t t = 0; t < triangles.size(); ++t)
            for (int k = 0, count = distinctCorners(triangles[t], corners); k < count; ++k)
                incident[fill[corners[k]]++] = t;
    }

    // Edges: grouped sides, owned by the proxy of their lowest face; a vertex on an open edge is open.
    const std::vector<EdgeSide> sides = EdgeSides(triangles);
    struct GlobalEdge
    {
        std::uint32_t from, to; // in the winding of the owner face
        std::uint32_t faces[2];
        bool open;
    };
    std::vector<std::vector<GlobalEdge>> edgesOf(visit);
    std::vector<std::uint8_t> openVertex(model.VertexCount(), 0);
    for (std::size_t begin = 0; begin < sides.size();)
    {
        std::size_t end = begin + 1;
        while (end < sides.size() && sides[end].low == sides[begin].low &&
               sides[end].high == sides[begin].high)
            ++end;
        const EdgeSide& first = sides[begin];
        GlobalEdge edge;
        edge.from = first.forward ? first.low : first.high;
        edge.to = first.forward ? first.high : first.low;
        edge.faces[0] = first.face;
        edge.faces[1] = end - begin >= 2 ? sides[begin + 1].face : cNone;
        edge.open = end - begin != 2 || sides[begin + 1].forward == first.forward;
        if (edge.open)
        {
            mClosed = false;
            openVertex[first.low] = openVertex[first.high] = 1;
        }
        edgesOf[proxyOf[first.face]].push_back(edge);
        begin = end;
    }

    // The patches, proxy by proxy: local vertex indices through a stamped map.
    std::vector<std::uint32_t> localOf(model.VertexCount(), cNone);
    std::vector<std::uint32_t> localStamp(model.VertexCount(), cNone);
    std::vector<std::uint32_t> shared, halo, owned, ring;
    mVertexBegin.assign(visit + 1, 0);
    mOwnedBegin.assign(visit + 1, 0);
    mTriangleBegin.assign(visit + 1, 0);
    mEdgeBegin.assign(visit + 1, 0);
    mCounts.assign(visit, {});
    mNeighbourBegin.assign(1, 0);
    for (std::uint32_t node = 0; node < visit; ++node)
    {
        mVertexBegin[node] = std::uint32_t(mVertices.size());
        mOwnedBegin[node] = std::uint32_t(mVertexTriangles.size());
        mTriangleBegin[node] = std::uint32_t(mTriangles.size());
        mEdgeBegin[node] = std::uint32_t(mEdges.size());
        if (!mProxies->IsProxy(node))
            continue;
        const BDTreeNode& n = tree.Node(node);
        const std::uint32_t base = std::uint32_t(mVertices.size());
        const auto add = [&](std::uint32_t inVertex)
        {
            localStamp[inVertex] = node;
            localOf[inVertex] = std::uint32_t(mVertices.size()) - base;
            mVertices.push_back(inVertex);
        };
        const auto inside = [&](std::uint32_t inTriangle) { return proxyOf[inTriangle] == node; };
        // Owned vertices first, then the rest of the own triangles', in first-seen order.
        shared.clear();
        owned.clear();
        for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
            for (const std::uint32_t v : triangles[t])
            {
                if (localStamp[v] == node)
                    continue;
                if (inside(vertexTriangle[v]))
                {
                    add(v);
                    owned.push_back(v);
                    mVertexTriangles.push_back(vertexTriangle[v]);
                    mOpenVertex.push_back(openVertex[v]);
                }
                else
                {
                    localStamp[v] = node; // listed below
                    shared.push_back(v);
                }
            }
        PatchCounts& counts = mCounts[node];
        counts.ownedVertices = std::uint32_t(owned.size());
        for (const std::uint32_t v : shared)
            add(v);
        counts.triangleVertices = std::uint32_t(mVertices.size()) - base;
        counts.ownTriangles = n.triangleCount;
        for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
        {
            mTriangles.push_back(
                {localOf[triangles[t][0]], localOf[triangles[t][1]], localOf[triangles[t][2]]});
            mTreeTriangles.push_back(t);
        }
        // The halo: the outside faces of owned edges and around owned vertices, each once, in ascending
        // order.
        halo.clear();
        for (const GlobalEdge& edge : edgesOf[node])
            if (edge.faces[1] != cNone && !inside(edge.faces[1]))
                halo.push_back(edge.faces[1]);
        for (const std::uint32_t v : owned)
            for (std::uint32_t i = incidentBegin[v]; i < incidentBegin[v + 1]; ++i)
                if (!inside(incident[i]))
                    halo.push_back(incident[i]);
        std::sort(halo.begin(), halo.end());
        halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
        for (const std::uint32_t t : halo)
        {
            for (const std::uint32_t v : triangles[t])
                if (localStamp[v] != node)
                    add(v);
            mTriangles.push_back(
                {localOf[triangles[t][0]], localOf[triangles[t][1]], localOf[triangles[t][2]]});
            mTreeTriangles.push_back(t);
        }
        // The owned vertices' rings.
        for (const std::uint32_t v : owned)
        {
            ring.clear();
            for (std::uint32_t i = incidentBegin[v]; i < incidentBegin[v + 1]; ++i)
                for (const std::uint32_t w : triangles[incident[i]])
                    if (w != v)
                        ring.push_back(localOf[w]);
            std::sort(ring.begin(), ring.end());
            ring.erase(std::unique(ring.begin(), ring.end()), ring.end());
            mNeighbours.insert(mNeighbours.end(), ring.begin(), ring.end());
            mNeighbourBegin.push_back(std::uint32_t(mNeighbours.size()));
        }
        const auto localFace = [&](std::uint32_t inFace)
        {
            if (inFace == cNone)
                return cNoFace;
            if (inside(inFace))
                return inFace - n.firstTriangle;
            return n.triangleCount +
                   std::uint32_t(std::lower_bound(halo.begin(), halo.end(), inFace) - halo.begin());
        };
        for (const GlobalEdge& edge : edgesOf[node])
        {
            Edge local;
            local.a = localOf[edge.from];
            local.b = localOf[edge.to];
            local.faces = {localFace(edge.faces[0]), localFace(edge.faces[1])};
            local.open = edge.open;
            mEdges.push_back(local);
        }
    }
    mVertexBegin[visit] = std::uint32_t(mVertices.size());
    mOwnedBegin[visit] = std::uint32_t(mVertexTriangles.size());
    mTriangleBegin[visit] = std::uint32_t(mTriangles.size());
    mEdgeBegin[visit] = std::uint32_t(mEdges.size());
}

std::size_t ProxyPatches::MemoryBytes() const
{
    return (mVertexBegin.size() + mOwnedBegin.size() + mTriangleBegin.size() + mEdgeBegin.size() +
            mVertices.size() + mVertexTriangles.size() + mTreeTriangles.size() + mNeighbourBegin.size() +
            mNeighbours.size()) *
               sizeof(std::uint32_t) +
           mOpenVertex.size() + mCounts.size() * sizeof(PatchCounts) +
           mTriangles.size() * sizeof(mTriangles[0]) + mEdges.size() * sizeof(Edge);
}

} // namespace bdt
