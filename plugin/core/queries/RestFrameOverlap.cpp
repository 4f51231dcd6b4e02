#include "RestFrameOverlap.h"
#include <bdt/core/queries/TreeQueries.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// η (`RestFrameOverlap.h`): room for the world test's absolute slack (1e-13 of the coordinates) and the
// rounding of both tests (a few 1e-16 of the magnitudes summed), 1e-11 of the largest world magnitude either
// test meets, in the rest frame's units: the body's furthest node centre, ‖t‖ + s·‖c'‖_max, and the
// primitive's own `inPrimitive` (with `inLipschitz` for a normal or axes that are not unit length). Infinite
// (every sphere accepted) when that is not finite.
double Room(const DeformedBody& inBody, double inPrimitive, double inLipschitz)
{
    const double body = inBody.pose.translation.norm() + inBody.scale * double(inBody.state->CentreBound());
    const double room = 1e-11 * inLipschitz * (body + inPrimitive + inBody.inflate) / inBody.scale;
    return std::isfinite(room) ? room : std::numeric_limits<double>::infinity();
}

bool Finite(double inValue)
{
    return std::isfinite(inValue);
}
template <class Derived> bool Finite(const Eigen::MatrixBase<Derived>& inValues)
{
    return inValues.allFinite();
}
void Clear(double& ioValue)
{
    ioValue = 0.0;
}
template <class Derived> void Clear(Eigen::MatrixBase<Derived>& ioValues)
{
    ioValues.setZero();
}

// A test mapped from beyond double's range would compare NaNs, which reject: unless its reach is bounded and
// every mapped value finite, the values are cleared and the reach made unbounded, so that it accepts every
// sphere.
template <class... Values> void UnboundedUnlessFinite(RestReach& ioReach, Values&... ioValues)
{
    if (ioReach.Bounded() && (Finite(ioValues) && ...))
        return;
    (Clear(ioValues), ...);
    ioReach = RestReach::Unbounded();
}

// A world point in the rest frame: Rᵀ(x − t)/s.
Vec3d ToRest(const DeformedBody& inBody, const Vec3d& inWorld)
{
    return inBody.pose.ApplyInverse(inWorld) / inBody.scale;
}

} // namespace

RestSphereTest::RestSphereTest(const DeformedBody& inBody, const Sphere& inSphere)
    : mCenter(ToRest(inBody, inSphere.center)),
      mReach((inSphere.radius + inBody.inflate) / inBody.scale,
             Room(inBody, inSphere.center.norm() + inSphere.radius, 1.0))
{
    UnboundedUnlessFinite(mReach, mCenter);
}

RestPlaneTest::RestPlaneTest(const DeformedBody& inBody, const Plane& inPlane)
    : mNormal(inBody.pose.rotation.transpose() * inPlane.normal),
      mOffset((inPlane.offset - inPlane.normal.dot(inBody.pose.translation)) / inBody.scale),
      mReach(inBody.inflate / inBody.scale,
             Room(inBody, std::abs(inPlane.offset), std::max(1.0, inPlane.normal.norm())))
{
    UnboundedUnlessFinite(mReach, mNormal, mOffset);
}

RestBoxTest::RestBoxTest(const DeformedBody& inBody, const OrientedBox& inBox)
    : mAxesT((inBody.pose.rotation.transpose() * inBox.pose.rotation).transpose()),
      mCenter(ToRest(inBody, inBox.pose.translation)), mHalfExtents(inBox.halfExtents / inBody.scale),
      // The Frobenius norm bounds the axes' spectral norm (√3 for a rotation).
      mReach(inBody.inflate / inBody.scale,
             Room(inBody, inBox.pose.translation.norm() + inBox.halfExtents.norm(),
                  std::max(1.0, inBox.pose.rotation.norm())))
{
    UnboundedUnlessFinite(mReach, mAxesT, mCenter, mHalfExtents);
}

RestCapsuleTest::RestCapsuleTest(const DeformedBody& inBody, const Capsule& inCapsule)
    : mA(ToRest(inBody, inCapsule.a)), mAxis(ToRest(inBody, inCapsule.b) - mA),
      mAxisSquared(mAxis.squaredNorm()),
      mReach((inCapsule.radius + inBody.inflate) / inBody.scale,
             Room(inBody, inCapsule.a.norm() + inCapsule.b.norm() + inCapsule.radius, 1.0))
{
    UnboundedUnlessFinite(mReach, mA, mAxis, mAxisSquared);
}

} // namespace bdt
