#pragma once

#include <algorithm>
#include <bdt/core/base/Math.h>
#include <bdt/core/geometry/Primitives.h>
#include <bdt/core/bounds/TreeState.h>
#include <cmath>
#include <limits>

namespace bdt
{

struct DeformedBody;

/// A solid primitive's overlap test carried into a deformable body's rest frame, for the descents of the
/// tree-vs-primitive queries: a node's updated sphere (centre x, radius r, model units) is tested where it
/// is, without mapping it to world (s R x + t) first. The body's pose is a similarity, so every distance the
/// world test measures is s times the same distance in the rest frame to the primitive mapped back,
/// x' = Rᵀ(x_w − t)/s: a sphere's centre, a plane's normal Rᵀn and offset (d − n·t)/s, a box's axes RᵀR_B and
/// centre, a capsule's two ends. The primitive and the body's inflate are mapped once per query; a node then
/// costs a difference and a squared length (a box: its 3×3 turn as well) where the world test also placed
/// the sphere (a 3×3 turn, a scale and a shift).
///
/// `MayOverlap` is conservative: true for every sphere the world test of `TreePrimitiveQuery.cpp` accepts
/// (reach s·r + inflate, plus its slack of 1e-9 of the reach and 1e-13 of the coordinates), with room for the
/// rounding of both: its reach is (r + e)(1 + 4·10⁻⁹) + η, where e is the rest of the world reach mapped
/// (inflate plus a ball's or capsule's radius, over s), η = 10⁻¹¹·L·(‖t‖ + s·‖c'‖_max + P + inflate)/s,
/// ‖c'‖_max is the state's `CentreBound`, P the primitive's magnitude and L ≥ 1 its Lipschitz constant. It
/// may accept a sphere the world test rejects by less than that room (1e-11 m a metre from the origin): the
/// descent then tests its children, and decides every terminal node in world as before, so the contacts
/// are the same. Requires the pose's rotation orthonormal (`Pose`) and s > 0; a primitive or body beyond
/// double's range (η not finite, or a mapped coordinate that is not) accepts every sphere.
///
/// Cost: O(M) to make (the centre bound), then about 10 flops a sphere (a box 30, a capsule 25). Holds no
/// pointers: made on the stack per query.

/// The reach every rest-frame test allows a node sphere of radius r: (r + e)(1 + 4·10⁻⁹) + η (see above).
class RestReach
{
public:
    /// `inExtra`: e, `inRoom`: η, both model units.
    RestReach(double inExtra, double inRoom) : mExtra(inExtra), mRoom(inRoom) {}
    /// A reach no sphere exceeds: what a test mapped from beyond double's range uses.
    static RestReach Unbounded() { return {0.0, std::numeric_limits<double>::infinity()}; }

    /// The reach for `inSphere`, model units.
    double Of(const UpdatedSphere& inSphere) const
    {
        return (double(inSphere.radius) + mExtra) * cRelativeRoom + mRoom;
    }
    /// True when e is finite and η is (the tests make an η that is not finite infinite).
    bool Bounded() const { return std::isfinite(mExtra) && mRoom != std::numeric_limits<double>::infinity(); }

    /// Room on the reach relative to it, against the world test's relative slack and the rounding of both.
    static constexpr double cRelativeRoom = 1.0 + 4e-9;

private:
    double mExtra; ///< e, model units.
    double mRoom;  ///< η, model units.
};

/// A sphere (a rigid ball) in a body's rest frame.
class RestSphereTest
{
public:
    /// `inSphere` (world) mapped into `inBody`'s rest frame, with `inBody.inflate`. O(M).
    RestSphereTest(const DeformedBody& inBody, const Sphere& inSphere);

    /// True if the world test may accept `inSphere` (see above).
    bool MayOverlap(const UpdatedSphere& inSphere) const
    {
        const double dx = double(inSphere.center[0]) - mCenter.x();
        const double dy = double(inSphere.center[1]) - mCenter.y();
        const double dz = double(inSphere.center[2]) - mCenter.z();
        const double reach = mReach.Of(inSphere);
        return dx * dx + dy * dy + dz * dz <= reach * reach;
    }

private:
    Vec3d mCenter;    ///< The ball's centre in the rest frame, model units.
    RestReach mReach; ///< e = (ball radius + inflate)/s.
};

/// A half-space {n·x ≤ d} in a body's rest frame.
class RestPlaneTest
{
public:
    /// `inPlane` (world) mapped into `inBody`'s rest frame, with `inBody.inflate`. O(M).
    RestPlaneTest(const DeformedBody& inBody, const Plane& inPlane);

    /// True if the world test may accept `inSphere`.
    bool MayOverlap(const UpdatedSphere& inSphere) const
    {
        const double height = mNormal.x() * double(inSphere.center[0]) +
                              mNormal.y() * double(inSphere.center[1]) +
                              mNormal.z() * double(inSphere.center[2]) - mOffset;
        return height <= mReach.Of(inSphere);
    }

private:
    Vec3d mNormal;    ///< Rᵀn (as long as n).
    double mOffset;   ///< (d − n·t)/s.
    RestReach mReach; ///< e = inflate/s.
};

/// An oriented box in a body's rest frame.
class RestBoxTest
{
public:
    /// `inBox` (world) mapped into `inBody`'s rest frame, with `inBody.inflate`. O(M).
    RestBoxTest(const DeformedBody& inBody, const OrientedBox& inBox);

    /// True if the world test may accept `inSphere`.
    bool MayOverlap(const UpdatedSphere& inSphere) const
    {
        const Vec3d offset =
            Vec3d(double(inSphere.center[0]), double(inSphere.center[1]), double(inSphere.center[2])) -
            mCenter;
        const Vec3d outside = ((mAxesT * offset).cwiseAbs() - mHalfExtents).cwiseMax(0.0);
        const double reach = mReach.Of(inSphere);
        return outside.squaredNorm() <= reach * reach;
    }

private:
    Mat3d mAxesT;       ///< (RᵀR_B)ᵀ: rest-frame offsets into box coordinates.
    Vec3d mCenter;      ///< The box's centre in the rest frame, model units.
    Vec3d mHalfExtents; ///< Half extents / s.
    RestReach mReach;   ///< e = inflate/s; η with the box axes' Lipschitz constant.
};

/// A capsule in a body's rest frame.
class RestCapsuleTest
{
public:
    /// `inCapsule` (world) mapped into `inBody`'s rest frame, with `inBody.inflate`. O(M).
    RestCapsuleTest(const DeformedBody& inBody, const Capsule& inCapsule);

    /// True if the world test may accept `inSphere`.
    bool MayOverlap(const UpdatedSphere& inSphere) const
    {
        const Vec3d centre(double(inSphere.center[0]), double(inSphere.center[1]),
                           double(inSphere.center[2]));
        const Vec3d fromA = centre - mA;
        const double along = mAxisSquared > 0.0 ? std::clamp(fromA.dot(mAxis) / mAxisSquared, 0.0, 1.0) : 0.0;
        const double reach = mReach.Of(inSphere);
        return (fromA - along * mAxis).squaredNorm() <= reach * reach;
    }

private:
    Vec3d mA;            ///< End a in the rest frame, model units.
    Vec3d mAxis;         ///< b − a in the rest frame.
    double mAxisSquared; ///< ‖b − a‖².
    RestReach mReach;    ///< e = (capsule radius + inflate)/s.
};

} // namespace bdt
