#pragma once

// Conversions between Bullet's btScalar types (float, or double with BT_USE_DOUBLE_PRECISION) and the
// double-precision Eigen types of the core queries. Private to plugin/bullet.

#include <LinearMath/btTransform.h>
#include <LinearMath/btVector3.h>
#include <bdt/core/Math.h>
#include <bdt/core/Primitives.h>

namespace bdt
{

inline Vec3d ToVec3d(const btVector3& inVector)
{
    return {double(inVector.x()), double(inVector.y()), double(inVector.z())};
}

inline btVector3 ToBtVector(const Vec3d& inVector)
{
    return {btScalar(inVector.x()), btScalar(inVector.y()), btScalar(inVector.z())};
}

/// A Bullet rigid transform as a core `Pose`. The rotation is rebuilt in double from the basis's unit
/// quaternion, so it is orthonormal to double precision even when Bullet stores floats (a float basis is
/// orthonormal only to about 1e-7, which would show in every normal and distance mapped through it).
inline Pose ToPose(const btTransform& inTransform)
{
    btQuaternion rotation;
    inTransform.getBasis().getRotation(rotation);
    Pose pose;
    pose.rotation = Eigen::Quaterniond(double(rotation.w()), double(rotation.x()), double(rotation.y()),
                                       double(rotation.z()))
                        .normalized()
                        .toRotationMatrix();
    pose.translation = ToVec3d(inTransform.getOrigin());
    return pose;
}

/// The world box [inMin, inMax] of a Bullet `getAabb` as a core box.
inline Aabb ToAabb(const btVector3& inMin, const btVector3& inMax)
{
    return Aabb(ToVec3d(inMin), ToVec3d(inMax));
}

} // namespace bdt
