#pragma once

#include <bdt/core/base/Math.h>
#include <memory>
#include <string>
#include <vector>

class btBroadphaseInterface;
class btCollisionWorld;
class btCollisionDispatcher;
class btDeformableMultiBodyConstraintSolver;
class btDeformableMultiBodyDynamicsWorld;
class btReducedDeformableBody;
class btReducedDeformableBodySolver;
class btSoftBodyRigidBodyCollisionConfiguration;
class btVector3;

namespace bdt::bench
{

/// What a Bullet user has today for a reduced deformable body: Bullet's own `btReducedDeformableBody`
/// (Xuchen Han's reduced deformable solver) in a `btDeformableMultiBodyDynamicsWorld` with a
/// `btReducedDeformableBodySolver`, loaded from the files that `SaveBulletReducedFiles` writes, standing on a
/// static ground box with a grid of rigid balls on its top. Owns the whole world. Serial (Bullet).
class BulletReducedScene
{
public:
    /// Loads `inModes` modes from `inFolder` (ending without a slash), moves the body up by `inLift` metres,
    /// sets Rayleigh damping (α, β) as `MakeModelFromBulletFiles` does for the BD-Tree's model, and adds
    /// balls of radius `inBallRadius` (0.2 kg each) at `inBallCentres` (world, m). Throws `bdt::Error` if
    /// Bullet cannot load the body.
    BulletReducedScene(const std::string& inFolder, int inModes, double inLift, double inAlpha, double inBeta,
                       const std::vector<Vec3d>& inBallCentres, double inBallRadius);
    ~BulletReducedScene();
    BulletReducedScene(const BulletReducedScene&) = delete;
    BulletReducedScene& operator=(const BulletReducedScene&) = delete;

    /// One step of `inTimeStep` seconds (no substeps).
    void Step(double inTimeStep);
    /// Contact points of the last step: the rigid manifolds' points plus the body's node and face contacts
    /// with rigid bodies.
    int ContactPoints() const;
    /// Lowest node height of the body, m (for a sanity check: it stands on the ground).
    double LowestNodeY() const;
    /// The world, for reading its objects (the body, the ground box and the balls).
    const btCollisionWorld& World() const;

private:
    struct Parts;
    std::unique_ptr<Parts> mParts;
};

} // namespace bdt::bench
