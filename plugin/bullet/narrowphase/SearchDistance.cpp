#include "SearchDistance.h"
#include "bullet/ShapeSolver.h"

#include "bullet/manifold/PairContact.h"

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/queries/TreeQueries.h>
#include <cmath>
#include <limits>

namespace bdt
{

StepMotion PredictStepMotion(const btCollisionObject& inObject, double inTimeStep)
{
    StepMotion motion;
    motion.centre = ToVec3d(inObject.getWorldTransform().getOrigin());
    if (inObject.isStaticObject() && !inObject.isKinematicObject())
    {
        motion.known = true;
        return motion;
    }
    const btRigidBody* body = btRigidBody::upcast(&inObject);
    if (body == nullptr || inObject.isKinematicObject() || !(body->getInvMass() > 0))
        return motion;
    motion.centre = ToVec3d(body->getCenterOfMassPosition());
    motion.linear = ToVec3d(body->getLinearVelocity()) +
                    ToVec3d(body->getTotalForce()) * (double(body->getInvMass()) * inTimeStep);
    motion.angular = ToVec3d(body->getAngularVelocity()) +
                     ToMat3d(body->getInvInertiaTensorWorld()) * ToVec3d(body->getTotalTorque()) * inTimeStep;
    const btCollisionShape* shape = inObject.getCollisionShape();
    if (const DeformableShape* deformable = AsDeformable(shape))
    {
        motion.reach = deformable->SurfaceReach();
        motion.modalSpeed = deformable->ModalSurfaceSpeed();
        motion.deformable = deformable;
        motion.restToWorld = deformable->RestToWorld(inObject.getWorldTransform());
    }
    else
        motion.reach = double(shape->getAngularMotionDisc());
    motion.known = motion.linear.allFinite() && motion.angular.allFinite() && motion.centre.allFinite() &&
                   std::isfinite(motion.reach) && std::isfinite(motion.modalSpeed);
    return motion;
}

void StepMotionCache::Begin(double inTimeStep)
{
    mTimeStep = inTimeStep;
    if (++mStamp == 0) // after 2³² steps: no stale stamp may match the restarted count
    {
        for (Entry& entry : mEntries)
            entry.stamp = 0;
        mStamp = 1;
    }
}

const StepMotionCache::Entry& StepMotionCache::Current(const btCollisionObject& inObject)
{
    const int index = inObject.getWorldArrayIndex();
    Entry* entry = &mOutside; // an object outside a world: made every time
    if (index >= 0)
    {
        if (std::size_t(index) >= mEntries.size())
            mEntries.resize(std::size_t(index) + 1);
        entry = &mEntries[std::size_t(index)];
        if (entry->stamp == mStamp)
            return *entry;
        entry->stamp = mStamp;
    }
    entry->motion = PredictStepMotion(inObject, mTimeStep);
    if (const DeformableShape* deformable = AsDeformable(inObject.getCollisionShape()))
    {
        // The root sphere as the narrowphase places it (`DeformableShape::QueryView`, `detail::PlaceSphere`).
        const DeformedBody body = deformable->QueryView(inObject.getWorldTransform());
        const UpdatedSphere root = body.state->Sphere(0);
        entry->motion.rootCentre =
            body.pose.Apply(body.scale * Vec3d(root.center[0], root.center[1], root.center[2]));
        entry->motion.rootRadius = body.scale * double(root.radius);
    }
    entry->shapeThreshold =
        double(inObject.getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold));
    return *entry;
}

StepMotion StepMotionCache::MotionOf(const btCollisionObject& inObject)
{
    return Current(inObject).motion;
}

double StepMotionCache::ShapeThresholdOf(const btCollisionObject& inObject)
{
    return Current(inObject).shapeThreshold;
}

Vec3d StepMotion::VelocityAt(const Vec3d& inPoint, const ContactFeature& inFeature) const
{
    const Vec3d frame = linear + angular.cross(inPoint - centre);
    if (deformable == nullptr || inFeature.node == cNoIndex)
        return frame;
    return frame + ShapeSolver::Of(*deformable).ModalVelocity(inFeature, restToWorld);
}

Vec3d StepMotion::NodeVelocityAt(const Vec3d& inPoint, std::uint32_t inNode, double& outSpread) const
{
    outSpread = 0.0;
    const Vec3d frame = linear + angular.cross(inPoint - centre);
    if (deformable == nullptr || inNode == cNoIndex)
        return frame;
    return frame + ShapeSolver::Of(*deformable).NodeModalVelocity(inNode, restToWorld, outSpread);
}

double SurfaceSpeedBound(const btCollisionObject& inObject, double inTimeStep)
{
    // Closing on a static object: |v − 0| + |ω|·r + 0 + the modes' speed.
    StepMotion still;
    still.known = true;
    return ClosingSpeedBound(PredictStepMotion(inObject, inTimeStep), still);
}

double ClosingSpeedBound(const StepMotion& inA, const StepMotion& inB)
{
    if (!inA.known || !inB.known)
        return std::numeric_limits<double>::infinity();
    const auto turning = [](const StepMotion& inMotion)
    {
        const double angular = inMotion.angular.norm();
        return angular > 0.0 ? angular * inMotion.reach : 0.0;
    };
    const double speed =
        (inA.linear - inB.linear).norm() + turning(inA) + turning(inB) + inA.modalSpeed + inB.modalSpeed;
    return std::isfinite(speed) ? speed : std::numeric_limits<double>::infinity();
}

double ContactSearchDistance(double inThreshold, double inTimeStep, const StepMotion& inA,
                             const StepMotion& inB)
{
    if (!(inTimeStep > 0.0) || !std::isfinite(inTimeStep))
        return inThreshold;
    const double closing = ClosingSpeedBound(inA, inB);
    if (!(closing < std::numeric_limits<double>::infinity()))
        return inThreshold;
    return std::min(inThreshold, std::max(cSearchFloor * inThreshold, 2.0 * inTimeStep * closing));
}

double ContactSearchDistance(double inThreshold, double inTimeStep, const StepMotion& inA,
                             const StepMotion& inB, double inCap, double inSteps)
{
    if (!(inCap > inThreshold))
        return ContactSearchDistance(inThreshold, inTimeStep, inA, inB);
    if (!(inTimeStep > 0.0) || !std::isfinite(inTimeStep))
        return inThreshold;
    const double within = ContactSearchDistance(inThreshold, inTimeStep, inA, inB);
    if (!inA.known || !inB.known)
        return within;
    // Beyond τ only as far as the frames close along their line over the steps: a falling or thrown body.
    // (The rotations' and the modes' bounds, which `ClosingSpeedBound` adds, are bounds, often far above what
    // the surfaces do; past τ they would cull with spheres grown far beyond any contact.)
    const double linear = (inA.linear - inB.linear).norm();
    return std::max(within, std::min(inCap, inSteps * inTimeStep * linear));
}

double SpeculativeReach(const StepMotion& inA, const StepMotion& inB)
{
    double smaller = std::numeric_limits<double>::infinity();
    for (const StepMotion* motion : {&inA, &inB})
        if (motion->reach > 0.0)
            smaller = std::min(smaller, motion->reach);
    return std::isfinite(smaller) ? 0.5 * smaller : 0.0;
}

double ContactSearchDistance(double inThreshold, double inTimeStep, const btCollisionObject& inA,
                             const btCollisionObject& inB)
{
    return ContactSearchDistance(inThreshold, inTimeStep, PredictStepMotion(inA, inTimeStep),
                                 PredictStepMotion(inB, inTimeStep));
}

SpeculativeFilter::SpeculativeFilter(double inThreshold, double inTimeStep, const StepMotion& inA,
                                     const StepMotion& inB)
    : mA(inA), mB(inB), mFloor(cSearchFloor * inThreshold), mTwiceStep(2.0 * inTimeStep)
{
    mActive = inTimeStep > 0.0 && std::isfinite(inTimeStep) && std::isfinite(inThreshold) &&
              std::isfinite(ClosingSpeedBound(inA, inB));
}

std::pair<double, double> SpeculativeFilter::Approach(const PairContact& inContact) const
{
    const Vec3d pointOnA = inContact.pointOnB + inContact.normal * inContact.distance;
    if (!inContact.Unnamed())
    {
        const ContactFeature noFeature;
        return {-inContact.normal.dot(
                    mA.VelocityAt(pointOnA, inContact.feature0) -
                    mB.VelocityAt(inContact.pointOnB, mB.deformable != nullptr ? inContact.feature1 : noFeature)),
                0.0};
    }
    double spreadA = 0.0, spreadB = 0.0;
    const Vec3d velocityA = mA.NodeVelocityAt(pointOnA, inContact.feature0.node, spreadA);
    const Vec3d velocityB = mB.NodeVelocityAt(
        inContact.pointOnB, mB.deformable != nullptr ? inContact.feature1.node : cNoIndex, spreadB);
    return {-inContact.normal.dot(velocityA - velocityB), spreadA + spreadB};
}

SpeculativeFilter::EVerdict SpeculativeFilter::Judge(const PairContact& inContact) const
{
    if (!mActive || !(inContact.distance > mFloor))
        return EVerdict::Keeps; // (a NaN distance is kept for the manifold's own checks to see)
    const auto [approach, spread] = Approach(inContact);
    if (inContact.distance > mTwiceStep * (approach + spread))
        return EVerdict::Drops;
    return inContact.distance > mTwiceStep * (approach - spread) ? EVerdict::NeedsName : EVerdict::Keeps;
}

} // namespace bdt
