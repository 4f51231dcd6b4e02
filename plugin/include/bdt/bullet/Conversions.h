#pragma once

// Conversions between Bullet's btScalar types (float, or double with BT_USE_DOUBLE_PRECISION) and the
// double-precision Eigen types of the core, for plugin/bullet, the engine adapter and host code.

#include <LinearMath/btTransform.h>
#include <LinearMath/btVector3.h>
#include <bdt/core/base/Math.h>
#include <bdt/core/geometry/Primitives.h>
#include <cmath>

namespace bdt
{

/// A Bullet vector in double.
inline Vec3d ToVec3d(const btVector3& inVector)
{
    return {double(inVector.x()), double(inVector.y()), double(inVector.z())};
}

/// A double vector rounded to btScalar.
inline btVector3 ToBtVector(const Vec3d& inVector)
{
    return {btScalar(inVector.x()), btScalar(inVector.y()), btScalar(inVector.z())};
}

/// A Bullet 3×3 matrix in double, entry by entry (no orthonormalisation).
inline Mat3d ToMat3d(const btMatrix3x3& inMatrix)
{
    Mat3d matrix;
    for (int row = 0; row < 3; ++row)
        for (int column = 0; column < 3; ++column)
            matrix(row, column) = double(inMatrix[row][column]);
    return matrix;
}

/// A double 3×3 matrix rounded to btScalar, entry by entry (no orthonormalisation).
inline btMatrix3x3 ToBtMatrix(const Mat3d& inMatrix)
{
    btMatrix3x3 matrix;
    for (int row = 0; row < 3; ++row)
        for (int column = 0; column < 3; ++column)
            matrix[row][column] = btScalar(inMatrix(row, column));
    return matrix;
}

/// True when every component is finite.
inline bool IsFinite(const btVector3& inVector)
{
    return std::isfinite(inVector.x()) && std::isfinite(inVector.y()) && std::isfinite(inVector.z());
}

/// True when the origin and every basis entry are finite.
inline bool IsFinite(const btTransform& inTransform)
{
    const btMatrix3x3& basis = inTransform.getBasis();
    return IsFinite(inTransform.getOrigin()) && IsFinite(basis[0]) && IsFinite(basis[1]) &&
           IsFinite(basis[2]);
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
