#include <bdt/core/RestFrameTests.h>
#include <bdt/core/TreeQueries.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

constexpr double cInfinity = std::numeric_limits<double>::infinity();

// η (`RestFrameTests.h`): room for the world test's absolute slack (1e-13 of the coordinates) and the
// rounding of both tests (a few 1e-16 of the magnitudes summed), 1e-11 of the largest world magnitude either
// test meets, in the rest frame's units: the body's furthest node centre, ‖t‖ + s·‖c'‖_max, and the
// primitive's own `inPrimitive` (with `inLipschitz` for a normal or axes that are not unit length). Infinite
// (every sphere accepted) when that is not finite.
double Room(const DeformedBody& inBody, double inPrimitive, double inLipschitz)
{
    const double body = inBody.pose.translation.norm() + inBody.scale * double(inBody.state->CentreBound());
    const double room = 1e-11 * inLipschitz * (body + inPrimitive + inBody.inflate) / inBody.scale;
    return std::isfinite(room) ? room : cInfinity;
}

// A world point in the rest frame: Rᵀ(x − t)/s.
Vec3d ToRest(const DeformedBody& inBody, const Vec3d& inWorld)
{
    return inBody.pose.ApplyInverse(inWorld) / inBody.scale;
}

} // namespace

RestSphereTest::RestSphereTest(const DeformedBody& inBody, const Sphere& inSphere)
    : mCenter(ToRest(inBody, inSphere.center)), mExtra((inSphere.radius + inBody.inflate) / inBody.scale),
      mRoom(Room(inBody, inSphere.center.norm() + inSphere.radius, 1.0))
{
    // A primitive mapped from beyond double's range would test NaNs, which reject: accept instead.
    if (!mCenter.allFinite() || !std::isfinite(mExtra) || mRoom == cInfinity)
    {
        mCenter.setZero();
        mExtra = 0.0;
        mRoom = cInfinity;
    }
}

RestPlaneTest::RestPlaneTest(const DeformedBody& inBody, const Plane& inPlane)
    : mNormal(inBody.pose.rotation.transpose() * inPlane.normal),
      mOffset((inPlane.offset - inPlane.normal.dot(inBody.pose.translation)) / inBody.scale),
      mExtra(inBody.inflate / inBody.scale),
      mRoom(Room(inBody, std::abs(inPlane.offset), std::max(1.0, inPlane.normal.norm())))
{
    if (!mNormal.allFinite() || !std::isfinite(mOffset) || !std::isfinite(mExtra) || mRoom == cInfinity)
    {
        mNormal.setZero();
        mOffset = mExtra = 0.0;
        mRoom = cInfinity;
    }
}

RestBoxTest::RestBoxTest(const DeformedBody& inBody, const OrientedBox& inBox)
    : mAxesT((inBody.pose.rotation.transpose() * inBox.pose.rotation).transpose()),
      mCenter(ToRest(inBody, inBox.pose.translation)), mHalfExtents(inBox.halfExtents / inBody.scale),
      mExtra(inBody.inflate / inBody.scale),
      // The Frobenius norm bounds the axes' spectral norm (√3 for a rotation).
      mRoom(Room(inBody, inBox.pose.translation.norm() + inBox.halfExtents.norm(),
                 std::max(1.0, inBox.pose.rotation.norm())))
{
    if (!mAxesT.allFinite() || !mCenter.allFinite() || !mHalfExtents.allFinite() || !std::isfinite(mExtra) ||
        mRoom == cInfinity)
    {
        mAxesT.setZero();
        mCenter.setZero();
        mHalfExtents.setZero();
        mExtra = 0.0;
        mRoom = cInfinity;
    }
}

RestCapsuleTest::RestCapsuleTest(const DeformedBody& inBody, const Capsule& inCapsule)
    : mA(ToRest(inBody, inCapsule.a)), mAxis(ToRest(inBody, inCapsule.b) - mA),
      mAxisSquared(mAxis.squaredNorm()), mExtra((inCapsule.radius + inBody.inflate) / inBody.scale),
      mRoom(Room(inBody, inCapsule.a.norm() + inCapsule.b.norm() + inCapsule.radius, 1.0))
{
    if (!mA.allFinite() || !mAxis.allFinite() || !std::isfinite(mAxisSquared) || !std::isfinite(mExtra) ||
        mRoom == cInfinity)
    {
        mA.setZero();
        mAxis.setZero();
        mAxisSquared = mExtra = 0.0;
        mRoom = cInfinity;
    }
}

} // namespace bdt
