#pragma once

#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>

#include <memory>

namespace bdt
{

class CreateFuncRegistry;

/// Bullet's default collision configuration with the BD-Tree algorithms in the row and column of
/// `CUSTOM_CONCAVE_SHAPE_TYPE` of both tables, and an algorithm pool sized for them. A dispatcher made from
/// it needs no `registerCollisionAlgorithms` call:
///
///     bdt::CollisionConfiguration configuration;
///     btCollisionDispatcher dispatcher(&configuration);
///
/// `inInfo` is taken as given except `m_customCollisionAlgorithmMaxElementSize`, which is raised to
/// `CollisionAlgorithmSize()` if smaller; a pool given in `inInfo` whose elements are smaller than that makes
/// the constructor throw `bdt::Error`. The configuration owns the create functions it hands out: destroy
/// the dispatcher first (as Bullet requires anyway).
class CollisionConfiguration : public btDefaultCollisionConfiguration
{
public:
    explicit CollisionConfiguration(const btDefaultCollisionConstructionInfo& inInfo = btDefaultCollisionConstructionInfo());
    ~CollisionConfiguration() override;

    btCollisionAlgorithmCreateFunc* getCollisionAlgorithmCreateFunc(int inProxyType0, int inProxyType1) override;
    btCollisionAlgorithmCreateFunc* getClosestPointsAlgorithmCreateFunc(int inProxyType0, int inProxyType1) override;

private:
    /// Our create functions, one per distinct Bullet function of the row and column, per table.
    std::unique_ptr<CreateFuncRegistry> mCreateFuncs;
};

} // namespace bdt
