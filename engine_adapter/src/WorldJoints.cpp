// bdt::World and the host's own Bullet joints: the impulse a btTypedConstraint applies to a deformable body made
// by World reaches its modes at the surface point where the joint holds it, as a contact's does (issue 55).

#include "SurfaceAttachment.h"
#include "WorldBody.h"

#include "core/geometry/TriangleGeometry.h"

#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/queries/TreeQueries.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace bdt
{

namespace
{

// The arm of the points about an anchor that carry a joint's torque, as a fraction of the rest body's reach from
// its centre of mass: long enough to load the modes' rotation at the pivot, short enough to stay near it.
constexpr double cCoupleArm = 0.1;

// The frame in which joint `inJoint` holds its body `inSide` (0: A, 1: B), in that body's frame (its centre of
// mass and principal axes for ours): a ball joint's pivot (no axes), the joint frame of the others. False for a
// constraint type without one (a gear).
bool JointFrame(const btTypedConstraint& inJoint, int inSide, btTransform& outFrame)
{
    const bool a = inSide == 0;
    switch (inJoint.getConstraintType())
    {
    case POINT2POINT_CONSTRAINT_TYPE:
    {
        const auto& joint = static_cast<const btPoint2PointConstraint&>(inJoint);
        outFrame = btTransform(btMatrix3x3::getIdentity(), a ? joint.getPivotInA() : joint.getPivotInB());
        return true;
    }
    case HINGE_CONSTRAINT_TYPE:
    {
        const auto& joint = static_cast<const btHingeConstraint&>(inJoint);
        outFrame = a ? joint.getAFrame() : joint.getBFrame();
        return true;
    }
    case CONETWIST_CONSTRAINT_TYPE:
    {
        const auto& joint = static_cast<const btConeTwistConstraint&>(inJoint);
        outFrame = a ? joint.getAFrame() : joint.getBFrame();
        return true;
    }
    case SLIDER_CONSTRAINT_TYPE:
    {
        const auto& joint = static_cast<const btSliderConstraint&>(inJoint);
        outFrame = a ? joint.getFrameOffsetA() : joint.getFrameOffsetB();
        return true;
    }
    case D6_CONSTRAINT_TYPE:
    case D6_SPRING_CONSTRAINT_TYPE:
    {
        const auto& joint = static_cast<const btGeneric6DofConstraint&>(inJoint);
        outFrame = a ? joint.getFrameOffsetA() : joint.getFrameOffsetB();
        return true;
    }
    case D6_SPRING_2_CONSTRAINT_TYPE:
    case FIXED_CONSTRAINT_TYPE:
    {
        const auto& joint = static_cast<const btGeneric6DofSpring2Constraint&>(inJoint);
        outFrame = a ? joint.getFrameOffsetA() : joint.getFrameOffsetB();
        return true;
    }
    default:
        return false;
    }
}

// Sets the frame in which joint `inJoint` holds its body `inSide` to `inFrame` (body frame); the type has one
// (`JointFrame`). A ball joint takes the origin alone.
void SetJointFrame(btTypedConstraint& ioJoint, int inSide, const btTransform& inFrame)
{
    const bool a = inSide == 0;
    switch (ioJoint.getConstraintType())
    {
    case POINT2POINT_CONSTRAINT_TYPE:
    {
        auto& joint = static_cast<btPoint2PointConstraint&>(ioJoint);
        if (a)
            joint.setPivotA(inFrame.getOrigin());
        else
            joint.setPivotB(inFrame.getOrigin());
        return;
    }
    case HINGE_CONSTRAINT_TYPE:
    {
        auto& joint = static_cast<btHingeConstraint&>(ioJoint);
        (a ? joint.getAFrame() : joint.getBFrame()) = inFrame;
        return;
    }
    case CONETWIST_CONSTRAINT_TYPE:
    {
        auto& joint = static_cast<btConeTwistConstraint&>(ioJoint);
        joint.setFrames(a ? inFrame : joint.getAFrame(), a ? joint.getBFrame() : inFrame);
        return;
    }
    case SLIDER_CONSTRAINT_TYPE:
    {
        auto& joint = static_cast<btSliderConstraint&>(ioJoint);
        (a ? joint.getFrameOffsetA() : joint.getFrameOffsetB()) = inFrame;
        return;
    }
    case D6_CONSTRAINT_TYPE:
    case D6_SPRING_CONSTRAINT_TYPE:
    {
        auto& joint = static_cast<btGeneric6DofConstraint&>(ioJoint);
        (a ? joint.getFrameOffsetA() : joint.getFrameOffsetB()) = inFrame;
        return;
    }
    case D6_SPRING_2_CONSTRAINT_TYPE:
    case FIXED_CONSTRAINT_TYPE:
    {
        auto& joint = static_cast<btGeneric6DofSpring2Constraint&>(ioJoint);
        (a ? joint.getFrameOffsetA() : joint.getFrameOffsetB()) = inFrame;
        return;
    }
    default:
        return;
    }
}

// The body's Bullet frame from its mesh frame: b = s·M·x + o (M a rotation, s the scale, o where the mesh's
// origin is), the same for every pose: found with the body at the origin, so that its rounding is too.
struct MeshToBody
{
    Mat3d rotation;
    double scale;
    Vec3d origin;
};

MeshToBody MeshToBodyOf(const DeformableShape& inShape)
{
    const DeformedBody view = inShape.QueryView(btTransform::getIdentity());
    return {view.pose.rotation, view.scale, view.pose.translation};
}

// A surface point's rest position (`inRest`) or its displacement by the modes at the current q, body frame.
Vec3d SurfacePointInBody(const DeformableShape& inShape, const MeshToBody& inMesh, std::uint32_t inTriangle,
                         const Vec3d& inWeights, bool inRest)
{
    const Model& model = inShape.Asset().GetModel();
    const Triangle& corners = model.Triangles()[inTriangle];
    Vec3d point = Vec3d::Zero();
    for (int k = 0; k < 3; ++k)
        point += inWeights[k] * model.Positions()[corners[k]].cast<double>();
    if (!inRest)
    {
        Vec3d deformed[3];
        DeformedTriangle(inShape.State(), inTriangle, deformed);
        point = inWeights[0] * deformed[0] + inWeights[1] * deformed[1] + inWeights[2] * deformed[2] - point;
    }
    return inMesh.scale * (inMesh.rotation * point) + (inRest ? inMesh.origin : Vec3d::Zero());
}

// The point of the rest surface nearest `inPoint` (mesh frame, model units): its triangle and weights. A loop over
// the triangles (~100 flops each), once per joint and body: the anchor depends on the asset and the joint's frame
// alone, not on when it is first seen, so a restored snapshot finds the same one.
bool NearestRestPoint(const Model& inModel, const Vec3d& inPoint, std::uint32_t& outTriangle, Vec3d& outWeights)
{
    double best = std::numeric_limits<double>::infinity();
    const std::span<const Triangle> triangles = inModel.Triangles();
    const std::span<const Vec3f> positions = inModel.Positions();
    for (std::size_t t = 0; t < triangles.size(); ++t)
    {
        const Vec3d corners[3] = {positions[triangles[t][0]].cast<double>(), positions[triangles[t][1]].cast<double>(),
                                  positions[triangles[t][2]].cast<double>()};
        const Vec3d weights = ClosestBarycentric(inPoint, corners);
        const double distance =
            (weights[0] * corners[0] + weights[1] * corners[1] + weights[2] * corners[2] - inPoint).squaredNorm();
        if (distance < best)
        {
            best = distance;
            outTriangle = std::uint32_t(t);
            outWeights = weights;
        }
    }
    return std::isfinite(best);
}

// The anchor where joint frame `inFrame` (body frame) holds `inShape`: the rest surface's point nearest the pivot,
// six more about it at ± a tenth of the body's reach along the body's axes, and the torque's spread over them.
// False where the body has no surface.
bool MakeAnchor(const DeformableShape& inShape, const btTransform& inFrame, detail::JointAnchor& outAnchor)
{
    outAnchor = {};
    outAnchor.frame = inFrame;
    const Model& model = inShape.Asset().GetModel();
    const MeshToBody mesh = MeshToBodyOf(inShape);
    const Vec3d pivotMesh = mesh.rotation.transpose() * (ToVec3d(inFrame.getOrigin()) - mesh.origin) / mesh.scale;
    std::uint32_t triangle = 0;
    Vec3d weights;
    if (!(mesh.scale > 0.0) || !pivotMesh.allFinite() || !NearestRestPoint(model, pivotMesh, triangle, weights))
        return false;
    const Vec3d anchorRest = SurfacePointInBody(inShape, mesh, triangle, weights, true);
    outAnchor.pivotArm = ToVec3d(inFrame.getOrigin()) - anchorRest;
    outAnchor.triangles[0] = triangle;
    outAnchor.weights[0] = weights;
    outAnchor.points = 1;
    const Vec3d anchorMesh = mesh.rotation.transpose() * (anchorRest - mesh.origin) / mesh.scale;
    // The rest surface's reach from the centre of mass: the same whenever the anchor is made.
    double reach = 0.0;
    for (const Vec3f& position : model.Positions())
        reach = std::max(reach, (mesh.scale * (mesh.rotation * position.cast<double>()) + mesh.origin).norm());
    const double arm = cCoupleArm * reach;
    for (int axis = 0; axis < 3 && arm > 0.0; ++axis)
        for (const double sign : {1.0, -1.0})
        {
            const Vec3d at = anchorMesh + sign * arm / mesh.scale * Vec3d(mesh.rotation.row(axis).transpose());
            if (NearestRestPoint(model, at, triangle, weights))
            {
                outAnchor.triangles[outAnchor.points] = triangle;
                outAnchor.weights[outAnchor.points] = weights;
                ++outAnchor.points;
            }
        }
    // Forces F_k at the points (arms d_k from the anchor, rest shape) with Σ F_k = 0 and Σ d_k × F_k = τ, of least
    // Σ|F_k|²: F = Aᵀ (A Aᵀ)⁻¹ [0; τ] for the 6 × 3n matrix A of rows [I ...] and [[d_k]× ...].
    const int n = outAnchor.points;
    Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(6, 3 * n);
    for (int k = 0; k < n; ++k)
    {
        const Vec3d d =
            SurfacePointInBody(inShape, mesh, outAnchor.triangles[k], outAnchor.weights[k], true) - anchorRest;
        rows.block<3, 3>(0, 3 * k).setIdentity();
        rows.block<3, 3>(3, 3 * k) = detail::Skew(d);
    }
    const Eigen::Matrix<double, 6, 6> gram = rows * rows.transpose();
    const Eigen::LDLT<Eigen::Matrix<double, 6, 6>> solve(gram);
    // Points on a line (a thin rod) cannot exert a torque about it: no couple, and the frame does not turn.
    const double floor = 1e-6 * arm * arm * double(n);
    bool spans = solve.info() == Eigen::Success && arm > 0.0;
    for (int i = 0; i < 6 && spans; ++i)
        spans = solve.vectorD()[i] > floor * (i < 3 ? 1.0 : arm * arm);
    Eigen::Matrix<double, 6, 3> select = Eigen::Matrix<double, 6, 3>::Zero();
    select.bottomRows<3>().setIdentity();
    const Eigen::MatrixXd spread = spans ? Eigen::MatrixXd(rows.transpose() * solve.solve(select))
                                         : Eigen::MatrixXd::Zero(3 * n, 3);
    for (int k = 0; k < n; ++k)
        outAnchor.torqueToForce[k] = spread.block<3, 3>(3 * k, 0);
    return true;
}

// The joint frame that holds the surface where the modes put it: moved by the anchor's displacement and turned by
// the material's rotation there (the torque spread's transpose applied to the points' displacements), body frame.
btTransform FollowedFrame(const DeformableShape& inShape, const detail::JointAnchor& inAnchor)
{
    const MeshToBody mesh = MeshToBodyOf(inShape);
    Vec3d rotation = Vec3d::Zero();
    Vec3d moved = Vec3d::Zero();
    for (int k = 0; k < inAnchor.points; ++k)
    {
        const Vec3d displacement =
            SurfacePointInBody(inShape, mesh, inAnchor.triangles[k], inAnchor.weights[k], false);
        rotation += inAnchor.torqueToForce[k].transpose() * displacement;
        if (k == 0)
            moved = displacement;
    }
    moved += rotation.cross(inAnchor.pivotArm);
    btTransform frame = inAnchor.frame;
    frame.setOrigin(inAnchor.frame.getOrigin() + ToBtVector(moved));
    const double angle = rotation.norm();
    if (angle > 0.0 && std::isfinite(angle))
        frame.setBasis(btMatrix3x3(btQuaternion(ToBtVector(Vec3d(rotation / angle)), btScalar(angle))) *
                       inAnchor.frame.getBasis());
    return frame;
}

// Whether one of the joint's bodies has a deformable's shape: a test of a few nanoseconds before the lookups, as
// most of a world's joints hold none (`DeformableShape` reports CUSTOM_CONCAVE_SHAPE_TYPE; Bullet's fixed body
// has no shape).
bool MayHoldADeformable(const btTypedConstraint& inJoint)
{
    for (const btRigidBody* body : {&inJoint.getRigidBodyA(), &inJoint.getRigidBodyB()})
        if (const btCollisionShape* shape = body->getCollisionShape();
            shape != nullptr && shape->getShapeType() == CUSTOM_CONCAVE_SHAPE_TYPE)
            return true;
    return false;
}

} // namespace

bool World::MakeWatch(btTypedConstraint& ioJoint, JointWatch* ioPrevious, JointWatch& outWatch)
{
    btTypedConstraint* joint = &ioJoint;
    if (!joint->isEnabled() || dynamic_cast<detail::SurfaceAttachment*>(joint) != nullptr ||
        dynamic_cast<detail::HostJointSolve*>(joint) != nullptr)
        return false; // an attachment solves itself with the modes
    Body* bodies[2] = {FindBody(&joint->getRigidBodyA()), FindBody(&joint->getRigidBodyB())};
    btTransform frames[2];
    for (int side = 0; side < 2; ++side)
        if (bodies[side] != nullptr && !JointFrame(*joint, side, frames[side]))
            bodies[side] = nullptr; // a joint without a frame (a gear): solved by Bullet as it is
    if (bodies[0] == nullptr && bodies[1] == nullptr)
        return false;
    outWatch.constraint = joint;
    btRigidBody& a = joint->getRigidBodyA();
    for (int ref = 0; ref < a.getNumConstraintRefs() && !outWatch.linked; ++ref)
        outWatch.linked = a.getConstraintRef(ref) == joint;
    for (int side = 0; side < 2; ++side)
    {
        Body* body = outWatch.bodies[side] = bodies[side];
        if (body == nullptr)
            continue;
        if (ioPrevious != nullptr && ioPrevious->bodies[side] == body && ioPrevious->anchors[side].frame == frames[side])
            outWatch.anchors[side] = ioPrevious->anchors[side];
        else if (!MakeAnchor(*body->shape, frames[side], outWatch.anchors[side]))
            outWatch.bodies[side] = nullptr;
    }
    if (outWatch.bodies[0] == nullptr && outWatch.bodies[1] == nullptr)
        return false;
    if (ioPrevious != nullptr && ioPrevious->solve)
        outWatch.solve = std::move(ioPrevious->solve);
    else
        outWatch.solve = std::make_unique<detail::HostJointSolve>(*joint);
    return true;
}

void World::WatchJoints()
{
    ReleaseJoints(0.0); // a step whose post-tick did not run: the joints back as the host set them
    if (mRigid)
    {
        mJoints.clear();
        return;
    }
    // Last step's watches by joint: their anchors are kept while the joint holds the same body in the same frame,
    // their solves for the impulse the modes hold.
    std::unordered_map<const btTypedConstraint*, JointWatch*> previous;
    previous.reserve(mJoints.size());
    for (JointWatch& watch : mJoints)
        previous.emplace(watch.constraint, &watch);
    std::vector<JointWatch> joints;
    const int count = mWorld.getNumConstraints();
    for (int i = 0; i < count; ++i)
    {
        btTypedConstraint* joint = mWorld.getConstraint(i);
        if (!MayHoldADeformable(*joint))
            continue;
        const auto found = previous.find(joint);
        JointWatch watch;
        if (MakeWatch(*joint, found != previous.end() ? found->second : nullptr, watch))
        {
            watch.index = i;
            joints.push_back(std::move(watch));
        }
    }
    mJoints.swap(joints);
    // Each frame on our bodies moves and turns with the surface it holds, so that the joint holds the surface
    // where it is, as an attachment does; its solve stands in for it over the step.
    const btContactSolverInfo& info = mWorld.getSolverInfo();
    for (JointWatch& watch : mJoints)
    {
        detail::HostJointSide sides[2];
        for (int side = 0; side < 2; ++side)
        {
            Body* body = watch.bodies[side];
            if (body == nullptr)
                continue;
            if (mAttachments.empty()) // else the pre-tick reset them
                body->attachmentModes.Reset(body->shape->Dynamics().ModeCount());
            SetJointFrame(*watch.constraint, side,
                          FollowedFrame(*body->shape, watch.anchors[side]));
            sides[side] = {body->shape.get(), &watch.anchors[side], &body->attachmentModes};
        }
        watch.solve->SetSides(sides[0], sides[1], double(info.m_erp), double(info.m_damping),
                              double(info.m_globalCfm), info.m_numIterations);
        watch.constraint->setEnabled(false);
        mWorld.addConstraint(watch.solve.get(), watch.linked);
    }
    mJointsWatched = !mJoints.empty();
}

void World::ReleaseJoints(double inTimeStep)
{
    if (!mJointsWatched)
        return;
    mJointsWatched = false;
    for (JointWatch& watch : mJoints)
        mWorld.removeConstraint(watch.solve.get());
    const auto putBack = [&](JointWatch& ioWatch)
    {
        ioWatch.constraint->setEnabled(true);
        for (int side = 0; side < 2; ++side)
            if (ioWatch.bodies[side] != nullptr)
                SetJointFrame(*ioWatch.constraint, side, ioWatch.anchors[side].frame);
        if (inTimeStep > 0.0)
            ioWatch.solve->Finish(inTimeStep); // the modes' impulse; the host's feedback and breaking
    };
    // Only joints still in the world are put back: one the host removed during the step may be gone. Where the
    // host changed no constraint, each is where it was watched (the stand-ins came after them all).
    const int count = mWorld.getNumConstraints();
    if (std::all_of(mJoints.begin(), mJoints.end(), [&](const JointWatch& inWatch)
                    { return inWatch.index < count && mWorld.getConstraint(inWatch.index) == inWatch.constraint; }))
    {
        for (JointWatch& watch : mJoints)
            putBack(watch);
        return;
    }
    std::unordered_map<const btTypedConstraint*, JointWatch*> watched;
    watched.reserve(mJoints.size());
    for (JointWatch& watch : mJoints)
        watched.emplace(watch.constraint, &watch);
    for (int i = 0; i < count && !watched.empty(); ++i)
    {
        const auto found = watched.find(mWorld.getConstraint(i));
        if (found == watched.end())
            continue;
        putBack(*found->second);
        watched.erase(found);
    }
    // Those the host removed: forgotten (not touched), and not kept for their anchors.
    for (const auto& [joint, watch] : watched)
        watch->constraint = nullptr;
}

} // namespace bdt
