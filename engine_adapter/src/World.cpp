// bdt::World: the BD-Tree bodies' part of a host Bullet step (pre-tick modal step, post-solve read-back).

#include "ContactModes.h"
#include "CoupledContacts.h"
#include "FastBodySweep.h"
#include "PhaseTimer.h"
#include "SurfaceAttachment.h"
#include "WorldBody.h"

#include "core/Fnv1a.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btActionInterface.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btDefaultMotionState.h>
#include <LinearMath/btIDebugDraw.h>
#include <algorithm>
#include <bdt/adapter/World.h>
#include <bdt/bullet/CollisionRegistration.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/ParallelDispatcher.h>
#include <bdt/core/AssetFile.h>
#include <bdt/core/Error.h>
#include <bdt/core/ModalProperties.h>
#include <bdt/core/Prefetch.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <thread>
#include <tuple>
#include <utility>

namespace bdt
{

namespace
{

using Clock = std::chrono::steady_clock;

// J/kg: below this a sleeping body's vibration is not worth a modal step (an amplitude of about 1e-7 of a
// metre-sized body at 40 Hz); a cut-off for work, not physics.
constexpr double cRingDownFloor = 1e-12;

double Milliseconds(Clock::time_point inStart)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - inStart).count();
}

// Draws the updated sphere of `inNode` of a body where the body places it.
void DrawNodeSphere(btIDebugDraw& ioDrawer, const DeformedBody& inBody, std::uint32_t inNode,
                    const btVector3& inColor)
{
    const UpdatedSphere sphere = inBody.state->Sphere(inNode);
    const Vec3d center =
        inBody.pose.Apply(inBody.scale * Vec3d(sphere.center[0], sphere.center[1], sphere.center[2]));
    ioDrawer.drawSphere(ToBtVector(center), btScalar(inBody.scale * sphere.radius), inColor);
}

// Outlines deformed triangle `inTriangle` (tree order) of a body where the body places it.
void DrawTriangle(btIDebugDraw& ioDrawer, const DeformedBody& inBody, std::uint32_t inTriangle,
                  const btVector3& inColor)
{
    Vec3d vertices[3];
    DeformedTriangle(*inBody.state, inTriangle, vertices);
    btVector3 world[3];
    for (int k = 0; k < 3; ++k)
        world[k] = ToBtVector(inBody.pose.Apply(inBody.scale * vertices[k]));
    for (int k = 0; k < 3; ++k)
        ioDrawer.drawLine(world[k], world[(k + 1) % 3], inColor);
}

// The host's internal tick callbacks are protected members of btDynamicsWorld without getters; a
// pointer to member taken in a derived class's scope reads them without any cast of the world object.
struct TickCallbackAccess : btDynamicsWorld
{
    static btInternalTickCallback& Pre(btDynamicsWorld& inWorld)
    {
        return inWorld.*(&TickCallbackAccess::m_internalPreTickCallback);
    }
    static btInternalTickCallback& Post(btDynamicsWorld& inWorld)
    {
        return inWorld.*(&TickCallbackAccess::m_internalTickCallback);
    }
};

// Which World serves which Bullet world: the tick callbacks get only the btDynamicsWorld, and its user info
// belongs to the host. A handful of entries; looked up twice a step.
std::vector<std::pair<btDynamicsWorld*, World*>>& Registry()
{
    static std::vector<std::pair<btDynamicsWorld*, World*>> registry;
    return registry;
}

World* Find(btDynamicsWorld* inWorld)
{
    for (const auto& [world, adapter] : Registry())
        if (world == inWorld)
            return adapter;
    return nullptr;
}

// How far BᵀB may stray from the identity for a basis to count as a rotation: a float basis built from a
// quaternion or Euler angles is within a few 1e-7.
constexpr double cBasisTolerance = 1e-4;
// Beyond this the state guard does not trust the basis at all and puts the body back; below it, it makes the
// basis the rotation of its quaternion (as Bullet's integration does every step for a plain body).
constexpr double cBasisRepairLimit = 0.1;

// max |BᵀB − I|, and whether det B > 0 (infinite for a non-finite basis).
double RotationError(const btMatrix3x3& inBasis, bool& outProper)
{
    const Mat3d basis = ToMat3d(inBasis);
    outProper = basis.determinant() > 0.0;
    const double error = (basis.transpose() * basis - Mat3d::Identity()).cwiseAbs().maxCoeff();
    return std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
}

void ValidateSettings(const WorldSettings& inSettings)
{
    auto positive = [](double inValue) { return std::isfinite(inValue) && inValue > 0.0; };
    if (!positive(inSettings.maxLinearSpeed) || !positive(inSettings.maxAngularSpeed))
        throw Error("world: maxLinearSpeed and maxAngularSpeed must be finite and > 0");
    if (!positive(inSettings.sweepTravelFraction))
        throw Error("world: sweepTravelFraction must be finite and > 0");
    if (!std::isfinite(inSettings.wakeEnergyPerKg) || inSettings.wakeEnergyPerKg < 0.0 ||
        !std::isfinite(inSettings.coupledTolerance) || inSettings.coupledTolerance < 0.0 ||
        inSettings.coupledSweeps < 0)
        throw Error("world: wakeEnergyPerKg, coupledTolerance and coupledSweeps must be finite and >= 0");
}

// The length in double: a float vector of 1e30 has a length but no finite float length².
double Length(const btVector3& inValue)
{
    return ToVec3d(inValue).norm();
}

// Scales finite `ioValue` down to length `inLimit` if longer; true if it did.
bool ClampLength(btVector3& ioValue, double inLimit)
{
    const double length = Length(ioValue);
    if (!(length > inLimit))
        return false;
    ioValue *= btScalar(inLimit / length);
    return true;
}

void ValidateBodySettings(const BodySettings& inDesc)
{
    if (!std::isfinite(inDesc.mass) || inDesc.mass < 0.0 || (inDesc.mass > 0.0 && inDesc.mass < cMinMass))
        throw Error("body: mass must be 0 (static) or finite and at least " + std::to_string(cMinMass) + " kg");
    if (!std::isfinite(inDesc.scale) || inDesc.scale <= 0.0)
        throw Error("body: scale must be finite and > 0");
    if (!IsFinite(inDesc.transform))
        throw Error("body: transform is not finite");
    // A rotation: orthonormal columns, determinant +1, to the rounding of a float basis (Bullet's shapes and
    // the rest-to-world fit assume it; a scaled basis would place the collision surface off the drawn one).
    bool proper = false;
    if (RotationError(inDesc.transform.getBasis(), proper) > cBasisTolerance || !proper)
        throw Error("body: transform's basis is not a rotation (orthonormal columns, determinant 1); give the size "
                    "as BodySettings::scale");
    const BodyMaterial& m = inDesc.material;
    if (!std::isfinite(m.friction) || m.friction < 0.0f || !std::isfinite(m.rollingFriction) ||
        m.rollingFriction < 0.0f)
        throw Error("body: friction and rolling friction must be finite and >= 0");
    if (!(m.restitution >= 0.0f && m.restitution <= 1.0f))
        throw Error("body: restitution must lie in [0, 1], got " + std::to_string(m.restitution));
    if (!std::isfinite(m.margin) || m.margin < 0.0f)
        throw Error("body: margin must be finite and >= 0");
}

// Bullet's transform of a body whose mesh frame `inMesh` places: its principal frame (centre of mass c,
// principal axes A; a rest point p is at s·Aᵀ(p − c) in it). Mesh frame (D, d), principal (B, o):
// B·s·Aᵀ(p − c) + o = D·s·p + d for all p gives B = D·A and o = d + D·s·c.
btTransform PrincipalFromMesh(const MassProperties& inMass, double inScale, const btTransform& inMesh)
{
    const Mat3d basis = ToMat3d(inMesh.getBasis());
    const Vec3d origin = ToVec3d(inMesh.getOrigin()) + basis * (inScale * inMass.centerOfMass);
    return btTransform(ToBtMatrix(basis * inMass.principalAxes), ToBtVector(origin));
}

} // namespace

btTransform MeshFromPrincipal(const DeformableAsset& inAsset, double inScale, const btTransform& inPrincipal)
{
    const MassProperties& mass = inAsset.Mass();
    const Mat3d basis = ToMat3d(inPrincipal.getBasis()) * mass.principalAxes.transpose();
    const Vec3d origin = ToVec3d(inPrincipal.getOrigin()) - basis * (inScale * mass.centerOfMass);
    return btTransform(ToBtMatrix(basis), ToBtVector(origin));
}

/// Bullet runs a world's actions in each internal step between its integration and the post-tick callback:
/// the one place of the step a host's `setInternalTickCallback` cannot take from the plugin.
class World::TickWatch : public btActionInterface
{
public:
    explicit TickWatch(World& ioOwner) : mOwner(ioOwner) {}
    void updateAction(btCollisionWorld*, btScalar) override { mOwner.WatchTickCallbacks(); }
    void debugDraw(btIDebugDraw*) override {}

private:
    World& mOwner;
};

World::World(btDiscreteDynamicsWorld& ioWorld, const WorldSettings& inSettings)
    : mWorld(ioWorld), mSettings(inSettings)
{
    ValidateSettings(inSettings);
    if (Find(&ioWorld) != nullptr)
        throw Error("world: a bdt::World is already attached to this btDiscreteDynamicsWorld");
    const auto* dispatcher = dynamic_cast<const btCollisionDispatcher*>(ioWorld.getDispatcher());
    if (dispatcher == nullptr || !HasCollisionAlgorithms(*dispatcher))
        throw Error("world: the dispatcher lacks the BD-Tree collision algorithms (deformables would collide with "
                    "nothing): call bdt::registerCollisionAlgorithms(dispatcher) or give it a "
                    "bdt::CollisionConfiguration");
    // Pairs collided in the order of their bodies' broadphase ids, not of the pair cache's history: two worlds
    // built alike then write their manifolds, and solve them, in one order (a loaded snapshot steps alike).
    ioWorld.getDispatchInfo().m_deterministicOverlappingPairs = true;
    mHostPreTick = TickCallbackAccess::Pre(ioWorld);
    mHostPostTick = TickCallbackAccess::Post(ioWorld);
    void* userInfo = ioWorld.getWorldUserInfo();
    ioWorld.setInternalTickCallback(&World::PreTick, userInfo, true);
    ioWorld.setInternalTickCallback(&World::PostTick, userInfo, false);
    Registry().emplace_back(&ioWorld, this);
    mTickWatch = std::make_unique<TickWatch>(*this);
    ioWorld.addAction(mTickWatch.get());
    detail::AcquirePhaseTimer();
}

World::~World()
{
    // A Bullet world destroyed before this World takes its objects' broadphase handles but leaves them in its
    // list (their world array index stays); one that removed a body (`removeRigidBody`) resets the index.
    const bool worldGone =
        !mBodies.empty() && std::all_of(mBodies.begin(), mBodies.end(),
                                        [](const std::unique_ptr<Body>& inBody)
                                        { return inBody->rigidBody->getBroadphaseHandle() == nullptr; }) &&
        std::any_of(mBodies.begin(), mBodies.end(), [](const std::unique_ptr<Body>& inBody)
                    { return inBody->rigidBody->getWorldArrayIndex() >= 0; });
    auto& registry = Registry();
    registry.erase(std::remove_if(registry.begin(), registry.end(),
                                  [this](const auto& inEntry) { return inEntry.second == this; }),
                   registry.end());
    detail::ReleasePhaseTimer();
    if (worldGone)
    {
#ifndef NDEBUG
        std::fprintf(stderr, "bdt::World: its btDiscreteDynamicsWorld was destroyed first; destroy the "
                             "bdt::World before the Bullet world (World.h)\n");
#endif
        return;
    }
    mWorld.removeAction(mTickWatch.get());
    for (auto& [id, attachment] : mAttachments)
        mWorld.removeConstraint(attachment.get());
    mAttachments.clear();
    for (std::unique_ptr<Body>& body : mBodies)
        mWorld.removeRigidBody(body->rigidBody.get());
    mBodies.clear();
    // The host's callbacks back, each only where ours is still installed: a host that replaced one after
    // attaching keeps its own.
    void* userInfo = mWorld.getWorldUserInfo();
    if (TickCallbackAccess::Pre(mWorld) == &World::PreTick)
        mWorld.setInternalTickCallback(mHostPreTick, userInfo, true);
    if (TickCallbackAccess::Post(mWorld) == &World::PostTick)
        mWorld.setInternalTickCallback(mHostPostTick, userInfo, false);
}

void World::SetSettings(const WorldSettings& inSettings)
{
    ValidateSettings(inSettings);
    mSettings = inSettings;
}

btRigidBody* World::CreateBody(std::shared_ptr<const DeformableAsset> inAsset, const BodySettings& inDesc)
{
    if (!inAsset)
        throw Error("body: the asset is null");
    ValidateBodySettings(inDesc);
    DeformableShapeSettings settings = inDesc;
    settings.mass = inDesc.mass > 0.0 ? inDesc.mass : 1.0;

    auto body = std::make_unique<Body>();
    body->shape = std::make_unique<DeformableShape>(std::move(inAsset), settings);
    const btScalar scale = btScalar(inDesc.scale);
    body->shape->setLocalScaling(btVector3(scale, scale, scale));
    body->shape->setMargin(btScalar(inDesc.material.margin));

    btVector3 inertia(0, 0, 0);
    if (inDesc.mass > 0.0)
        body->shape->calculateLocalInertia(btScalar(inDesc.mass), inertia);
    const btTransform placed = PrincipalFromMesh(body->shape->Asset().Mass(), inDesc.scale, inDesc.transform);
    body->motionState = std::make_unique<btDefaultMotionState>(placed);
    btRigidBody::btRigidBodyConstructionInfo info(btScalar(inDesc.mass), body->motionState.get(),
                                                  body->shape.get(), inertia);
    info.m_friction = inDesc.material.friction;
    info.m_restitution = inDesc.material.restitution;
    info.m_rollingFriction = inDesc.material.rollingFriction;
    body->rigidBody = std::make_unique<btRigidBody>(info);
    body->lastGoodTransform = placed;
    body->previousTransform = placed;
    body->lastGoodInverseMass = body->rigidBody->getInvMass();
    body->lastGoodInverseInertia = body->rigidBody->getInvInertiaDiagLocal();
    body->shape->BeginStep();
    const std::span<const float> q = body->shape->State().Q();
    body->previousQ.assign(q.begin(), q.end());

    mWorld.addRigidBody(body->rigidBody.get());
    btRigidBody* pointer = body->rigidBody.get();
    mBodyLookup.emplace(pointer, body.get());
    mBodies.push_back(std::move(body));
    mBodyPointers.push_back(pointer);
    return pointer;
}

btRigidBody* World::CreateBody(const std::string& inAssetPath, const BodySettings& inDesc)
{
    std::shared_ptr<const DeformableAsset> asset;
    for (const auto& [path, loaded] : mAssetsByPath)
        if (path == inAssetPath)
            asset = loaded;
    if (!asset)
    {
        try
        {
            asset = DeformableAsset::Create(LoadAsset(inAssetPath));
        }
        catch (const Error& error)
        {
            throw Error(inAssetPath + ": " + error.what());
        }
        mAssetsByPath.emplace_back(inAssetPath, asset);
    }
    return CreateBody(std::move(asset), inDesc);
}

namespace
{

/// Whether `inShape` is `inTarget` or holds it as a child (compounds, at any depth).
bool HoldsShape(const btCollisionShape* inShape, const btCollisionShape* inTarget)
{
    if (inShape == inTarget)
        return true;
    if (inShape == nullptr || !inShape->isCompound())
        return false;
    const auto* compound = static_cast<const btCompoundShape*>(inShape);
    for (int i = 0; i < compound->getNumChildShapes(); ++i)
        if (HoldsShape(compound->getChildShape(i), inTarget))
            return true;
    return false;
}

} // namespace

bool World::DestroyBody(btRigidBody* inBody)
{
    for (std::size_t i = 0; i < mBodies.size(); ++i)
    {
        if (mBodies[i]->rigidBody.get() != inBody)
            continue;
        // The shape dies with the body: an object still colliding with it would read freed memory next step.
        const btCollisionShape* shape = inBody->getCollisionShape();
        const btCollisionObjectArray& objects = mWorld.getCollisionObjectArray();
        for (int k = 0; k < objects.size(); ++k)
            if (objects[k] != inBody && HoldsShape(objects[k]->getCollisionShape(), shape))
                throw Error("DestroyBody: collision object " + std::to_string(k) + " of the Bullet world still "
                            "holds this body's DeformableShape; give it another shape first");
        DetachAll(inBody);
        mWorld.removeRigidBody(inBody);
        mBodyLookup.erase(inBody);
        mBodies.erase(mBodies.begin() + std::ptrdiff_t(i));
        mBodyPointers.erase(mBodyPointers.begin() + std::ptrdiff_t(i));
        return true;
    }
    return false;
}

DeformableShape* World::Shape(btRigidBody* inBody)
{
    return inBody != nullptr ? AsDeformable(inBody->getCollisionShape()) : nullptr;
}

const World::Body& World::OwnBody(const btRigidBody* inBody, const char* inCaller) const
{
    if (inBody == nullptr)
        throw Error(std::string(inCaller) + ": the body is null");
    const auto found = mBodyLookup.find(inBody);
    if (found == mBodyLookup.end())
        throw Error(std::string(inCaller) + ": the body was not made by this bdt::World");
    return *found->second;
}

World::Body* World::FindBody(const btRigidBody* inBody)
{
    const auto found = mBodyLookup.find(inBody);
    return found != mBodyLookup.end() ? found->second : nullptr;
}

SurfacePoint World::ClosestSurfacePoint(const btRigidBody* inBody, const btVector3& inWorldPoint) const
{
    const Body& body = OwnBody(inBody, "ClosestSurfacePoint");
    QueryStats stats;
    const std::optional<SurfaceProjection> nearest = bdt::ClosestSurfacePoint(
        body.shape->QueryView(body.rigidBody->getWorldTransform()), ToVec3d(inWorldPoint), stats);
    if (!nearest)
        throw Error("ClosestSurfacePoint: the point is not finite");
    SurfacePoint point;
    point.triangle = body.shape->Asset().Tree().TriangleOrder()[nearest->triangle];
    point.barycentric = ToBtVector(nearest->barycentric);
    return point;
}

btVector3 World::SurfacePosition(const btRigidBody* inBody, const SurfacePoint& inPoint) const
{
    const Body& body = OwnBody(inBody, "SurfacePosition");
    const auto [tree, weights] = TreePoint(body, inPoint, "SurfacePosition");
    return ToBtVector(
        detail::DeformedSurfacePoint(*body.shape, body.rigidBody->getWorldTransform(), tree, weights));
}

std::pair<std::uint32_t, Vec3d> World::TreePoint(const Body& inBody, const SurfacePoint& inPoint,
                                                 const char* inCaller) const
{
    const DeformableShape& shape = *inBody.shape;
    const std::uint32_t tree = shape.Asset().TreeTriangleOf(inPoint.triangle);
    if (tree == cNoIndex)
        throw Error(std::string(inCaller) + ": triangle " + std::to_string(inPoint.triangle) +
                    " is outside the mesh (" + std::to_string(shape.Asset().GetModel().TriangleCount()) +
                    " triangles)");
    const Vec3d weights = ToVec3d(inPoint.barycentric);
    if (!weights.allFinite() || weights.minCoeff() < -1e-4 || std::abs(weights.sum() - 1.0) > 1e-4)
        throw Error(std::string(inCaller) + ": barycentric coordinates must be finite, >= 0 and sum to 1");
    return {tree, weights};
}

AttachmentId World::Attach(btRigidBody* inBody, const SurfacePoint& inPoint, btRigidBody* inTarget,
                           const btVector3& inTargetPoint, const AttachmentSettings& inSettings)
{
    const Body& body = OwnBody(inBody, "Attach");
    if (!IsFinite(inTargetPoint))
        throw Error("Attach: the target point is not finite");
    if (inTarget != nullptr)
    {
        if (inTarget == inBody)
            throw Error("Attach: the target is the body itself");
        if (mWorld.getCollisionObjectArray().findLinearSearch(inTarget) == mWorld.getNumCollisionObjects())
            throw Error("Attach: the target is not in this World's Bullet world");
    }
    return AddAttachment(*FindBody(body.rigidBody.get()), inPoint, inTarget, inTargetPoint, nullptr, {}, inSettings);
}

AttachmentId World::Attach(btRigidBody* inBody, const SurfacePoint& inPoint, btRigidBody* inOther,
                           const SurfacePoint& inOtherPoint, const AttachmentSettings& inSettings)
{
    const Body& body = OwnBody(inBody, "Attach");
    const Body& other = OwnBody(inOther, "Attach");
    if (&body == &other)
        throw Error("Attach: the two deformables are the same body");
    return AddAttachment(*FindBody(body.rigidBody.get()), inPoint, inOther, btVector3(0, 0, 0), FindBody(inOther),
                         inOtherPoint, inSettings);
}

AttachmentId World::AddAttachment(Body& ioBody, const SurfacePoint& inPoint, btRigidBody* inTarget,
                                  const btVector3& inTargetPoint, Body* ioOther,
                                  const SurfacePoint& inOtherPoint, const AttachmentSettings& inSettings)
{
    if (!(inSettings.stiffness > 0.0) || std::isnan(inSettings.stiffness))
        throw Error("Attach: stiffness must be > 0 (infinite: a rigid pin)");
    if (!std::isfinite(inSettings.damping) || inSettings.damping < 0.0)
        throw Error("Attach: damping must be finite and >= 0");
    if (!(inSettings.erp > 0.0 && inSettings.erp <= 1.0))
        throw Error("Attach: erp must lie in (0, 1]");
    detail::AttachmentSide a;
    a.body = ioBody.rigidBody.get();
    a.shape = ioBody.shape.get();
    a.modes = &ioBody.attachmentModes;
    std::tie(a.triangle, a.weights) = TreePoint(ioBody, inPoint, "Attach");
    detail::AttachmentSide b;
    b.body = inTarget != nullptr ? inTarget : &btTypedConstraint::getFixedBody();
    b.local = inTargetPoint;
    if (ioOther != nullptr)
    {
        b.shape = ioOther->shape.get();
        b.modes = &ioOther->attachmentModes;
        std::tie(b.triangle, b.weights) = TreePoint(*ioOther, inOtherPoint, "Attach");
    }
    auto attachment = std::make_unique<detail::SurfaceAttachment>(a, b, inSettings);
    attachment->SetModesTakePart(!mRigid);
    mWorld.addConstraint(attachment.get(), !inSettings.collideConnected);
    a.body->activate(true);
    if (inTarget != nullptr)
        inTarget->activate(true);
    const AttachmentId id{mNextAttachment++};
    mAttachments.emplace_back(id, std::move(attachment));
    return id;
}

bool World::Detach(AttachmentId inId)
{
    for (std::size_t i = 0; i < mAttachments.size(); ++i)
    {
        if (mAttachments[i].first != inId)
            continue;
        detail::SurfaceAttachment& attachment = *mAttachments[i].second;
        mWorld.removeConstraint(&attachment);
        attachment.getRigidBodyA().activate(true);
        attachment.getRigidBodyB().activate(true);
        mAttachments.erase(mAttachments.begin() + std::ptrdiff_t(i));
        return true;
    }
    return false;
}

void World::DetachAll(const btRigidBody* inBody)
{
    for (std::size_t i = mAttachments.size(); i-- > 0;)
    {
        detail::SurfaceAttachment& attachment = *mAttachments[i].second;
        if (&attachment.getRigidBodyA() == inBody || &attachment.getRigidBodyB() == inBody)
            Detach(mAttachments[i].first);
    }
}

const detail::SurfaceAttachment& World::OwnAttachment(AttachmentId inId, const char* inCaller) const
{
    for (const auto& [id, attachment] : mAttachments)
        if (id == inId)
            return *attachment;
    throw Error(std::string(inCaller) + ": no attachment has this id");
}

btVector3 World::AttachmentImpulse(AttachmentId inId) const
{
    return OwnAttachment(inId, "AttachmentImpulse").LastImpulse();
}

void World::KeepSolverIterating()
{
    // Bullet's solver stops iterating once the residual of its own rows is at or below the threshold; the
    // attachments solve themselves outside those rows, so with Bullet's default (0) an island held only by them
    // would get one iteration, and attachments that share a body would not converge. While any is in place, a
    // threshold left at the default becomes one no residual meets (every iteration runs); a value the host chose
    // is kept.
    btContactSolverInfo& info = mWorld.getSolverInfo();
    if (!mAttachments.empty() && info.m_leastSquaresResidualThreshold == btScalar(0))
        info.m_leastSquaresResidualThreshold = cEveryIteration;
    else if (mAttachments.empty() && info.m_leastSquaresResidualThreshold == cEveryIteration)
        info.m_leastSquaresResidualThreshold = 0;
}

double World::AttachmentGap(AttachmentId inId) const
{
    const detail::SurfaceAttachment& attachment = OwnAttachment(inId, "AttachmentGap");
    return double((attachment.WorldPoint(0) - attachment.WorldPoint(1)).length());
}

void World::SetRigid(bool inRigid)
{
    mRigid = inRigid;
    for (auto& [id, attachment] : mAttachments)
        attachment->SetModesTakePart(!inRigid);
}

void World::PointCoupling(const Body& inBody, const btVector3& inWorldPoint, const Vec3d& inDirection,
                          std::vector<double>& outCoupling) const
{
    const DeformableShape& shape = *inBody.shape;
    const btTransform& transform = inBody.rigidBody->getWorldTransform();
    outCoupling.assign(shape.Dynamics().ModeCount(), 0.0);
    QueryStats stats;
    const std::optional<SurfaceProjection> nearest =
        bdt::ClosestSurfacePoint(shape.QueryView(transform), ToVec3d(inWorldPoint), stats);
    if (!nearest || outCoupling.empty())
        return;
    ContactFeature feature;
    feature.node = 0;
    feature.triangle = nearest->triangle;
    feature.barycentric = nearest->barycentric;
    shape.Coupling(feature, inDirection, shape.RestToWorld(transform), outCoupling);
}

bool World::ApplyImpulse(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inImpulse)
{
    return ApplyAtPoint(inBody, inWorldPoint, inImpulse, true);
}

bool World::ApplyForce(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inForce)
{
    return ApplyAtPoint(inBody, inWorldPoint, inForce, false);
}

bool World::ApplyAtPoint(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inLoad, bool inImpulse)
{
    Body* body = FindBody(inBody);
    if (body == nullptr || !(inBody->getInvMass() > 0) || !IsFinite(inWorldPoint) || !IsFinite(inLoad))
        return false;
    const double magnitude = Length(inLoad);
    if (!std::isfinite(magnitude))
        return false;
    const btVector3 arm = inWorldPoint - inBody->getCenterOfMassPosition();
    if (inImpulse)
        inBody->applyImpulse(inLoad, arm);
    else
        inBody->applyForce(inLoad, arm);
    inBody->activate(true);
    if (magnitude == 0.0)
        return true;
    std::vector<double> coupling;
    PointCoupling(*body, inWorldPoint, ToVec3d(inLoad) / magnitude, coupling);
    if (inImpulse)
    {
        body->shape->ApplyModalImpulse(coupling, magnitude);
        return true;
    }
    body->userForce.resize(coupling.size(), 0.0);
    for (std::size_t j = 0; j < coupling.size(); ++j)
        body->userForce[j] += magnitude * coupling[j];
    return true;
}

btTransform World::MeshTransform(const btRigidBody* inBody) const
{
    const Body& body = OwnBody(inBody, "MeshTransform");
    const Pose pose = body.shape->QueryView(body.rigidBody->getWorldTransform()).pose;
    return btTransform(ToBtMatrix(pose.rotation), ToBtVector(pose.translation));
}

btTransform World::PreviousMeshTransform(const btRigidBody* inBody) const
{
    const Body& body = OwnBody(inBody, "PreviousMeshTransform");
    const Pose pose = body.shape->QueryView(body.previousTransform).pose;
    return btTransform(ToBtMatrix(pose.rotation), ToBtVector(pose.translation));
}

std::span<const float> World::PreviousQ(const btRigidBody* inBody) const
{
    return OwnBody(inBody, "PreviousQ").previousQ;
}

void World::WorldVertices(const Body& inBody, bool inPrevious, std::vector<Vec3d>& outVertices) const
{
    const DeformableShape& shape = *inBody.shape;
    const Model& model = shape.Asset().GetModel();
    const DeformedBody view =
        shape.QueryView(inPrevious ? inBody.previousTransform : inBody.rigidBody->getWorldTransform());
    const std::span<const float> q = inPrevious ? std::span<const float>(inBody.previousQ) : shape.State().Q();
    outVertices.resize(model.VertexCount());
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
        outVertices[i] = view.pose.Apply(view.scale * model.DeformedPosition(i, q));
}

void World::CheckVertexOutput(const Body& inBody, std::span<float> outXyz, const char* inCaller)
{
    const std::size_t vertices = inBody.shape->Asset().GetModel().VertexCount();
    if (outXyz.size() != 3 * vertices)
        throw Error(std::string(inCaller) + ": the output holds " + std::to_string(outXyz.size()) +
                    " floats, the body has " + std::to_string(vertices) + " vertices (3 floats each)");
}

void World::VertexMotion(const btRigidBody* inBody, std::span<float> outXyz) const
{
    const Body& body = OwnBody(inBody, "VertexMotion");
    CheckVertexOutput(body, outXyz, "VertexMotion");
    WorldVertices(body, false, mVertexScratch);
    WorldVertices(body, true, mNormalScratch);
    for (std::size_t i = 0; i < mVertexScratch.size(); ++i)
        for (int k = 0; k < 3; ++k)
            outXyz[3 * i + std::size_t(k)] = float(mVertexScratch[i][k] - mNormalScratch[i][k]);
}

void World::DeformedVertices(const btRigidBody* inBody, std::span<float> outXyz) const
{
    const Body& body = OwnBody(inBody, "DeformedVertices");
    CheckVertexOutput(body, outXyz, "DeformedVertices");
    WorldVertices(body, false, mVertexScratch);
    for (std::size_t i = 0; i < mVertexScratch.size(); ++i)
        for (int k = 0; k < 3; ++k)
            outXyz[3 * i + std::size_t(k)] = float(mVertexScratch[i][k]);
}

void World::DeformedNormals(const btRigidBody* inBody, std::span<float> outXyz) const
{
    const Body& body = OwnBody(inBody, "DeformedNormals");
    const Model& model = body.shape->Asset().GetModel();
    CheckVertexOutput(body, outXyz, "DeformedNormals");
    WorldVertices(body, false, mVertexScratch);
    // Each triangle's edge cross product is its normal times twice its area: summed, the area-weighted normal.
    mNormalScratch.assign(model.VertexCount(), Vec3d::Zero());
    for (const Triangle& triangle : model.Triangles())
    {
        const Vec3d& a = mVertexScratch[triangle[0]];
        const Vec3d normal = (mVertexScratch[triangle[1]] - a).cross(mVertexScratch[triangle[2]] - a);
        for (const std::uint32_t vertex : triangle)
            mNormalScratch[vertex] += normal;
    }
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
    {
        const double length = mNormalScratch[i].norm();
        const Vec3d unit = length > 0.0 ? Vec3d(mNormalScratch[i] / length) : Vec3d::Zero();
        for (int k = 0; k < 3; ++k)
            outXyz[3 * i + std::size_t(k)] = float(unit[k]);
    }
}

void World::PreTick(btDynamicsWorld* inWorld, btScalar inTimeStep)
{
    if (World* world = Find(inWorld))
    {
        world->mPreTickRan = true;
        world->OnPreTick(double(inTimeStep));
        if (world->mHostPreTick != nullptr)
            world->mHostPreTick(inWorld, inTimeStep);
    }
}

void World::PostTick(btDynamicsWorld* inWorld, btScalar inTimeStep)
{
    if (World* world = Find(inWorld))
    {
        world->OnPostTick(double(inTimeStep));
        if (world->mHostPostTick != nullptr)
            world->mHostPostTick(inWorld, inTimeStep);
    }
}

void World::WatchTickCallbacks()
{
    btInternalTickCallback& pre = TickCallbackAccess::Pre(mWorld);
    btInternalTickCallback& post = TickCallbackAccess::Post(mWorld);
    if (pre != &World::PreTick)
    {
        mHostPreTick = pre;
        pre = &World::PreTick;
        ++mStats.callbackRepairs;
    }
    if (post != &World::PostTick)
    {
        mHostPostTick = post;
        post = &World::PostTick;
        ++mStats.callbackRepairs;
    }
    if (!mPreTickRan)
    {
        // This step ran without the modal step: the last solve's impulses were never taken by the modes, and
        // this solve's are read back on top of them in the post-tick. Drop them, as the step's modal update.
        for (std::unique_ptr<Body>& body : mBodies)
            body->shape->ClearImpulses();
    }
    mPreTickRan = false;
}

void World::GuardState(Body& ioBody, double inTimeStep)
{
    btRigidBody& rigid = *ioBody.rigidBody;
    DeformableShape& shape = *ioBody.shape;
    ioBody.simulatedAtPreTick = rigid.getActivationState() != DISABLE_SIMULATION;
    std::uint64_t repairs = 0;
    // Mass properties first: the force and torque limits below use them.
    const btVector3 inverseInertia = rigid.getInvInertiaDiagLocal();
    if (std::isfinite(rigid.getInvMass()) && rigid.getInvMass() >= 0 && IsFinite(inverseInertia) &&
        inverseInertia.x() >= 0 && inverseInertia.y() >= 0 && inverseInertia.z() >= 0)
    {
        ioBody.lastGoodInverseMass = rigid.getInvMass();
        ioBody.lastGoodInverseInertia = inverseInertia;
    }
    else
    {
        auto inverse = [](btScalar inValue) { return inValue > 0 ? 1 / inValue : btScalar(0); };
        const btVector3& good = ioBody.lastGoodInverseInertia;
        rigid.setMassProps(inverse(ioBody.lastGoodInverseMass),
                           btVector3(inverse(good.x()), inverse(good.y()), inverse(good.z())));
        rigid.updateInertiaTensor();
        ++repairs;
    }
    bool proper = false;
    const double basisError = RotationError(rigid.getWorldTransform().getBasis(), proper);
    if (!IsFinite(rigid.getWorldTransform()) || basisError > cBasisRepairLimit || !proper)
    {
        RestoreBody(ioBody);
        mStats.stateRepairs += repairs;
        return;
    }
    if (basisError > cBasisTolerance)
    {
        btTransform transform = rigid.getWorldTransform();
        btQuaternion rotation;
        transform.getBasis().getRotation(rotation);
        transform.setRotation(rotation.normalized());
        PlaceBody(rigid, transform);
        rigid.updateInertiaTensor();
        ++repairs;
    }
    const double linearLimit = mSettings.maxLinearSpeed, angularLimit = mSettings.maxAngularSpeed;
    btVector3 linear = rigid.getLinearVelocity(), angular = rigid.getAngularVelocity();
    if (!IsFinite(linear))
        linear.setZero();
    if (!IsFinite(angular))
        angular.setZero();
    ClampLength(linear, linearLimit);
    ClampLength(angular, angularLimit);
    if (linear != rigid.getLinearVelocity() || angular != rigid.getAngularVelocity())
    {
        rigid.setLinearVelocity(linear);
        rigid.setAngularVelocity(angular);
        ++repairs;
    }
    // Gravity (Bullet added gravity · mass to the total force at the start of stepSimulation) and the total
    // force and torque: what Bullet's integration adds to the velocities before the solve.
    const btVector3 gravity = rigid.getGravity();
    const bool gravityBad = !IsFinite(gravity) || Length(gravity) * inTimeStep > linearLimit;
    btVector3 force = rigid.getTotalForce(), torque = rigid.getTotalTorque();
    bool forcesChanged = false;
    if (gravityBad)
    {
        const btVector3 worldGravity = mWorld.getGravity();
        rigid.setGravity(IsFinite(worldGravity) ? worldGravity : btVector3(0, 0, 0));
        force = rigid.getGravity() / (rigid.getInvMass() > 0 ? rigid.getInvMass() : btScalar(1));
        forcesChanged = true;
    }
    if (!IsFinite(force))
    {
        force.setZero();
        forcesChanged = true;
    }
    if (!IsFinite(torque))
    {
        torque.setZero();
        forcesChanged = true;
    }
    // Within the step, F·h/m and I⁻¹·T·h at most the speed limits.
    if (rigid.getInvMass() > 0)
        forcesChanged |= ClampLength(force, linearLimit / (double(rigid.getInvMass()) * inTimeStep));
    const double angularGain = (ToMat3d(rigid.getInvInertiaTensorWorld()) * ToVec3d(torque)).norm() * inTimeStep;
    if (angularGain > angularLimit)
    {
        torque *= btScalar(angularLimit / angularGain);
        forcesChanged = true;
    }
    if (forcesChanged)
    {
        rigid.clearForces();
        rigid.applyCentralForce(force);
        rigid.applyTorque(torque);
        ++repairs;
    }
    const ModalDynamics& dynamics = shape.Dynamics();
    const auto finite = [](std::span<const double> inValues)
    { return std::all_of(inValues.begin(), inValues.end(), [](double v) { return std::isfinite(v); }); };
    if (!finite(dynamics.QDouble()) || !finite(dynamics.QDot()))
    {
        shape.Dynamics().Reset();
        ioBody.heldImpulse.clear();
        ioBody.heldInertial.clear();
        ++mStateResets;
    }
    mStats.stateRepairs += repairs;
}

void World::RestoreBody(Body& ioBody)
{
    btRigidBody& rigid = *ioBody.rigidBody;
    PlaceBody(rigid, ioBody.lastGoodTransform);
    rigid.setLinearVelocity(btVector3(0, 0, 0));
    rigid.setAngularVelocity(btVector3(0, 0, 0));
    rigid.updateInertiaTensor();
    // Forces as at the start of a step: gravity only.
    rigid.clearForces();
    if (IsFinite(rigid.getGravity()))
        rigid.applyGravity();
    ioBody.shape->Dynamics().Reset();
    ioBody.shape->ClearImpulses();
    ioBody.heldImpulse.clear();
    ioBody.heldInertial.clear();
    ioBody.userForce.clear();
    ioBody.hasPreviousVelocity = false;
    if (btBroadphaseProxy* proxy = rigid.getBroadphaseHandle())
    {
        // Its manifolds hold the impulses of the bad state, which the solver would warm-start from.
        mWorld.getBroadphase()->getOverlappingPairCache()->cleanProxyFromPairs(proxy, mWorld.getDispatcher());
        mWorld.updateSingleAabb(&rigid);
    }
    // Bullet takes a body whose box overflowed out of the simulation for good (updateSingleAabb).
    if (rigid.getActivationState() == DISABLE_SIMULATION)
        rigid.forceActivationState(ACTIVE_TAG);
    rigid.activate(true);
    ++mStats.transformResets;
}

void World::OnPreTick(double inTimeStep)
{
    const Clock::time_point start = Clock::now();
    detail::TakePhaseTimes(); // drop whatever was timed outside our steps
    KeepSolverIterating();
    if (!mAttachments.empty())
        for (std::unique_ptr<Body>& body : mBodies)
            body->attachmentModes.Reset(body->shape->Dynamics().ModeCount());
    for (std::unique_ptr<Body>& body : mBodies)
        GuardState(*body, inTimeStep);
    for (std::unique_ptr<Body>& body : mBodies)
    {
        DeformableShape& shape = *body->shape;
        body->stepStart = body->rigidBody->getWorldTransform().getOrigin();
        body->previousTransform = body->rigidBody->getWorldTransform();
        const std::span<const float> previousQ = shape.State().Q();
        body->previousQ.assign(previousQ.begin(), previousQ.end());
        if (mRigid)
        {
            // The rigid reference: q stays 0 and, once it is, no new update stamp, so no sphere is updated.
            const std::span<const float> q = shape.State().Q();
            if (std::any_of(q.begin(), q.end(), [](float v) { return v != 0.0f; }))
            {
                shape.Dynamics().Reset();
                shape.BeginStep();
                body->heldImpulse.clear();
                body->heldInertial.clear();
            }
            shape.ClearPrediction();
        }
        else
        {
            const btRigidBody& rigid = *body->rigidBody;
            const bool dynamic = rigid.getInvMass() > 0 && shape.Dynamics().ModeCount() > 0;
            const bool awake = dynamic && rigid.isActive();
            if (awake)
                StepModes(*body, inTimeStep);
            else if (dynamic && shape.Dynamics().VibrationEnergy() > cRingDownFloor * shape.Settings().mass)
            {
                // Asleep: Bullet neither moves the body nor solves its contacts, so its loads are those it
                // held when it fell asleep; its modes ring down about their deflection under them instead
                // of freezing mid-swing.
                shape.Dynamics().StepHeld(inTimeStep);
            }
            if (!shape.BeginStep())
                ++mStateResets;
            // An awake body's modes move over this step with the force they hold and by their response to
            // this solve's impulses: its contacts tell the solver (`PredictContacts`).
            if (awake)
                shape.PredictStep({inTimeStep, mSettings.inertialForcing, double(mWorld.getSolverInfo().m_erp2),
                                   body->heldImpulse, body->heldInertial, body->previousQ});
            else
                shape.ClearPrediction();
        }
        shape.ClearImpulses();
        shape.State().ResetCounters();
        shape.Stats() = {};
        shape.Narrowphase() = {};
    }
    mStats.preTickMs = Milliseconds(start);
}

void World::StepModes(Body& ioBody, double inTimeStep)
{
    DeformableShape& shape = *ioBody.shape;
    btRigidBody& rigid = *ioBody.rigidBody;
    ModalDynamics& dynamics = shape.Dynamics();
    // The generalised force over this step: the contact impulses of the last solve spread over the step (a
    // zero-order hold, so a steady load gives a steady deflection), plus, optionally, the inertial force of
    // the frame's motion over the last step (finite differences of Bullet's velocities). Then the exact
    // modal step.
    const std::size_t modes = dynamics.ModeCount();
    const std::span<const double> impulse = shape.PendingImpulse();
    ioBody.heldImpulse.resize(modes, 0.0);
    mForce.assign(modes, 0.0);
    mKick.assign(modes, 0.0);
    for (std::size_t j = 0; j < modes; ++j)
    {
        // The change of the contacts' load since the last step: its kicked share at once, as the frame took it;
        // the rest held over the step with the load it changes (`ModalDynamics::KickedShare`).
        mKick[j] = dynamics.KickedShare(std::uint32_t(j), inTimeStep) * (impulse[j] - ioBody.heldImpulse[j]);
        mForce[j] = (impulse[j] - mKick[j]) / inTimeStep;
    }
    mInertial.assign(modes, 0.0);
    if (mSettings.inertialForcing && ioBody.hasPreviousVelocity)
    {
        FrameInertialForce(ioBody, inTimeStep, mInertial);
        for (std::size_t j = 0; j < modes; ++j)
            mForce[j] += mInertial[j];
    }
    // `ApplyForce`'s, held over this step only.
    for (std::size_t j = 0; j < std::min(modes, ioBody.userForce.size()); ++j)
        mForce[j] += ioBody.userForce[j];
    ioBody.userForce.clear();
    ioBody.previousLinearVelocity = rigid.getLinearVelocity();
    ioBody.previousAngularVelocity = rigid.getAngularVelocity();
    ioBody.hasPreviousVelocity = true;
    dynamics.ApplyImpulse(mKick);
    dynamics.Step(inTimeStep, mForce);
    ioBody.heldImpulse.assign(impulse.begin(), impulse.end());
    ioBody.heldInertial = mInertial;
    // Vibrating bodies stay awake: Bullet judges sleep by the frame's velocities only. The modes' kinetic
    // energy measures the vibration: the elastic energy of a steady load's deflection (a body resting in a
    // pile) is none, and neither is the step-to-step flicker of the load's equilibrium in a jittering pile
    // until it sets the modes moving.
    if (dynamics.KineticEnergy() > mSettings.wakeEnergyPerKg * shape.Settings().mass)
        rigid.activate(true);
}

void World::FrameInertialForce(const Body& inBody, double inTimeStep, std::vector<double>& outForce) const
{
    const DeformableShape& shape = *inBody.shape;
    const btRigidBody& rigid = *inBody.rigidBody;
    const btVector3 linear = rigid.getLinearVelocity();
    const btVector3 angular = rigid.getAngularVelocity();
    const Vec3d acceleration = ToVec3d(linear - inBody.previousLinearVelocity) / inTimeStep;
    const Vec3d angularAcceleration = ToVec3d(angular - inBody.previousAngularVelocity) / inTimeStep;
    const Mat3d restToWorld = shape.RestToWorld(rigid.getWorldTransform());
    outForce.assign(shape.Dynamics().ModeCount(), 0.0);
    InertialForce(shape.Asset().Modal(), shape.Settings().mass, double(shape.getLocalScaling().x()), restToWorld,
                  acceleration, ToVec3d(rigid.getGravity()), ToVec3d(angular), angularAcceleration, outForce);
}

void World::SolveCoupledContacts(double inTimeStep)
{
    // The generalised impulse each predicting body's modes will hold over the next modal step besides its
    // contacts' normal impulses: the inertial one, from the frame's motion as Bullet solved it (the coupled
    // solve's w rows carry how its own changes alter it).
    mCoupledBodies.clear();
    if (mCoupledImpulses.size() < mBodies.size())
        mCoupledImpulses.resize(mBodies.size());
    for (std::size_t b = 0; b < mBodies.size(); ++b)
    {
        const Body& body = *mBodies[b];
        if (!body.shape->Predicting() || !body.rigidBody->isActive())
            continue;
        std::vector<double>& impulse = mCoupledImpulses[b];
        impulse.assign(body.shape->Dynamics().ModeCount(), 0.0);
        if (mSettings.inertialForcing && body.hasPreviousVelocity)
        {
            FrameInertialForce(body, inTimeStep, impulse);
            for (double& value : impulse)
                value *= inTimeStep;
        }
        mCoupledBodies.push_back({body.shape.get(), impulse});
    }
    // The attachments are solved with the contacts (they share the modes).
    mCoupledAttachments.clear();
    for (auto& [id, attachment] : mAttachments)
        mCoupledAttachments.push_back(attachment.get());
    if (mCoupled == nullptr)
        mCoupled = std::make_unique<detail::CoupledContactSolver>();
    mCoupled->Solve(mWorld, mCoupledBodies, mCoupledAttachments, inTimeStep, mSettings.coupledSweeps,
                    mSettings.coupledTolerance);
}

void World::OnPostTick(double inTimeStep)
{
    const Clock::time_point start = Clock::now();
    const detail::PhaseTimes phases = detail::TakePhaseTimes();
    mStats.collisionMs = phases.collision;
    mStats.solverMs = phases.solver;
    mStats.narrowphaseMs = phases.narrowphase;
    ++mStats.steps;
    if (!mRigid && mSettings.coupledSweeps > 0)
        SolveCoupledContacts(inTimeStep);
    ReadImpulses();
    // The attachments' impulses reach the modes as the contacts' do: held over the next modal step.
    for (auto& [id, attachment] : mAttachments)
        attachment->AddPendingImpulse();

    mStats.spheresUpdated = 0;
    mStats.overlapTests = 0;
    mStats.narrowphase = {};
    mStats.vibrationEnergy = 0.0;
    std::uint64_t clamped = 0, rejected = 0, resets = 0;
    mSweeps = 0;
    for (std::unique_ptr<Body>& body : mBodies)
    {
        DeformableShape& shape = *body->shape;
        btRigidBody& rigid = *body->rigidBody;
        mStats.spheresUpdated += shape.State().SpheresUpdated();
        mStats.overlapTests += shape.Stats().overlapTests;
        mStats.narrowphase.Add(shape.Narrowphase());
        mStats.vibrationEnergy += shape.Dynamics().Energy();
        const ModalGuardStats& guard = shape.Dynamics().GuardStats();
        clamped += guard.clamped;
        rejected += guard.rejectedImpulses;
        resets += guard.resets;
        // A non-finite frame never spreads: back to the last good transform, at rest. So is a body that Bullet
        // took out of the simulation in this step for a box too large (`updateSingleAabb`: a placement so far
        // out, 1e30, that its box's float extent overflows), instead of hanging there for good.
        const btTransform& transform = rigid.getWorldTransform();
        const bool droppedByBullet = body->simulatedAtPreTick && rigid.getActivationState() == DISABLE_SIMULATION;
        if (IsFinite(transform) && IsFinite(rigid.getLinearVelocity()) && IsFinite(rigid.getAngularVelocity()) &&
            !droppedByBullet)
        {
            if (mSettings.sweepFastBodies)
                SweepFastBody(*body, inTimeStep);
            body->lastGoodTransform = rigid.getWorldTransform();
        }
        else
        {
            RestoreBody(*body);
        }
    }
    mStats.sweeps = mSweeps;
    mStats.clamped = clamped;
    mStats.rejected = rejected;
    mStats.modalResets = resets + mStateResets;
    mStats.postSolveMs = Milliseconds(start);
}

void World::SweepFastBody(Body& ioBody, double inTimeStep)
{
    btRigidBody& rigid = *ioBody.rigidBody;
    if (rigid.getInvMass() == 0 || !rigid.hasContactResponse() || rigid.getBroadphaseHandle() == nullptr)
        return;
    const btVector3 from = ioBody.stepStart;
    const btVector3 to = rigid.getWorldTransform().getOrigin();
    const double travel = double((to - from).length());
    const double threshold = mSettings.sweepTravelFraction * ioBody.shape->Asset().BoundingRadius() *
                             double(ioBody.shape->getLocalScaling().x());
    if (!(travel > threshold) || !std::isfinite(travel))
        return;
    ++mSweeps;
    // The sphere about the centre of mass that holds the whole deformed surface: where it first touches
    // something, no part of the body is in it yet.
    const double reach = ioBody.shape->SurfaceReach();
    const detail::SweepHit hit = detail::SweepSphere(mWorld, rigid, from, to, btScalar(reach), btScalar(inTimeStep),
                                                     btScalar(threshold));
    if (hit.object == nullptr)
        return;
    btTransform stopped = rigid.getWorldTransform();
    stopped.setOrigin(from.lerp(to, hit.fraction));
    PlaceBody(rigid, stopped);
    // The impact the step skipped, as an impulse along the hit's normal through the centres of mass, with the
    // contact's restitution (Bullet's product of the two): the approach along the normal stops (or bounces)
    // here, momentum is kept, and what is left reaches the contact slowly enough for the next steps' contacts.
    btRigidBody* other = btRigidBody::upcast(const_cast<btCollisionObject*>(hit.object));
    const btScalar otherInvMass = other != nullptr ? other->getInvMass() : btScalar(0);
    const btVector3 otherVelocity = other != nullptr ? other->getLinearVelocity() : btVector3(0, 0, 0);
    const btScalar approach = (rigid.getLinearVelocity() - otherVelocity).dot(hit.normal);
    if (approach < 0 && IsFinite(hit.normal))
    {
        const btScalar restitution = rigid.getRestitution() * hit.object->getRestitution();
        const btScalar impulse = -(1 + restitution) * approach / (rigid.getInvMass() + otherInvMass);
        rigid.setLinearVelocity(rigid.getLinearVelocity() + hit.normal * (impulse * rigid.getInvMass()));
        if (other != nullptr && otherInvMass > 0)
        {
            other->setLinearVelocity(otherVelocity - hit.normal * (impulse * otherInvMass));
            other->activate(true);
        }
    }
    ++mStats.sweepStops;
}

void World::ReadImpulses()
{
    // Every manifold that touches a deformable body: its points' impulses, as the solver left them, are
    // applied at the proxies they came from: the normal impulse, and the friction impulse where the contact
    // slides (`detail::Slides`; a sticking contact's friction is statically indeterminate for the rigid solve
    // and would load the modes with whatever self-balanced share the solver's iterations left, step after
    // step). The narrowphase stores the proxy of body0 in m_index0 and, when body1 is deformable too, its
    // proxy in m_index1. Then, with `modalContactConstraint`, each point's contact constraint on the modes
    // (`detail::ConstrainPointModes`). Both work along the point's normal through one coupling a side
    // (`DeformableShape::ProxyCoupling`): the normal impulse adds λ times it (`AddCouplingImpulse`), a
    // sliding point's friction is projected on its own; points without impulse are skipped. The impulses go
    // to the pending impulse, and the constraint reads and changes q̇ only: the two are independent, each
    // walking the manifolds in the dispatcher's order. With a `ParallelDispatcher` of two threads or more
    // they walk at once, one on a helper thread (their results are those of one walk doing both, bit for
    // bit); otherwise one walk does both, touching each manifold once.
    const bool constrain = !mRigid && mSettings.modalContactConstraint;
    if (!constrain || mWorld.getDispatcher()->getNumManifolds() < mSettings.parallelReadBackManifolds ||
        !HasHelperThreads())
    {
        WalkManifolds(constrain ? EWalk::Both : EWalk::Impulses, nullptr);
        return;
    }
    // Both walks read the bodies' rest-to-world fits: made now, once a body (every deformable in the world,
    // ours or not), so that they only read them.
    const btCollisionObjectArray& objects = mWorld.getCollisionObjectArray();
    for (int i = 0; i < objects.size(); ++i)
        if (const DeformableShape* shape = AsDeformable(objects[i]->getCollisionShape()))
            shape->RestToWorld(objects[i]->getWorldTransform());
    // A non-finite impulse is counted by the body's guard, which the constraint's walk may count in too:
    // those are given to their bodies after the join (they change nothing but that count).
    std::vector<DeferredImpulse> deferred;
    {
        std::jthread constraints([this] { WalkManifolds(EWalk::Constraints, nullptr); });
        WalkManifolds(EWalk::Impulses, &deferred);
    } // joined
    for (const DeferredImpulse& impulse : deferred)
        impulse.shape->AddContactImpulse(impulse.feature, impulse.impulse, Mat3d::Identity());
}

bool World::HasHelperThreads() const
{
    const auto* dispatcher = dynamic_cast<const ParallelDispatcher*>(mWorld.getDispatcher());
    return dispatcher != nullptr && dispatcher->Threads() >= 2;
}

void World::WalkManifolds(EWalk inWalk, std::vector<DeferredImpulse>* outDeferred)
{
    const bool impulses = inWalk != EWalk::Constraints;
    const bool constrain = inWalk != EWalk::Impulses;
    const btContactSolverInfo& info = mWorld.getSolverInfo();
    btDispatcher& dispatcher = *mWorld.getDispatcher();
    std::uint64_t contacts = 0, manifolds = 0;
    const int count = dispatcher.getNumManifolds();
    thread_local std::vector<double> coupling[2]; // a point's couplings, one a side
    // A pile's manifolds, bodies and shapes are scattered over tens of megabytes, and each is a chain of
    // loads (manifold → body → shape): fetched ahead in three stages, the walk waits on one miss at a time
    // instead of three in a row.
    const auto manifoldAt = [&](int inIndex) { return dispatcher.getManifoldByIndexInternal(inIndex); };
    for (int m = 0; m < count; ++m)
    {
        if (m + 8 < count)
            PrefetchBytes(manifoldAt(m + 8), sizeof(btPersistentManifold));
        if (m + 4 < count)
            for (const btCollisionObject* object : {manifoldAt(m + 4)->getBody0(), manifoldAt(m + 4)->getBody1()})
                PrefetchBytes(object, sizeof(btCollisionObject));
        if (m + 2 < count)
            for (const btCollisionObject* object : {manifoldAt(m + 2)->getBody0(), manifoldAt(m + 2)->getBody1()})
                PrefetchBytes(object->getCollisionShape(), 64);
        const btPersistentManifold* manifold = manifoldAt(m);
        const btCollisionObject* object0 = manifold->getBody0();
        const btCollisionObject* object1 = manifold->getBody1();
        DeformableShape* shape0 = AsDeformable(const_cast<btCollisionShape*>(object0->getCollisionShape()));
        DeformableShape* shape1 = AsDeformable(const_cast<btCollisionShape*>(object1->getCollisionShape()));
        if (shape0 == nullptr && shape1 == nullptr)
            continue;
        ++manifolds;
        const int points = manifold->getNumContacts();
        contacts += std::uint64_t(points);
        if (mRigid || points == 0)
            continue;
        // Each body's rest-to-world rotation once per manifold, not once per point.
        const Mat3d rotation0 =
            shape0 != nullptr ? shape0->RestToWorld(object0->getWorldTransform()) : Mat3d::Identity();
        const Mat3d rotation1 =
            shape1 != nullptr ? shape1->RestToWorld(object1->getWorldTransform()) : Mat3d::Identity();
        // Modes not stepped this step (static, asleep) take no part in the constraint.
        DeformableShape* const shapes[2] = {shape0, shape1};
        const bool predicting[2] = {constrain && shape0 != nullptr && shape0->Predicting(),
                                    constrain && shape1 != nullptr && shape1->Predicting()};
        const Mat3d* const rotations[2] = {&rotation0, &rotation1};
        for (int p = 0; p < points; ++p)
        {
            const btManifoldPoint& point = manifold->getContactPoint(p);
            const bool slides = impulses && detail::Slides(point, *object0, *object1, info);
            const btVector3 friction = slides
                                           ? point.m_lateralFrictionDir1 * point.m_appliedImpulseLateral1 +
                                                 point.m_lateralFrictionDir2 * point.m_appliedImpulseLateral2
                                           : btVector3(0, 0, 0);
            btVector3 impulse = point.m_normalWorldOnB * point.m_appliedImpulse;
            if (slides)
                impulse += friction;
            // A point the solver left without impulse (a speculative contact that did not close) loads
            // nothing and is not constrained.
            if (impulse == btVector3(0, 0, 0))
                continue;
            const bool finite = IsFinite(impulse);
            // Where each side's impulse acts: its proxy, and in the surface model the point of its surface.
            ContactFeature features[2];
            for (int side = 0; side < 2; ++side)
                if (shapes[side] != nullptr)
                    features[side] = FeatureOf(point, side, *shapes[side]);
            // Each side's coupling along the normal, made once for both parts: the normal impulse's
            // generalised impulse is λ times it, and the constraint works along it. (A split read-back's two
            // walks make the same couplings: their results are those of one walk, bit for bit.)
            std::span<const double> couplings[2];
            const Vec3d normal = ToVec3d(point.m_normalWorldOnB);
            for (int side = 0; side < 2; ++side)
            {
                const bool needed = (impulses && finite) || (predicting[side] && point.m_appliedImpulse > 0);
                if (shapes[side] == nullptr || features[side].node == cNoIndex || !needed)
                    continue;
                coupling[side].resize(shapes[side]->Dynamics().ModeCount());
                if (shapes[side]->Coupling(features[side], normal, *rotations[side], coupling[side]))
                    couplings[side] = coupling[side];
            }
            for (int side = 0; impulses && side < 2; ++side)
            {
                if (shapes[side] == nullptr || features[side].node == cNoIndex)
                    continue;
                const btScalar sign = side == 0 ? btScalar(1) : btScalar(-1);
                if (!finite)
                {
                    // Counted by the body's guard, now or (a split read-back) after the join.
                    if (outDeferred != nullptr)
                        outDeferred->push_back({shapes[side], features[side], sign * impulse});
                    else
                        shapes[side]->AddContactImpulse(features[side], sign * impulse, *rotations[side]);
                    continue;
                }
                if (couplings[side].empty())
                    continue; // a node outside the body's tree takes nothing
                shapes[side]->AddCouplingImpulse(couplings[side], double(sign * point.m_appliedImpulse));
                if (slides)
                    shapes[side]->AddContactImpulse(features[side], sign * friction, *rotations[side]);
            }
            if (constrain)
            {
                const std::span<const double> constrained[2] = {
                    predicting[0] ? couplings[0] : std::span<const double>(),
                    predicting[1] ? couplings[1] : std::span<const double>()};
                detail::ConstrainPointModes(point, shapes, constrained, info);
            }
        }
    }
    if (impulses)
    {
        mStats.contacts = contacts;
        mStats.manifolds = manifolds;
    }
}

void World::DebugDraw(btIDebugDraw& ioDrawer, const DebugDrawSettings& inOptions) const
{
    const btVector3 sphereColor(0.3f, 0.6f, 1.0f), proxyColor(1.0f, 0.2f, 0.2f),
        contactColor(1.0f, 1.0f, 0.0f), triangleColor(1.0f, 0.5f, 0.0f);
    for (const std::unique_ptr<Body>& body : mBodies)
    {
        const DeformableShape& shape = *body->shape;
        const DeformedBody view = shape.QueryView(body->rigidBody->getWorldTransform());
        if (inOptions.spheres)
        {
            const BDTree& tree = shape.Asset().Tree();
            const std::uint32_t level = std::min(inOptions.sphereLevel, shape.State().Proxies().Level());
            for (std::uint32_t node = tree.LevelBegin(level); node < tree.LevelEnd(level); ++node)
            {
                DrawNodeSphere(ioDrawer, view, node, sphereColor);
            }
        }
    }
    if (!inOptions.proxies && !inOptions.contacts)
        return;
    const btDispatcher& dispatcher = *mWorld.getDispatcher();
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold* manifold =
            const_cast<btDispatcher&>(dispatcher).getManifoldByIndexInternal(m);
        const btCollisionObject* objects[2] = {manifold->getBody0(), manifold->getBody1()};
        const DeformableShape* shapes[2] = {AsDeformable(objects[0]->getCollisionShape()),
                                            AsDeformable(objects[1]->getCollisionShape())};
        if (shapes[0] == nullptr && shapes[1] == nullptr)
            continue;
        for (int p = 0; p < manifold->getNumContacts(); ++p)
        {
            const btManifoldPoint& point = manifold->getContactPoint(p);
            if (inOptions.contacts)
                ioDrawer.drawContactPoint(point.getPositionWorldOnB(), point.m_normalWorldOnB,
                                          point.getDistance(), 0, contactColor);
            if (!inOptions.proxies)
                continue;
            for (int side = 0; side < 2; ++side)
            {
                if (shapes[side] == nullptr)
                    continue;
                const ContactFeature feature = FeatureOf(point, side, *shapes[side]);
                if (feature.node == cNoIndex)
                    continue;
                const DeformedBody view = shapes[side]->QueryView(objects[side]->getWorldTransform());
                DrawNodeSphere(ioDrawer, view, feature.node, proxyColor);
                if (feature.OnSurface())
                    DrawTriangle(ioDrawer, view, feature.triangle, triangleColor);
            }
        }
    }
}

void World::PlaceBody(btRigidBody& ioBody, const btTransform& inTransform)
{
    ioBody.setWorldTransform(inTransform);
    ioBody.setInterpolationWorldTransform(inTransform);
    if (ioBody.getMotionState() != nullptr)
        ioBody.getMotionState()->setWorldTransform(inTransform);
}

namespace
{

/// Adds the bits of one body's transform, velocities, q and q̇ to `ioHash` (`World::StateHash`).
void AddBodyState(Fnv1a64& ioHash, const btRigidBody& inBody, const ModalDynamics& inDynamics)
{
    const auto addVector = [&ioHash](const btVector3& inVector)
    {
        for (int axis = 0; axis < 3; ++axis)
        {
            const btScalar value = inVector[axis];
            ioHash.Add(&value, sizeof value);
        }
    };
    const btTransform& transform = inBody.getWorldTransform();
    for (int row = 0; row < 3; ++row)
        addVector(transform.getBasis()[row]);
    addVector(transform.getOrigin());
    addVector(inBody.getLinearVelocity());
    addVector(inBody.getAngularVelocity());
    ioHash.Add(inDynamics.QDouble().data(), inDynamics.QDouble().size_bytes());
    ioHash.Add(inDynamics.QDot().data(), inDynamics.QDot().size_bytes());
}

} // namespace

std::uint64_t World::StateHash() const
{
    Fnv1a64 hash;
    for (const std::unique_ptr<Body>& body : mBodies)
        AddBodyState(hash, *body->rigidBody, body->shape->Dynamics());
    return hash.Value();
}

std::uint64_t World::BodyStateHash(const btRigidBody* inBody) const
{
    const Body& body = OwnBody(inBody, "BodyStateHash");
    Fnv1a64 hash;
    AddBodyState(hash, *body.rigidBody, body.shape->Dynamics());
    return hash.Value();
}

std::size_t World::BodyMemoryBytes() const
{
    std::size_t bytes = 0;
    for (const std::unique_ptr<Body>& body : mBodies)
        bytes += sizeof(Body) + sizeof(DeformableShape) + sizeof(btRigidBody) + sizeof(btDefaultMotionState) +
                 body->shape->State().MemoryBytes() +
                 body->shape->Dynamics().ModeCount() * 17 * sizeof(double);
    return bytes;
}

} // namespace bdt
