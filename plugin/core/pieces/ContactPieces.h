#pragma once

#include "AffinePieceBounds.h"

#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/base/Math.h>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// A node of the tree whose triangles are the outside of a box, seen as that solid box: a *contact piece* of
/// the surface model (`EContactModel::Surface`). Where a piece's deformation is small, the narrowphase
/// collides the box (a separating-axis test and a clip, a few hundred flops) instead of the node's deformed
/// triangles (thousands), within a stated error: every deformed vertex of the node lies within the BD-AABB
/// growth ΔBᵀ|q| (BD-Tree paper §3.5) of the rest box moved by its centre's motion Ū q, and every rest
/// triangle lies on one of the box's *real* faces (within `cPieceFlatness` of its size), facing out of it.
///
/// The other faces are *cut* faces, inside the body where the neighbouring nodes carry on: they bound the
/// piece but are never a contact's normal. A box with one real face along an axis (a flat patch) is extruded
/// behind it into the body, so that a body pressed into the patch is pushed back out, not through.
struct ContactPiece
{
    /// The box's centre relative to the node's BD-AABB row centre, rest frame (model units).
    Vec3f offset = Vec3f::Zero();
    Vec3f halfExtents = Vec3f::Zero(); ///< Rest frame, model units, extrusion included.
    /// Bit 2k: the face at −halfExtents along axis k is real; bit 2k + 1: the face at +halfExtents.
    std::uint8_t realFaces = 0;
    /// Every triangle of the node lies inside the body (behind another part's surface): nothing to collide.
    bool inside = false;

    bool IsPiece() const { return realFaces != 0; }
    bool Real(int inAxis, int inSide) const { return (realFaces >> (2 * inAxis + (inSide > 0 ? 1 : 0))) & 1u; }
};

/// A flat group of a proxy's triangles when the proxy is not a box itself (it spans a concave crease, or
/// its faces are not along the rest frame's axes): one plane's connected triangles, seen as the thin box of
/// their bounding rectangle in that plane (least area), extruded behind it into the body. Its one real face
/// is the outward one. It moves as the proxy's BD-AABB does (§3.5), whose growth bounds its vertices too.
struct ContactFacet
{
    std::uint32_t node = 0;        ///< The proxy whose triangles it holds.
    Vec3f offset = Vec3f::Zero();  ///< The box centre relative to the node's BD-AABB row centre, rest frame.
    Eigen::Matrix3f axes = Eigen::Matrix3f::Identity(); ///< Columns, rest frame: outward normal, rectangle axes.
    Vec3f halfExtents = Vec3f::Zero(); ///< Along `axes`: half the extrusion, then the rectangle's half sides.
    std::uint32_t firstTriangle = 0;   ///< Its triangles: `FacetTriangles()[firstTriangle, + triangleCount)`.
    std::uint32_t triangleCount = 0;
};

/// The most facets a proxy is split into; a proxy needing more collides as its triangles.
inline constexpr std::uint32_t cMaxFacets = 8;

/// The fewest triangles a proxy's facets hold on average: a facet of one or two triangles (a curved mesh's quad)
/// costs more as a box, located point by point, than its triangles do (docs/BENCHMARKS.md, the pile).
inline constexpr std::uint32_t cMinFacetTriangles = 4;

/// A mesh whose pieces and facets cover fewer than 1 in `cMinPieceCoverage` of its proxies at rest gets none: a
/// curved mesh's few stray axis-aligned triangles would only switch its pairs to the pieces' box descent, which
/// costs more than the sphere descent where there is nothing to use it for.
inline constexpr std::uint32_t cMinPieceCoverage = 10;

/// How many levels below the proxies the pieces reach: a proxy that is not a box itself (across a concave
/// crease) collides as the pieces below it that cover it.
inline constexpr std::uint32_t cPieceLevelsBelow = 6;

/// How far (relative to a node's box diagonal) a triangle's vertex may stand off the box face it lies on.
inline constexpr double cPieceFlatness = 1e-4;
/// The least share of a real face's area its triangles must cover: a box spanning a gap between two parts
/// whose outer faces happen to lie on its faces (two legs' outer sides) covers its faces thinly.
inline constexpr double cPieceCoverage = 0.3;

/// The contact pieces of the nodes of a tree's first levels: for each node, the box its triangles are the
/// outside of, or none. Classified once from the rest mesh in O(T · levels); immutable, shared by every body
/// of the asset (`DeformableAsset::Pieces`). 28 bytes a node, and 52M bytes a piece for its affine bound
/// (`AffinePieceBounds`).
class ContactPieces
{
public:
    /// The pieces of nodes [0, `inNodeCount`) of `inBoxes`'s tree, and the facets of the proxies at
    /// `inProxyLevel` that are not pieces. An open surface (`inClosed` false: a curtain, a broken mesh) has no
    /// inside to extrude into and gets none.
    ContactPieces(std::shared_ptr<const BDAabbTree> inBoxes, std::uint32_t inNodeCount, std::uint32_t inProxyLevel,
                  bool inClosed);

    const BDAabbTree& Boxes() const { return *mBoxes; }
    std::uint32_t NodeCount() const { return std::uint32_t(mPieces.size()); }
    /// The piece of node `inNode`; not a piece (`IsPiece` false) beyond `NodeCount`.
    const ContactPiece& Piece(std::uint32_t inNode) const
    {
        static const ContactPiece cNone;
        return inNode < mPieces.size() ? mPieces[inNode] : cNone;
    }
    /// How many of the nodes are pieces.
    std::uint32_t PieceCount() const { return mPieceCount; }
    /// The facets of node `inNode` (a proxy that is not a piece), as indices into `Facet`; empty if it has none.
    std::span<const std::uint32_t> Facets(std::uint32_t inNode) const
    {
        if (inNode + 1 >= mFacetBegin.size())
            return {};
        return std::span<const std::uint32_t>(mFacetIds).subspan(mFacetBegin[inNode],
                                                                 mFacetBegin[inNode + 1] - mFacetBegin[inNode]);
    }
    const ContactFacet& Facet(std::uint32_t inFacet) const { return mFacets[inFacet]; }
    std::uint32_t FacetCount() const { return std::uint32_t(mFacets.size()); }
    /// The facets' triangles (tree order), facet by facet.
    std::span<const std::uint32_t> FacetTriangles() const { return mFacetTriangles; }

    /// The pieces' affine bounds: how each piece's box turns, stretches and moves with the modes.
    const AffinePieceBounds& Affine() const { return mAffine; }

    /// The parent of node `inNode` (< `NodeCount`); cNoIndex for the root.
    std::uint32_t Parent(std::uint32_t inNode) const { return mParents[inNode]; }

    /// The triangle under node `inNode` nearest the rest-frame point `inPoint`, and the barycentric
    /// coordinates of its point nearest it: branch and bound on the nodes' rest boxes, the nearer child first.
    /// For a point on the node's surface, about one root-to-leaf path of box tests.
    std::uint32_t LocateTriangle(std::uint32_t inNode, const Vec3d& inPoint, Vec3d& outBarycentric) const;
    /// As `LocateTriangle`, and where the triangle found is further than `inOnSurface` (model units) from the
    /// point, the nearest under the node's ancestors in turn, up to the root if need be (a point of a piece's
    /// box that its own triangles do not reach: a neighbour's triangle). Each ancestor adds only its other
    /// child's subtree, opened where its boxes come nearer than the best so far. A point on the surface (within
    /// a hundredth of `inOnSurface`) takes the first triangle found through it, not the lowest of those at a
    /// vertex or an edge: about one root-to-leaf path.
    std::uint32_t LocateTriangleAround(std::uint32_t inNode, const Vec3d& inPoint, double inOnSurface,
                                       Vec3d& outBarycentric) const;

    /// The squared distance (model units²) from the rest-frame point `inPoint` to triangle `inTriangle` (tree
    /// order) at rest, and the barycentric coordinates of the triangle's point nearest it. O(1).
    double RestGap2(std::uint32_t inTriangle, const Vec3d& inPoint, Vec3d& outBarycentric) const;

    std::size_t MemoryBytes() const
    {
        return mPieces.capacity() * sizeof(ContactPiece) + mFacets.capacity() * sizeof(ContactFacet) +
               mRestBoxes.capacity() * sizeof(std::array<float, 6>) +
               (mParents.capacity() + mFacetBegin.capacity() + mFacetIds.capacity() + mFacetTriangles.capacity()) *
                   sizeof(std::uint32_t) +
               mAffine.MemoryBytes();
    }

private:
    /// How many of the proxies `inProxies` a piece holds, have facets, or pieces below them cover, at rest.
    std::size_t CoveredCount(std::span<const std::uint32_t> inProxies) const;
    /// No pieces and no facets (the `inside` flags stay).
    void DropAll();

    std::shared_ptr<const BDAabbTree> mBoxes;
    std::vector<ContactPiece> mPieces;
    // Branch and bound under `inNode` for the triangle nearest `inPoint`, improving on `ioBest` (at
    // `ioBestDistance2`, squared) where one is nearer, or as near and lower in tree order; done as soon as
    // the best is within `inOnIt2` (squared; 0: the whole search).
    void Search(std::uint32_t inNode, const Vec3d& inPoint, std::uint32_t& ioBest, double& ioBestDistance2,
                Vec3d& ioBarycentric, double inOnIt2 = 0.0) const;

    std::vector<std::array<float, 6>> mRestBoxes; // every node's rest box: centre, half extents (`LocateTriangle`)
    std::vector<std::uint32_t> mParents;
    std::vector<ContactFacet> mFacets;
    std::vector<std::uint32_t> mFacetBegin;     // per node (+ 1): its range of mFacetIds
    std::vector<std::uint32_t> mFacetIds;       // facet indices, node by node
    std::vector<std::uint32_t> mFacetTriangles; // tree-order triangles, facet by facet
    std::uint32_t mPieceCount = 0;
    AffinePieceBounds mAffine;
};

} // namespace bdt
