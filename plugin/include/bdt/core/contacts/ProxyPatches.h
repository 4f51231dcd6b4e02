#pragma once

#include <array>
#include <bdt/core/bounds/ContactProxies.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// The surface under each contact proxy, for `EContactModel::Surface`: its own triangles, then the *halo*
/// triangles just outside that touch a feature it owns (for normal cones). Each vertex and edge is owned by the
/// proxy of its lowest tree-index triangle, so a contact on it is made once (complete by §3.4). Immutable,
/// shared at one proxy level (`DeformableAsset::Patches`); about 40 bytes a triangle plus 8 a proxy.
class ProxyPatches
{
public:
    /// An owned edge: `a` → `b` (patch vertices) in `faces[0]`'s winding; `faces`: the owner face and the
    /// other, or `cNoFace`. `open` (two-sided contacts) for a border, non-manifold or inconsistently wound
    /// edge.
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

    /// The patch's model vertex indices: owned, then its triangles' others, then the halo's. Empty if no proxy.
    std::span<const std::uint32_t> Vertices(std::uint32_t inProxy) const
    {
        return Range(mVertices, mVertexBegin, inProxy);
    }
    /// How many of `Vertices` the proxy owns (a prefix).
    std::uint32_t OwnedVertexCount(std::uint32_t inProxy) const { return Counts(inProxy).ownedVertices; }
    /// How many of `Vertices` belong to the proxy's own triangles (a prefix); the rest is the halo.
    std::uint32_t TriangleVertexCount(std::uint32_t inProxy) const
    {
        return Counts(inProxy).triangleVertices;
    }
    /// For each owned vertex, the tree-order triangle that names it in contacts (its lowest incident one).
    std::span<const std::uint32_t> VertexTriangles(std::uint32_t inProxy) const
    {
        return Range(mVertexTriangles, mOwnedBegin, inProxy);
    }
    /// The patch's triangles, indices into `Vertices`, counter-clockwise: the proxy's own, then the halo's.
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
    /// The patch vertices sharing an edge with owned vertex `inOwned` (< `OwnedVertexCount`), each once.
    std::span<const std::uint32_t> Neighbours(std::uint32_t inProxy, std::uint32_t inOwned) const
    {
        const std::uint32_t slot = mOwnedBegin[inProxy] + inOwned;
        return std::span<const std::uint32_t>(mNeighbours)
            .subspan(mNeighbourBegin[slot], mNeighbourBegin[slot + 1] - mNeighbourBegin[slot]);
    }
    /// Whether owned vertex `inOwned` lies on an open edge (its faces have no consistent outside there).
    bool OpenVertex(std::uint32_t inProxy, std::uint32_t inOwned) const
    {
        return mOpenVertex[mOwnedBegin[inProxy] + inOwned] != 0;
    }

    /// True for a closed, consistently wound mesh (contacts behind a face are penetrations); false for open
    /// sheets and broken meshes, whose faces are two-sided.
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
