#pragma once

// The surface model's contact pieces on one side of a pair (`ContactPieces`): which of a body's pieces its
// deformation leaves within its piece tolerance, where they stand in world, and which triangle of the body a
// contact on one of them names. Private to plugin/bullet.

#include "core/pieces/ContactPieces.h"
#include "core/pieces/PieceContacts.h"
#include "core/bounds/RegionBounds.h"

#include "bullet/manifold/PairContact.h"

#include <bdt/bullet/ContactFeature.h>
#include <bdt/core/queries/TreeQueries.h>
#include <cstdint>
#include <span>
#include <vector>

struct btCollisionObjectWrapper;

namespace bdt
{

class PieceMemory;

class DeformableShape;

/// Per-node values a `PieceSide` works out during one query, kept by the thread for the next (only the nodes
/// touched are reset).
struct PieceScratch
{
    std::vector<std::uint8_t> usable;  ///< 0 not yet decided, 1 no, 2 yes, 3 yes as its affine frame.
    std::vector<std::uint8_t> covered; ///< 0 not yet decided, 1 no, 2 yes.
    std::vector<std::uint8_t> boxed;   ///< 1 when `boxes` holds the node's box.
    std::vector<WorldBox> boxes;
    std::vector<double> growths; ///< Model units, with `usable` (`PieceSide::Growth`).
    std::vector<Vec3d> centres; ///< The box centre at the current q, rest frame (with `boxes`).
    std::vector<PieceFrame> frames; ///< A piece's affine frame at the current q (where `usable` is 3).
    std::vector<std::uint32_t> touched;
};

/// One deformable body's pieces for one pair query, on one thread: the piece each proxy collides as, if any.
/// Works in `ioScratch` (the thread's own, reset here).
class PieceSide
{
public:
    /// Where a node stands in the body's contact cut for the query.
    enum class ECut : std::uint8_t
    {
        Piece,  ///< A piece within the tolerance: collided as its box.
        Facets, ///< A proxy within the tolerance that is not a piece: collided as its facets.
        Exact,  ///< A proxy no piece covers: collided as its triangles.
        Empty,  ///< Every triangle under it lies inside the body: nothing to collide.
        Inner, ///< Neither: the descent goes on below it.
    };

    PieceSide(const DeformableShape& inShape, const DeformedBody& inBody, PieceScratch& ioScratch);

    /// Whether the body has pieces and a tolerance to use them with.
    bool Available() const { return mPieces != nullptr; }
    /// The body's piece tolerance (m, world): contacts on its pieces are reported this much nearer.
    double Tolerance() const { return mTolerance; }

    /// The pieces proxy `inProxy` collides as: the coarsest piece holding it whose deformation bound is
    /// within the tolerance (its frame's growth, `Frame`: it bounds how far along any direction a deformed
    /// vertex of the piece can stand off where the box puts it; above the contact regions, no growth at all:
    /// `WithinTolerance`),
    /// or else the pieces within the tolerance below it that cover it, down to `cPieceLevelsBelow` levels
    /// under the proxies. Empty if there are none such (the proxy collides as its triangles). Valid until the
    /// next call.
    std::span<const std::uint32_t> PiecesOf(std::uint32_t inProxy);

    /// The piece ids of node `inNode` standing in the cut as `inCut` (`Piece` or `Facets`): the node itself, or
    /// its facets (`ContactPieces::Facets`, numbered from `ContactPieces::NodeCount`). Valid until the next call.
    std::span<const std::uint32_t> IdsOf(std::uint32_t inNode, ECut inCut);

    /// Piece `inPiece`'s box in world (a node's box, or a facet's), placed: a node's box as its frame at the
    /// current q (`Frame`), a facet's its rest box moved by its proxy's BD-AABB centre (Ū q).
    PlacedPiece Place(std::uint32_t inPiece);

    /// The world point `inPoint` on piece `inPiece`'s box, to be named (`PieceNamer`): back in the rest frame,
    /// the box's motion at that point undone (`PieceFrame::RestPoint`; a facet's, its proxy's BD-AABB centre's
    /// Ū q). O(1) once the piece is placed.
    UnnamedPoint Unnamed(std::uint32_t inPiece, const Vec3d& inPoint);
    /// How far (m, world) the deformed surface anywhere on piece `inPiece` can stand off where its box puts
    /// it, along any direction: its frame's growth (`Frame`), or for a facet its proxy's BD-AABB growth ΔBᵀ|q|
    /// (§3.5) summed over the axes; scaled.
    double Growth(std::uint32_t inPiece);
    /// The node of piece `inPiece`: itself, or a facet's proxy.
    std::uint32_t NodeOf(std::uint32_t inPiece) const
    {
        return inPiece < mPieces->NodeCount() ? inPiece : mPieces->Facet(inPiece - mPieces->NodeCount()).node;
    }
    /// The body's pieces, or null when `Available` is false.
    const ContactPieces* Pieces() const { return mPieces; }

    /// Whether every triangle under node `inNode` lies inside the body (`ContactPiece::inside`).
    bool Inside(std::uint32_t inNode) const { return mPieces != nullptr && mPieces->Piece(inNode).inside; }

    /// Notes that piece `inPiece` (a node's, not a facet's) made a contact this step: next step it stays in use up
    /// to the whole tolerance (`PieceMemory`). Thread-safe; the bits do not depend on the pairs' order.
    void MadeContact(std::uint32_t inPiece);

    /// Where node `inNode` stands in the contact cut, for a descent that reached it (no piece above it).
    ECut Cut(std::uint32_t inNode);
    /// Node `inNode`'s BD-AABB box in world at the current q (§3.5), computed once per query.
    const WorldBox& Box(std::uint32_t inNode);
    /// The proxy holding node `inNode` (the node itself at the proxy level, an ancestor below it).
    std::uint32_t ProxyAbove(std::uint32_t inNode) const;
    const DeformedBody& Body() const { return mBody; }

private:
    bool Usable(std::uint32_t inNode);
    /// Node `inNode`'s box at the current q, rest frame: its rest box moved by its BD-AABB centre (Ū q, grown by
    /// ΔBᵀ|q|, §3.5), or, for a piece that growth leaves out of the tolerance, its affine frame
    /// (`AffinePieceBounds::Frame`) where that brings it within. Valid until the next call.
    const PieceFrame& Frame(std::uint32_t inNode);
    /// The node's BD-AABB growth, or else a piece's affine frame's growth (`Frame`), is within half the
    /// tolerance, or within all of it for a node that made a contact last step (`PieceMemory`, `MadeContact`).
    /// A node above the contact regions
    /// (`DeformableShapeSettings::regionDepth` levels over the proxies: a chair's whole leg, half its seat) only
    /// with no growth at all, where the body is rigid: its points are its clipped face's corners, spread over
    /// several regions, between which a bending face is held only by its growth, and any growth allowed lets
    /// it take turns with the finer pieces as a resting body bends.
    bool WithinTolerance(std::uint32_t inNode);
    /// Whether usable pieces below proxy `inProxy` (down to `cPieceLevelsBelow` levels) cover it, appended to
    /// `mList` when `inCollect`.
    bool Covered(std::uint32_t inProxy, bool inCollect);
    Vec3d RestCentre(std::uint32_t inNode); ///< The BD-AABB centre at the current q, rest frame (cached).
    void Touch(std::uint32_t inNode);

    const DeformableShape& mShape;
    DeformedBody mBody;
    const ContactPieces* mPieces = nullptr;
    PieceMemory* mUse = nullptr; ///< The body's pieces in use, last step and this one; null: no hysteresis.
    double mTolerance = 0.0;
    std::uint32_t mRegionLevel = 0; ///< Pieces above it only while rigid (`WithinTolerance`).
    std::vector<float> mQq;
    PieceScratch& mScratch;
    PieceFrame mFrame; ///< `Frame`'s answer for a box that only moved.
    std::vector<std::uint32_t> mList, mStack, mIds;
};

/// Names the points of piece contacts (`UnnamedPoint`, `PairContact::Unnamed`) on one pair's bodies as they
/// stand for the query that made them (same transforms, same q): the triangle under each point and the proxy
/// holding it, and how far the surface there stands off the piece's box. Read-only; any thread.
class PieceNamer
{
public:
    /// Side A from `inBodyA` and `inPiecesA`; side B likewise, or none (nulls) for a B that is not deformable.
    PieceNamer(const DeformedBody& inBodyA, const ContactPieces* inPiecesA, const DeformedBody* inBodyB,
               const ContactPieces* inPiecesB);
    /// The pair's bodies as `GenerateContacts` views them for these wrappers (A's shape deformable).
    static PieceNamer ForPair(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB);

    /// Where point `inPoint` of side `inSide` (0: A, 1: B) lies on its body: the triangle under the piece nearest
    /// it at rest (of several, the lowest in tree order, as the triangle contacts name a vertex), or the body's
    /// nearest where the piece's own triangles do not reach the point (a real face they cover only in part);
    /// the barycentric coordinates of the nearest point on it, and the proxy holding that triangle. A search
    /// down the tree from the piece: about one root-to-leaf path of box tests, more near cut edges.
    ContactFeature Feature(int inSide, const UnnamedPoint& inPoint) const;
    /// As `Feature`, trying triangle `inHint` (tree order; cNoIndex: none) first: taken, without a search, if
    /// the point lies on it (last step's triangle of a point its manifold held keeps its name across a vertex
    /// or an edge, where several triangles hold the point).
    ContactFeature Feature(int inSide, const UnnamedPoint& inPoint, std::uint32_t inHint) const;
    /// How far (m, world) the deformed surface at `inFeature` (of `inPoint`, `Feature`) stands along the unit
    /// world direction `inDirection` off where the piece's box puts the same rest point: n·R s (U_f q − m_f),
    /// the point's own modal displacement less the box's there (`UnnamedPoint::motion`, `turn`). Within the
    /// piece's growth, whichever of the node's triangles was named. 20M flops.
    double OffsetAlong(int inSide, const UnnamedPoint& inPoint, const ContactFeature& inFeature,
                       const Vec3d& inDirection) const;
    /// Names `ioContact` if it is unnamed: its features, and its distance and point on B made the surfaces'
    /// own along the normal (the slack given back, each side's offset taken); sideways, the points stay where
    /// the boxes put them, within the pieces' growth of the named triangles. Nothing for a named contact.
    void Name(PairContact& ioContact) const { Name(ioContact, {cNoIndex, cNoIndex}); }
    /// `Name` with a triangle to try first on each side (`Feature` with a hint).
    void Name(PairContact& ioContact, const std::array<std::uint32_t, 2>& inHints) const;

private:
    struct Side
    {
        DeformedBody body;
        const ContactPieces* pieces = nullptr;
    };
    std::uint32_t ProxyOf(const Side& inSide, std::uint32_t inNode, std::uint32_t inTriangle) const;
    double OnSurface(const Side& inSide) const; ///< Model units: how near a point on a triangle lies.
    Side mSides[2];
};

} // namespace bdt
