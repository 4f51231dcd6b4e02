#pragma once

// The contacts of contact pieces (`ContactPieces.h`): boxes whose real faces are a body's surface and whose
// cut faces lie inside it, against another piece or a primitive. Leaves of the narrowphase: they call nothing
// above them. World frame, double.

#include <bdt/core/base/Math.h>
#include <bdt/core/geometry/Primitives.h>
#include <cstdint>
#include <vector>

namespace bdt
{

/// A contact piece placed in world for a step: a box with its real faces (`ContactPiece::realFaces`).
struct PlacedPiece
{
    Vec3d center = Vec3d::Zero();
    Mat3d axes = Mat3d::Identity();     ///< Columns: the box's axes in world (orthonormal).
    Vec3d halfExtents = Vec3d::Zero();  ///< World units.
    std::uint8_t realFaces = 0x3f;      ///< Bit 2k: the face at −k is real, 2k + 1: at +k. A primitive's: all.
    /// Whether its real faces' planes carry on past its cut faces, where the neighbouring pieces stand on them
    /// (a box that only moved with its body); false for one turned with it (`PieceFrame::turned`).
    bool facesCarryOn = true;
};

/// A contact between the boxes, Bullet's conventions: A is the first piece, B the other side.
struct PieceContact
{
    Vec3d pointOnB = Vec3d::Zero(); ///< On B's box (or primitive) surface.
    Vec3d normal = Vec3d::UnitY();  ///< Unit, from B to A.
    double distance = 0.0;          ///< Signed, along the normal: A's point is pointOnB + normal · distance.
};

/// The most points a pair of pieces gives: a face clipped to a face has at most eight corners, and all are
/// kept. Fewer (the deepest and the spread around it) let the kept set change from step to step as the
/// depths round, and a resting box then creeps over the points' flicker.
inline constexpr std::size_t cPieceContactPoints = 8;

/// Appends the contacts of two pieces whose distance is at most `inReach` (≥ 0), at most
/// `cPieceContactPoints`. The normal is the separating axis of least penetration (most separation) among
/// those a contact may have: a real face's normal of either box whose other box meets it with a real face,
/// edge or corner, or the cross product of two real edges (edges between two real faces), each the way the
/// other's centre lies. A pair apart by more than the reach along any of the 15 axes, or with no such axis, gives nothing: a cut face lies inside
/// its body, where the neighbouring pieces carry the surface on. Points: the other box's real faces facing the
/// reference face clipped to it, or the closest points of the two edges. Distances are never more than the
/// boxes' true distance (a separating axis underestimates it), and a penetration never less deep than the
/// boxes' own. About 300 to 1000 flops.
void CollidePieces(const PlacedPiece& inA, const PlacedPiece& inB, double inReach,
                   std::vector<PieceContact>& outContacts);
/// A piece against the half-space n·x ≤ offset: its corners on a real face facing the plane, within reach.
void CollidePieces(const PlacedPiece& inA, const Plane& inPlane, double inReach,
                   std::vector<PieceContact>& outContacts);
/// A piece against a solid sphere: one contact, at the box's point nearest the centre, clamped to the real
/// faces only (beyond a cut face the surface carries on in the neighbouring piece), or none where the centre
/// lies beyond a cut face of a piece whose faces do not carry on (`PlacedPiece::facesCarryOn`: the
/// neighbouring piece makes it); a centre inside leaves through the nearest real face.
void CollidePieces(const PlacedPiece& inA, const Sphere& inSphere, double inReach,
                   std::vector<PieceContact>& outContacts);
/// A piece against a solid oriented box (all its faces real), as against a piece, and with each of the box's
/// faces that A's body centre `inBodyCentreA` (world) lies beyond offered as the normal from either side of
/// the box's middle: a piece that went past the middle of a thin floor slab comes back out of the side its
/// body is on, not out through the slab's underside.
void CollidePieces(const PlacedPiece& inA, const Vec3d& inBodyCentreA, const OrientedBox& inBox, double inReach,
                   std::vector<PieceContact>& outContacts);

} // namespace bdt
