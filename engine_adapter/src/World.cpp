// bdt::World: the deformable bodies in a host's Bullet world: creation, attachments, geometry, tick callbacks and
// state hashes (the step's own work is in WorldStep.cpp).

#include "BodyStateChecks.h"
#include "CoupledContacts.h"
#include "PhaseTimer.h"
#include "SolverConvergence.h"
#include "SurfaceAttachment.h"
#include "WorldBody.h"

#include "bullet/ShapeSolver.h"
#include "core/base/Fnv1a.h"

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
#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <tuple>
#include <utility>

namespace bdt
{

namespace
{

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
    if (detail::RotationError(inDesc.transform.getBasis(), proper) > detail::cBasisTolerance || !proper)
        throw Error("body: transform's basis is not a rotation (orthonormal columns, determinant 1); give the size "
                    "as BodySettings::scale");
    const BodyMaterial& m = inDesc.material;
    if (!std::isfinite(m.friction) || m.friction < 0.0f || !std::isfinite(m.rollingFriction) ||
        m.rollingFriction < 0.0f)
        throw Error("body: friction and rolling friction must be finite and >= 0");
    if (!(m.restitution >= 0.0f && m.restitution <= 1.0f))
        throw Error("body: restitution must lie in [0, 1], got " + std::to_string(m.restitution));
    if (!(m.margin >= 0.0f && m.margin <= DeformableShape::cMaxMargin))
        throw Error("body: margin must lie in [0, " + std::to_string(DeformableShape::cMaxMargin) + "] m, got " +
                    std::to_string(m.margin));
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
    : mWorld(ioWorld), mSettings(inSettings),
      mConvergence(std::make_unique<detail::SolverConvergence>(ioWorld.getSolverInfo()))
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
    if (!worldGone)
        ReleaseJoints(0.0); // joints watched by a step that did not finish: their pivots and feedback back
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
        // This step ran without the pre-tick, which clears the impulses the modes took at the last step's end:
        // this solve's would be read back on top of them in the post-tick. Drop them.
        for (std::unique_ptr<Body>& body : mBodies)
            ShapeSolver::Of(*body->shape).ClearImpulses();
    }
    mPreTickRan = false;
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
    auto attachment = std::make_unique<detail::SurfaceAttachment>(a, b, inSettings, mConvergence.get());
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
    ShapeSolver::Of(shape).Coupling(feature, inDirection, shape.RestToWorld(transform), outCoupling);
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
    const double magnitude = detail::Length(inLoad);
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
        ShapeSolver::Of(*body->shape).ApplyImpulse(coupling, magnitude);
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
