#pragma once

// The checks of a body's transform and loads that the state guard (WorldStep.cpp) and the body settings'
// validation (World.cpp) share.

#include <LinearMath/btMatrix3x3.h>
#include <LinearMath/btVector3.h>
#include <bdt/bullet/Conversions.h>
#include <cmath>
#include <limits>

namespace bdt::detail
{

// How far BᵀB may stray from the identity for a basis to count as a rotation: a float basis built from a
// quaternion or Euler angles is within a few 1e-7.
inline constexpr double cBasisTolerance = 1e-4;
// Beyond this the state guard does not trust the basis at all and puts the body back; below it, it makes the
// basis the rotation of its quaternion (as Bullet's integration does every step for a plain body).
inline constexpr double cBasisRepairLimit = 0.1;

// max |BᵀB − I|, and whether det B > 0 (infinite for a non-finite basis).
inline double RotationError(const btMatrix3x3& inBasis, bool& outProper)
{
    const Mat3d basis = ToMat3d(inBasis);
    outProper = basis.determinant() > 0.0;
    const double error = (basis.transpose() * basis - Mat3d::Identity()).cwiseAbs().maxCoeff();
    return std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
}

// The length in double: a float vector of 1e30 has a length but no finite float length².
inline double Length(const btVector3& inValue)
{
    return ToVec3d(inValue).norm();
}

// Scales finite `ioValue` down to length `inLimit` if longer; true if it did.
inline bool ClampLength(btVector3& ioValue, double inLimit)
{
    const double length = Length(ioValue);
    if (!(length > inLimit))
        return false;
    ioValue *= btScalar(inLimit / length);
    return true;
}

} // namespace bdt::detail
