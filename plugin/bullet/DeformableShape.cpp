// DeformableShape: the btConcaveShape face of a reduced deformable body (bounds, triangles, inertia, scaling)
// and the body's deformation state (q through the modal dynamics); the step's solver hooks are ShapeSolver's.

#include "core/pieces/ContactPieces.h"
#include "core/contacts/SurfaceCache.h"
#include "PieceMemory.h"
#include "ShapeSolver.h"

#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

namespace bdt
{

namespace
{

constexpr const char* cShapeName = "BDTDeformable";

// Slack on the sphere tests against the double rounding of mapping a float sphere to the local or world
// frame: the spheres are conservative on their floats, these keep them so after the arithmetic (the same
// allowance the core queries use).
constexpr double cRelativeSlack = 1e-9;
constexpr double cPositionSlack = 1e-13;

// The rotation nearest a Bullet basis, which is orthonormal only to float precision: `Pose` requires an
// orthonormal rotation (the queries map spheres by it without any allowance for a stretch).
Mat3d NearestRotation(const Mat3d& inBasis)
{
    Eigen::Quaterniond rotation(inBasis);
    rotation.normalize();
    return rotation.toRotationMatrix();
}

// The largest btScalar not above `inValue`, and the smallest not below: boxes rounded outwards.
btScalar RoundDown(double inValue)
{
    btScalar value = btScalar(inValue);
    if (double(value) > inValue)
        value = std::nextafter(value, -std::numeric_limits<btScalar>::infinity());
    return value;
}

btScalar RoundUp(double inValue)
{
    btScalar value = btScalar(inValue);
    if (double(value) < inValue)
        value = std::nextafter(value, std::numeric_limits<btScalar>::infinity());
    return value;
}

std::shared_ptr<const DeformableAsset> CheckedAsset(std::shared_ptr<const DeformableAsset> inAsset)
{
    if (!inAsset)
        throw Error("deformable shape needs an asset");
    return inAsset;
}

// The checks that ModalDynamics does not do (it validates the mass and the modal settings itself).
const DeformableShapeSettings& CheckedSettings(const DeformableShapeSettings& inSettings)
{
    if (!std::isfinite(inSettings.mass) || !(inSettings.mass >= cMinMass))
        throw Error("deformable shape mass must be finite and at least " + std::to_string(cMinMass) +
                    " kg, got " + std::to_string(inSettings.mass));
    if (inSettings.maxManifoldsPerPair == 0)
        throw Error("deformable shape maxManifoldsPerPair must be at least 1");
    if (!std::isfinite(inSettings.pieceTolerance) || inSettings.pieceTolerance < 0.0)
        throw Error("deformable shape pieceTolerance must be non-negative and finite, got " +
                    std::to_string(inSettings.pieceTolerance));
    if (!std::isfinite(inSettings.pairCacheSkin) || inSettings.pairCacheSkin < 0.0)
        throw Error("deformable shape pairCacheSkin must be non-negative and finite, got " +
                    std::to_string(inSettings.pairCacheSkin));
    return inSettings;
}

ModalDynamics MakeDynamics(const DeformableAsset& inAsset, const DeformableShapeSettings& inSettings,
                           double inScale)
{
    return ModalDynamics(inAsset.GetModel(), inAsset.Modal(), inAsset.BoundingRadius(), inSettings.mass,
                         inScale, inSettings.modal);
}

} // namespace

DeformableShape::DeformableShape(std::shared_ptr<const DeformableAsset> inAsset,
                                 const DeformableShapeSettings& inSettings)
    : mAsset(CheckedAsset(std::move(inAsset))), mPrincipal(mAsset->Mass().ToPrincipal()),
      mSettings(CheckedSettings(inSettings)), mState(mAsset->Proxies(inSettings.proxyLevel)),
      mSurface(std::make_unique<SurfaceCache>()), mDynamics(MakeDynamics(*mAsset, inSettings, 1.0)),
      mSolver(std::make_unique<ShapeSolver>(*this))
{
    m_shapeType = CUSTOM_CONCAVE_SHAPE_TYPE;
    m_collisionMargin = mMargin;
    ApplySettings(mSettings);
}

DeformableShape::~DeformableShape() = default;

double DeformableShape::Scale() const
{
    return double(mLocalScaling.x());
}

void DeformableShape::getAabb(const btTransform& inTransform, btVector3& outMin, btVector3& outMax) const
{
    const UpdatedSphere root = mState.Sphere(0);
    const double scale = Scale();
    const Vec3d localCenter = scale * mPrincipal.Apply(Vec3d(root.center[0], root.center[1], root.center[2]));
    const double localRadius = scale * double(root.radius);

    // The ball's image under Bullet's basis B (orthonormal to float precision) spans r·‖row_i(B)‖ along world
    // axis i, exactly, whatever the stretch of B. The narrowphase places the body with the nearest rotation
    // Q of B (`Body`); points differ by (B − Q)·x there, at most ‖B − Q‖_F·(|c| + r), added so the box holds
    // the body as both place it.
    const Mat3d basis = ToMat3d(inTransform.getBasis());
    const Vec3d origin = ToVec3d(inTransform.getOrigin());
    const Vec3d center = basis * localCenter + origin;
    const double skew = (basis - NearestRotation(basis)).norm() * (localCenter.norm() + localRadius);
    const double slack = cRelativeSlack * localRadius +
                         cPositionSlack * (origin.cwiseAbs().maxCoeff() + localCenter.norm() + localRadius);
    const Vec3d half = localRadius * basis.rowwise().norm() + Vec3d::Constant(skew + slack + double(mMargin));
    outMin.setValue(RoundDown(center.x() - half.x()), RoundDown(center.y() - half.y()),
                    RoundDown(center.z() - half.z()));
    outMax.setValue(RoundUp(center.x() + half.x()), RoundUp(center.y() + half.y()),
                    RoundUp(center.z() + half.z()));
}

void DeformableShape::getBoundingSphere(btVector3& outCenter, btScalar& outRadius) const
{
    BoundingSphereMemo& memo = mBoundingSphere;
    if (!memo.valid || memo.version != mState.Version() || memo.scale != mLocalScaling.x() ||
        memo.margin != mMargin)
    {
        const UpdatedSphere root = mState.Sphere(0);
        const Vec3d centre =
            Scale() * mPrincipal.Apply(Vec3d(root.center[0], root.center[1], root.center[2]));
        memo = {mState.Version(),
                mLocalScaling.x(),
                mMargin,
                ToBtVector(centre),
                btScalar(Scale() * double(root.radius) + double(mMargin)),
                true};
    }
    outCenter = memo.center;
    outRadius = memo.radius;
}

double DeformableShape::SurfaceReach() const
{
    const UpdatedSphere root = mState.Sphere(0);
    const Vec3d center = mPrincipal.Apply(Vec3d(root.center[0], root.center[1], root.center[2]));
    return Scale() * (center.norm() + double(root.radius)) + double(mMargin);
}

double DeformableShape::ModalSurfaceSpeed() const
{
    double squared = 0.0;
    for (const double v : mDynamics.QDot())
        squared += v * v;
    const float* root = mAsset->Tree().Row(0);
    const double rootGrowth = double(root[NodeRowLayout::TightOffset(mAsset->Tree().ModeCount()) + 1]);
    return Scale() * rootGrowth * std::sqrt(squared);
}

void DeformableShape::processAllTriangles(btTriangleCallback* ioCallback, const btVector3& inMin,
                                          const btVector3& inMax) const
{
    const Vec3d boxMin = ToVec3d(inMin);
    const Vec3d boxMax = ToVec3d(inMax);
    // An inverted box, or one with a NaN bound, holds nothing. Infinite and huge bounds (debug drawing asks
    // for ±BT_LARGE_FLOAT) need no care: only comparisons touch them.
    if (ioCallback == nullptr || !(boxMin.array() <= boxMax.array()).all())
        return;

    // The tree query in the local frame (the rest frame mapped by the principal transform and the scale):
    // querying the rest frame with the box's rest-frame bounds instead would lose triangles whose local box
    // overlaps the query box while their rest box misses the rotated box's bounds.
    // local = s·(R_p·rest + t_p) = R_p·(s·rest) + s·t_p: the pose of DeformedBody's convention.
    const DeformedBody local{&mState, Pose{mPrincipal.rotation, Scale() * mPrincipal.translation}, Scale()};
    QueryTriangles(
        local, Aabb(boxMin, boxMax),
        [&](std::uint32_t inTriangle, const Vec3d(&inVertices)[3])
        {
            btVector3 triangle[3] = {ToBtVector(inVertices[0]), ToBtVector(inVertices[1]),
                                     ToBtVector(inVertices[2])};
            ioCallback->processTriangle(triangle, 0, static_cast<int>(inTriangle));
        },
        mStats);
}

void DeformableShape::calculateLocalInertia(btScalar inMass, btVector3& outInertia) const
{
    const double scale = Scale();
    const Vec3d inertia = double(inMass) * scale * scale * mAsset->Mass().principalInertia;
    outInertia = ToBtVector(inertia);
}

void DeformableShape::setLocalScaling(const btVector3& inScaling)
{
    const btScalar s = inScaling.x();
    if (!IsFinite(inScaling) || !(s > btScalar(0)) || inScaling.y() != s || inScaling.z() != s)
        throw Error("deformable shape scaling must be uniform, positive and finite, got (" +
                    std::to_string(double(inScaling.x())) + ", " + std::to_string(double(inScaling.y())) +
                    ", " + std::to_string(double(inScaling.z())) + ")");
    // The modal masses scale with s²: new dynamics at the new scale, carrying q and q̇ (model units) over.
    ModalDynamics dynamics = MakeDynamics(*mAsset, mSettings, double(s));
    if (!dynamics.SetState(mDynamics.QDouble(), mDynamics.QDot()))
        dynamics.Reset();
    dynamics.ContinueGuardStats(mDynamics.GuardStats());
    mDynamics = std::move(dynamics);
    mLocalScaling = inScaling;
    mSolver->ClearPrediction(); // made for the old modal masses
}

void DeformableShape::setMargin(btScalar inMargin)
{
    if (!(inMargin >= btScalar(0) && inMargin <= btScalar(cMaxMargin)))
        throw Error("deformable shape margin must lie in [0, " + std::to_string(double(cMaxMargin)) +
                    "] m, got " + std::to_string(double(inMargin)));
    mMargin = inMargin;
    m_collisionMargin = inMargin; // btConcaveShape's own copy, for any code that reads it
}

void DeformableShape::SetSettings(const DeformableShapeSettings& inSettings)
{
    // Everything that can throw first (validation, the new dynamics, the proxy level), then the commit.
    CheckedSettings(inSettings);
    // The same mass keeps the dynamics (and their guard counters), with new modal settings; a new mass
    // changes every modal mass: new dynamics carrying q and q̇ over.
    ModalDynamics dynamics =
        inSettings.mass == mSettings.mass ? mDynamics : MakeDynamics(*mAsset, inSettings, Scale());
    if (inSettings.mass == mSettings.mass)
        dynamics.SetSettings(inSettings.modal);
    else if (!dynamics.SetState(mDynamics.QDouble(), mDynamics.QDot()))
        dynamics.Reset();
    dynamics.ContinueGuardStats(mDynamics.GuardStats());
    std::shared_ptr<const ContactProxies> proxies = mAsset->Proxies(inSettings.proxyLevel);
    if (proxies != mState.ProxiesPtr())
        mState.SetProxies(std::move(proxies));
    ApplySettings(inSettings);
    mDynamics = std::move(dynamics);
    mSolver->ClearPrediction(); // made for the old frequencies and modal masses
}

void DeformableShape::ApplySettings(const DeformableShapeSettings& inSettings)
{
    mState.SetBound(inSettings.bound);
    mState.SetTemporalCoherence(inSettings.temporalCoherence);
    // The surface model's patches follow the proxy level; kept when a body switches to the proxies model (a
    // switch back costs nothing then).
    if (inSettings.contactModel == EContactModel::Surface || mPatches)
    {
        if (!mPatches || &mPatches->Proxies() != &mState.Proxies())
            mPatches = mAsset->Patches(mState.Proxies().Level());
        if (!mSurfaceBoxes)
            mSurfaceBoxes = mAsset->Boxes();
        if (!mPieces || mPieces->NodeCount() != mState.Tree().LevelEnd(mState.Proxies().Level() + cPieceLevelsBelow))
            mPieces = mAsset->Pieces(mState.Proxies().Level());
        if (!mPieceUse || mPieceUse->NodeCount() != mPieces->NodeCount())
            mPieceUse = std::make_unique<PieceMemory>(mPieces->NodeCount());
    }
    mSettings = inSettings;
}

std::uint32_t DeformableShape::InputTriangle(std::uint32_t inTree) const
{
    const std::span<const std::uint32_t> order = mAsset->Tree().TriangleOrder();
    return inTree < order.size() ? order[inTree] : cNoIndex;
}

std::uint32_t DeformableShape::TreeTriangle(std::uint32_t inInput) const
{
    return mAsset->TreeTriangleOf(inInput);
}

bool DeformableShape::BeginStep()
{
    if (mPieceUse)
        mPieceUse->NextStep();
    if (mState.SetQ(mDynamics.Q()))
        return true;
    mDynamics.Reset();
    const std::vector<float> rest(mState.ModeCount(), 0.0f);
    (void)mState.SetQ(rest);
    return false;
}

bool DeformableShape::SetQ(std::span<const float> inQ)
{
    if (inQ.size() != mState.ModeCount())
        return false;
    for (const float value : inQ)
        if (!std::isfinite(value) || std::abs(value) > TreeState::cMaxAbsQ)
            return false;
    const std::vector<double> q(inQ.begin(), inQ.end());
    const std::vector<double> rest(q.size(), 0.0);
    if (!mDynamics.SetState(q, rest))
        return false;
    mSolver->ClearPrediction();
    return BeginStep();
}

Vec3d DeformableShape::ProxyModalVelocity(std::uint32_t inNode, const Mat3d& inRestToWorld) const
{
    return mSolver->ModalVelocity(ContactFeature{inNode}, inRestToWorld);
}

Mat3d DeformableShape::ProxyModalMobility(std::uint32_t inNode, const Mat3d& inRestToWorld) const
{
    Mat3d rest = Mat3d::Zero();
    if (inNode >= mState.Tree().NodeCount())
        return rest;
    const float* row = mState.Proxies().Row(inNode);
    for (std::uint32_t j = 0; j < mState.ModeCount(); ++j)
    {
        const double mu = mDynamics.ModalMass(j);
        if (!(mu > 0.0))
            continue;
        const float* u = row + 4 * (j + 1);
        const Vec3d v{double(u[0]), double(u[1]), double(u[2])};
        rest += (v * v.transpose()) / mu;
    }
    return Scale() * Scale() * (inRestToWorld * rest * inRestToWorld.transpose());
}

void DeformableShape::ApplyImpulse(std::uint32_t inNode, const Vec3d& inImpulse,
                                   const btTransform& inWorldFromLocal)
{
    ApplyImpulse(inNode, inImpulse, RestToWorld(inWorldFromLocal));
}

void DeformableShape::ApplyImpulse(std::uint32_t inNode, const Vec3d& inImpulse, const Mat3d& inRestToWorld)
{
    mSolver->ApplyImpulse(ContactFeature{inNode}, inImpulse, inRestToWorld);
}

void DeformableShape::ResetStats()
{
    mStats = {};
    mNarrowphase = {};
}

const DeformableShape::RotationMemo& DeformableShape::Rotations(const btMatrix3x3& inBasis) const
{
    btScalar basis[9];
    for (int row = 0; row < 3; ++row)
        for (int column = 0; column < 3; ++column)
            basis[3 * row + column] = inBasis[row][column];
    if (!mRotations.valid || !std::equal(basis, basis + 9, mRotations.basis))
    {
        std::copy(basis, basis + 9, mRotations.basis);
        mRotations.nearest = NearestRotation(ToMat3d(inBasis));
        mRotations.restToWorld = mRotations.nearest * mPrincipal.rotation;
        mRotations.valid = true;
    }
    return mRotations;
}

Mat3d DeformableShape::RestToWorld(const btTransform& inWorldFromLocal) const
{
    return Rotations(inWorldFromLocal.getBasis()).restToWorld;
}

DeformedBody DeformableShape::QueryView(const btTransform& inWorldFromLocal, double inInflate) const
{
    const RotationMemo& rotations = Rotations(inWorldFromLocal.getBasis());
    const double scale = Scale();
    DeformedBody body;
    body.state = &mState;
    body.pose.rotation = rotations.restToWorld;
    body.pose.translation =
        ToVec3d(inWorldFromLocal.getOrigin()) + scale * (rotations.nearest * mPrincipal.translation);
    body.scale = scale;
    body.inflate = inInflate;
    return body;
}

const DeformableShape* AsDeformable(const btCollisionShape* inShape)
{
    if (inShape == nullptr || inShape->getShapeType() != CUSTOM_CONCAVE_SHAPE_TYPE)
        return nullptr;
    const char* name = inShape->getName();
    if (name != cShapeName && (name == nullptr || std::strcmp(name, cShapeName) != 0))
        return nullptr;
    return static_cast<const DeformableShape*>(inShape);
}

DeformableShape* AsDeformable(btCollisionShape* inShape)
{
    return const_cast<DeformableShape*>(AsDeformable(static_cast<const btCollisionShape*>(inShape)));
}

} // namespace bdt
