#pragma once

#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>

#include <memory>

namespace bdt
{

class CreateFuncRegistry;

/// Bullet's default collision configuration with the BD-Tree algorithms registered (no need to call
/// `registerCollisionAlgorithms`). It owns the create functions it hands out: destroy the dispatcher first.
class CollisionConfiguration : public btDefaultCollisionConfiguration
{
public:
    /// `inInfo` as given, its algorithm element size raised to `CollisionAlgorithmSize()`; throws `bdt::Error`
    /// for a pool given in `inInfo` with smaller elements.
    explicit CollisionConfiguration(const btDefaultCollisionConstructionInfo& inInfo = btDefaultCollisionConstructionInfo());
    ~CollisionConfiguration() override;

    /// Bullet's create functions, ours in the row and column of `CUSTOM_CONCAVE_SHAPE_TYPE`.
    btCollisionAlgorithmCreateFunc* getCollisionAlgorithmCreateFunc(int inProxyType0, int inProxyType1) override;
    btCollisionAlgorithmCreateFunc* getClosestPointsAlgorithmCreateFunc(int inProxyType0, int inProxyType1) override;

private:
    /// Our create functions, one per distinct Bullet function of the row and column, per table.
    std::unique_ptr<CreateFuncRegistry> mCreateFuncs;
};

} // namespace bdt
