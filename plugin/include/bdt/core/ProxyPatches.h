#pragma once

#include <array>
#include <bdt/core/ContactProxies.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// The surface under each contact proxy of a `ContactProxies`, as the surface contact model needs it
/// (`EContactModel::Surface`): each proxy's triangles with their vertices and edges, local to the proxy, and
/// every vertex and every edge of the mesh *owned* by exactly one proxy, so that a contact on it is made
/// once.
///
/// A proxy's patch lists, in order, the vertices it owns, the other vertices of its triangles, then its
/// *halo*: the other vertices of the triangles just outside it that touch a feature it owns (the second face
/// of an owned edge, the faces around an owned vertex), which the features' normal cones need. Its triangles
/// are its own (tree order, the node's range) followed by those halo triangles.
///
/// Ownership. The proxies partition the triangles (the nodes of level L and the leaves above it). A vertex or
/// an edge is owned by the proxy of its incident triangle of lowest tree index. Complete by construction: a
/// feature lies in the updated sphere of every proxy it belongs to, so whatever comes within reach of the
/// feature comes within reach of its owner's sphere, which the culling then reports (BD-Tree paper §3.4).
///
/// Immutable; shared by every body that uses the same proxy level (`DeformableAsset::Patches`). Memory: about
/// 40 bytes a triangle plus 8 a proxy.
class ProxyPatches
{
public:
    /// An edge owned by a proxy. `a`, `b` index the patch's vertices, in the winding of `faces[0]` (a → b is
    /// one of that face's directed edges); `faces` index the patch's triangles: the owner face (one of the
    /// proxy's own triangles) and the other face, or `cNoFace` where the edge has one face (an open border).
    /// An edge with more than two faces (non-manifold) lists its first two and is `open`, as is a border edge
    /// and one whose two faces wind it the same way (inconsistently oriented): an open edge has no outward
    /// side, and contacts on it are two-sided.
    struct Edge
    {
        std::uint32_t a = 0;
        std::uint32_t b = 0;
        std::array<std::uint32_t, 2> faces{cNoFace, cNoFace};
        bool open = false;
    };

    static constexpr std::uint32_t cNoFace = 0xffffffffu;

    /// The patches of every proxy of `inProxies`. Cost O(T log T) for T triangles under the proxies.
    explicit ProxyPatches(std::shared_ptr<const ContactProxies> inProxies);

    const ContactProxies& Proxies() const { return *mProxies; }
    const BDTree& Tree() const { return mProxies->Tree(); }

    /// The patch's vertices as model vertex indices (`Model::Positions`): owned ones first, then the rest of
    /// its own triangles', then the halo. Empty for a node that is not a proxy (or outside `VisitCount`).
    std::span<const std::uint32_t> Vertices(std::uint32_t inProxy) const
    {
        return Range(mVertices, mVertexBegin, inProxy);
    }
    /// How many of `Vertices` the proxy owns (a prefix).
    std::uint32_t OwnedVertexCount(std::uint32_t inProxy) const { return Counts(inProxy).ownedVertices; }
    /// How many of `Vertices` belong to the proxy's own triangles (a prefix: the owned ones and the shared
    /// ones); the rest is the halo.
    std::uint32_t TriangleVertexCount(std::uint32_t inProxy) const
    {
        return Counts(inProxy).triangleVertices;
    }
    /// For each owned vertex (the first `OwnedVertexCount`), the tree-order triangle that names it in
    /// contacts: its incident triangle of lowest index, one of the proxy's own.
    std::span<const std::uint32_t> VertexTriangles(std::uint32_t inProxy) const
    {
        return Range(mVertexTriangles, mOwnedBegin, inProxy);
    }
    /// The patch's triangles as three indices into `Vertices` each, counter-clockwise as in the model: the
    /// proxy's own triangles (tree order, the node's range, `OwnTriangleCount` of them), then the halo's.
    std::span<const std::array<std::uint32_t, 3>> Triangles(std::uint32_t inProxy) const
    {
        return Range(mTriangles, mTriangleBegin, inProxy);
    }
    /// How many of `Triangles` are the proxy's own (a prefix; the node's triangle count).
    std::uint32_t OwnTriangleCount(std::uint32_t inProxy) const { return Counts(inProxy).ownTriangles; }
    /// The tree-order index of patch triangle `inLocal` of `inProxy` (own or halo).
    std::uint32_t TreeTriangle(std::uint32_t inProxy, std::uint32_t inLocal) const
    {
        return mTreeTriangles[mTriangleBegin[inProxy] + inLocal];
    }
    /// The edges the proxy owns.
    std::span<const Edge> Edges(std::uint32_t inProxy) const { return Range(mEdges, mEdgeBegin, inProxy); }
    /// The neighbours of owned vertex `inOwned` (< `OwnedVertexCount`): the patch vertices it shares an edge
    /// with, each once (indices into `Vertices`; a ring that may reach into the halo).
    std::span<const std::uint32_t> Neighbours(std::uint32_t inProxy, std::uint32_t inOwned) const
    {
        const std::uint32_t slot = mOwnedBegin[inProxy] + inOwned;
        return std::span<const std::uint32_t>(mNeighbours)
            .subspan(mNeighbourBegin[slot], mNeighbourBegin[slot + 1] - mNeighbourBegin[slot]);
    }
    /// Whether owned vertex `inOwned` lies on an open edge (a border, a non-manifold or inconsistently wound
    /// edge): its faces have no consistent outside there.
    bool OpenVertex(std::uint32_t inProxy, std::uint32_t inOwned) const
    {
        return mOpenVertex[mOwnedBegin[inProxy] + inOwned] != 0;
    }

    /// True when every edge of the mesh has two faces that wind it in opposite directions: a closed,
    /// consistently oriented surface, whose faces have an outside (contacts behind a face are penetrations).
    /// False for open sheets (a curtain) and broken meshes, whose faces are two-sided.
    bool Closed() const { return mClosed; }

    std::size_t MemoryBytes() const;

private:
    struct PatchCounts
    {
        std::uint32_t ownedVertices = 0;
        std::uint32_t triangleVertices = 0;
        std::uint32_t ownTriangles = 0;
    };

    template <class T>
    static std::span<const T> Range(const std::vector<T>& inValues, const std::vector<std::uint32_t>& inBegin,
                                    std::uint32_t inProxy)
    {
        if (std::size_t(inProxy) + 1 >= inBegin.size())
            return {};
        return std::span<const T>(inValues).subspan(inBegin[inProxy],
                                                    inBegin[inProxy + 1] - inBegin[inProxy]);
    }
    PatchCounts Counts(std::uint32_t inProxy) const
    {
        return inProxy < mCounts.size() ? mCounts[inProxy] : PatchCounts{};
    }

    std::shared_ptr<const ContactProxies> mProxies;
    // Per node of [0, VisitCount): CSR ranges (begin arrays of VisitCount + 1 entries; empty for
    // non-proxies).
    std::vector<std::uint32_t> mVertexBegin, mOwnedBegin, mTriangleBegin, mEdgeBegin;
    std::vector<PatchCounts> mCounts;
    std::vector<std::uint32_t> mVertices;        // model vertex indices
    std::vector<std::uint32_t> mVertexTriangles; // per owned vertex: its naming triangle (tree order)
    std::vector<std::uint32_t> mNeighbourBegin;  // per owned vertex (+ 1): its range of mNeighbours
    std::vector<std::uint32_t> mNeighbours;      // local vertex indices
    std::vector<std::uint8_t> mOpenVertex;       // per owned vertex: on an open edge
    std::vector<std::array<std::uint32_t, 3>> mTriangles; // local corners
    std::vector<std::uint32_t> mTreeTriangles;            // per patch triangle: tree-order index
    std::vector<Edge> mEdges;
    bool mClosed = true;
};

} // namespace bdt
