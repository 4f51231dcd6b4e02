#include <algorithm>
#include <bdt/core/base/Error.h>
#include <bdt/core/contacts/ProxyPatches.h>
#include <limits>
#include <span>
#include <vector>

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

// The proxy of every triangle (the proxies partition them).
std::vector<std::uint32_t> ProxyOfTriangles(const ContactProxies& inProxies, std::size_t inTriangleCount)
{
    const BDTree& tree = inProxies.Tree();
    std::vector<std::uint32_t> proxyOf(inTriangleCount, cNone);
    for (std::uint32_t node = 0; node < inProxies.VisitCount(); ++node)
        if (inProxies.IsProxy(node))
        {
            const BDTreeNode& n = tree.Node(node);
            for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
                proxyOf[t] = node;
        }
    return proxyOf;
}

// Each vertex's naming triangle: its lowest (tree order).
std::vector<std::uint32_t> NamingTriangles(std::span<const Triangle> inTriangles, std::size_t inVertexCount)
{
    std::vector<std::uint32_t> vertexTriangle(inVertexCount, cNone);
    for (std::uint32_t t = 0; t < inTriangles.size(); ++t)
        for (const std::uint32_t v : inTriangles[t])
            vertexTriangle[v] = std::min(vertexTriangle[v], t);
    return vertexTriangle;
}

// The distinct corners of a triangle (a triangle that repeats a vertex lists it once); returns their count.
int DistinctCorners(const Triangle& inTriangle, std::uint32_t (&outCorners)[3])
{
    int count = 0;
    for (int k = 0; k < 3; ++k)
        if (std::find(outCorners, outCorners + count, inTriangle[k]) == outCorners + count)
            outCorners[count++] = inTriangle[k];
    return count;
}

// Each vertex's incident triangles, tree order, ascending: those of vertex v are
// triangles[begin[v], begin[v + 1]).
struct Incidence
{
    std::vector<std::uint32_t> begin;
    std::vector<std::uint32_t> triangles;

    std::span<const std::uint32_t> Of(std::uint32_t inVertex) const
    {
        return std::span<const std::uint32_t>(triangles.data() + begin[inVertex],
                                              begin[inVertex + 1] - begin[inVertex]);
    }
};

Incidence IncidentTriangles(std::span<const Triangle> inTriangles, std::size_t inVertexCount)
{
    Incidence incidence;
    incidence.begin.assign(inVertexCount + 1, 0);
    std::uint32_t corners[3];
    for (const Triangle& triangle : inTriangles)
        for (int k = 0, count = DistinctCorners(triangle, corners); k < count; ++k)
            ++incidence.begin[corners[k] + 1];
    for (std::size_t v = 0; v < inVertexCount; ++v)
        incidence.begin[v + 1] += incidence.begin[v];
    incidence.triangles.resize(incidence.begin.back());
    std::vector<std::uint32_t> fill(incidence.begin.begin(), incidence.begin.end() - 1);
    for (std::uint32_t t = 0; t < inTriangles.size(); ++t)
        for (int k = 0, count = DistinctCorners(inTriangles[t], corners); k < count; ++k)
            incidence.triangles[fill[corners[k]]++] = t;
    return incidence;
}

// An edge of the mesh, in the winding of its owner face (its lowest), with its faces.
struct GlobalEdge
{
    std::uint32_t from, to;
    std::uint32_t faces[2];
    bool open;
};

// The mesh's edges grouped by the proxy that owns them (that of their lowest face), and its open vertices (on an
// open edge).
struct MeshEdges
{
    std::vector<std::vector<GlobalEdge>> ofProxy;
    std::vector<std::uint8_t> openVertex;
    bool closed = true;
};

MeshEdges EdgesByProxy(std::span<const Triangle> inTriangles, std::size_t inVertexCount,
                       std::span<const std::uint32_t> inProxyOf, std::uint32_t inVisitCount)
{
    const std::vector<EdgeSide> sides = EdgeSides(inTriangles);
    MeshEdges edges;
    edges.ofProxy.resize(inVisitCount);
    edges.openVertex.assign(inVertexCount, 0);
    for (std::size_t begin = 0; begin < sides.size();)
    {
        std::size_t end = begin + 1;
        while (end < sides.size() && sides[end].low == sides[begin].low && sides[end].high == sides[begin].high)
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
            edges.closed = false;
            edges.openVertex[first.low] = edges.openVertex[first.high] = 1;
        }
        edges.ofProxy[inProxyOf[first.face]].push_back(edge);
        begin = end;
    }
    return edges;
}

// A proxy's halo: the outside faces of its owned edges and around its owned vertices, each once, ascending.
void HaloFaces(std::span<const GlobalEdge> inEdges, std::span<const std::uint32_t> inOwned,
               const Incidence& inIncidence, std::span<const std::uint32_t> inProxyOf, std::uint32_t inNode,
               std::vector<std::uint32_t>& outHalo)
{
    outHalo.clear();
    for (const GlobalEdge& edge : inEdges)
        if (edge.faces[1] != cNone && inProxyOf[edge.faces[1]] != inNode)
            outHalo.push_back(edge.faces[1]);
    for (const std::uint32_t v : inOwned)
        for (const std::uint32_t t : inIncidence.Of(v))
            if (inProxyOf[t] != inNode)
                outHalo.push_back(t);
    std::sort(outHalo.begin(), outHalo.end());
    outHalo.erase(std::unique(outHalo.begin(), outHalo.end()), outHalo.end());
}

// The owned vertices' rings: each one's neighbours (local indices, ascending, each once) appended to
// `ioNeighbours`, and where the next ring begins to `ioBegins`.
void AppendRings(std::span<const std::uint32_t> inOwned, const Incidence& inIncidence,
                 std::span<const Triangle> inTriangles, std::span<const std::uint32_t> inLocalOf,
                 std::vector<std::uint32_t>& ioNeighbours, std::vector<std::uint32_t>& ioBegins)
{
    thread_local std::vector<std::uint32_t> ring;
    for (const std::uint32_t v : inOwned)
    {
        ring.clear();
        for (const std::uint32_t t : inIncidence.Of(v))
            for (const std::uint32_t w : inTriangles[t])
                if (w != v)
                    ring.push_back(inLocalOf[w]);
        std::sort(ring.begin(), ring.end());
        ring.erase(std::unique(ring.begin(), ring.end()), ring.end());
        ioNeighbours.insert(ioNeighbours.end(), ring.begin(), ring.end());
        ioBegins.push_back(std::uint32_t(ioNeighbours.size()));
    }
}

} // namespace

ProxyPatches::ProxyPatches(std::shared_ptr<const ContactProxies> inProxies) : mProxies(std::move(inProxies))
{
    if (!mProxies)
        throw Error("proxy patches need a proxy level");
    const BDTree& tree = mProxies->Tree();
    const Model& model = tree.GetModel();
    const std::span<const Triangle> triangles = model.Triangles();
    const std::uint32_t visit = mProxies->VisitCount();

    const std::vector<std::uint32_t> proxyOf = ProxyOfTriangles(*mProxies, triangles.size());
    const std::vector<std::uint32_t> vertexTriangle = NamingTriangles(triangles, model.VertexCount());
    const Incidence incidence = IncidentTriangles(triangles, model.VertexCount());
    const MeshEdges edges = EdgesByProxy(triangles, model.VertexCount(), proxyOf, visit);
    mClosed = edges.closed;
    const std::vector<std::vector<GlobalEdge>>& edgesOf = edges.ofProxy;
    const std::vector<std::uint8_t>& openVertex = edges.openVertex;

    // The patches, proxy by proxy: local vertex indices through a stamped map.
    std::vector<std::uint32_t> localOf(model.VertexCount(), cNone);
    std::vector<std::uint32_t> localStamp(model.VertexCount(), cNone);
    std::vector<std::uint32_t> shared, halo, owned;
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
        HaloFaces(edgesOf[node], owned, incidence, proxyOf, node, halo);
        for (const std::uint32_t t : halo)
        {
            for (const std::uint32_t v : triangles[t])
                if (localStamp[v] != node)
                    add(v);
            mTriangles.push_back(
                {localOf[triangles[t][0]], localOf[triangles[t][1]], localOf[triangles[t][2]]});
            mTreeTriangles.push_back(t);
        }
        AppendRings(owned, incidence, triangles, localOf, mNeighbours, mNeighbourBegin);
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
