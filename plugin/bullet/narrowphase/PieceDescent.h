#pragma once

// The surface model's descent of two deformables' trees down to their *contact cut*: on each side the
// coarsest pieces within their tolerance (`PieceSide`), and the proxies no piece covers. Private to
// plugin/bullet.

#include "SurfacePieces.h"

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/geometry/Primitives.h>
#include <cstdint>
#include <utility>
#include <vector>

namespace bdt
{

/// Node pairs of two bodies whose contacts a query makes: pairs of pieces (collided as boxes) and pairs of
/// proxies (collided as their triangles, `PatchContacts`), each in ascending order and once.
struct CutPairs
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pieces;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> proxies;

    void Clear()
    {
        pieces.clear();
        proxies.clear();
    }
};

/// Descends A's and B's trees together from their roots, testing the nodes' BD-AABB boxes (§3.5: each holds
/// its deformed triangles) in world, A's grown by `inGap` (the band searched, the margins and tolerances), and
/// stops on each side at its contact cut: a piece within its tolerance, or a proxy that neither such a piece
/// above it nor pieces below it cover. A pair of pieces is a piece pair; a pair with a proxy is taken to the
/// proxies on both sides (the piece's proxies whose boxes meet the other proxy's) and is a proxy pair. Every
/// pair of triangles within the gap lies under one reported pair. About 100 flops a pair of boxes tested
/// (counted in `ioStats.overlapTests`), each node's box updated once (12M flops).
void DescendToCut(PieceSide& ioA, PieceSide& ioB, double inGap, CutPairs& outPairs, QueryStats& ioStats);
/// The same for A against a plane, sphere or box: pairs (piece, cNoIndex) and (proxy, cNoIndex).
template <class Primitive>
void DescendToCut(PieceSide& ioA, const Primitive& inPrimitive, double inGap, CutPairs& outPairs,
                  QueryStats& ioStats);

/// Whether the world box `inBox` (axes `inRotation`) is further than `inGap` from the primitive: then nothing
/// inside it comes within `inGap` of the primitive, in front of it or behind it.
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const Plane& inPlane, double inGap);
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const Sphere& inSphere, double inGap);
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const OrientedBox& inOther, double inGap);
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const Capsule& inCapsule, double inGap);

} // namespace bdt
