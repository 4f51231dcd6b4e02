#pragma once

// bdt::World's record of one body, shared by World.cpp and WorldState.cpp (the snapshots).

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btDefaultMotionState.h>
#include <bdt/adapter/World.h>
#include "HostJointSolve.h"
#include "WheelPress.h"
#include "SurfaceAttachment.h"

#include <bdt/bullet/DeformableShape.h>
#include <memory>
#include <vector>

namespace bdt
{

/// One attached body: the Bullet objects (owned) and what the step needs to remember about its frame.
struct World::Body
{
    std::unique_ptr<DeformableShape> shape;
    std::unique_ptr<btDefaultMotionState> motionState;
    std::unique_ptr<btRigidBody> rigidBody;
    btVector3 previousLinearVelocity{0, 0, 0}; ///< For the frame's acceleration (inertial forcing).
    btVector3 previousAngularVelocity{0, 0, 0};
    bool hasPreviousVelocity = false; ///< False until the first modal step.
    /// The contacts' generalised impulse the modal step holds as a force (the last solve's; its change is
    /// kicked), and the inertial force it last held (M entries each; empty before the first step).
    std::vector<double> heldImpulse, heldInertial;
    btTransform lastGoodTransform =
        btTransform::getIdentity(); ///< Restored if the transform goes non-finite.
    /// The mass properties last seen valid (1/kg, 1/(kg·m²) about the principal axes), restored if they are not.
    btScalar lastGoodInverseMass = 0;
    btVector3 lastGoodInverseInertia{0, 0, 0};
    bool simulatedAtPreTick = false; ///< Not `DISABLE_SIMULATION` when the step began.
    /// The generalised force of `ApplyForce` calls since the last modal step (M entries, or empty: none), held
    /// over the next one.
    std::vector<double> userForce;
    btVector3 stepStart{0, 0, 0};   ///< Centre of mass at the step's start, for the fast-body sweep.
    /// Bullet's transform and q at the start of the last internal step, after the state guard: what
    /// `World::PreviousMeshTransform` and `PreviousQ` give for motion vectors (M entries of q).
    btTransform previousTransform = btTransform::getIdentity();
    std::vector<float> previousQ;
    /// What the attachments holding the body change of its generalised impulse in the current solve (zeroed
    /// before each).
    detail::AttachmentModes attachmentModes;
};

/// A Bullet constraint (a joint the host added) holding one or two of World's bodies (WorldJoints.cpp): over a
/// step its frames on our bodies follow the surface they hold and `solve` solves it with the modes.
struct World::JointWatch
{
    btTypedConstraint* constraint = nullptr;
    Body* bodies[2] = {nullptr, nullptr};    ///< Ours among its bodies A and B, or null.
    detail::JointAnchor anchors[2];          ///< For our sides.
    /// Solves the joint in its place while watched (added to the world, the host's joint disabled); kept from
    /// step to step for the impulse the modes hold.
    std::unique_ptr<detail::HostJointSolve> solve;
    bool linked = false; ///< The host added its joint with collisions between its bodies off.
    int index = 0;       ///< Where it was in the world's constraints when watched.
};

} // namespace bdt
