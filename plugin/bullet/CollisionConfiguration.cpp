#include "CreateFunctions.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <algorithm>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/CollisionRegistration.h>

namespace bdt
{

namespace
{

btDefaultCollisionConstructionInfo WithAlgorithmSize(const btDefaultCollisionConstructionInfo& inInfo)
{
    btDefaultCollisionConstructionInfo info = inInfo;
    info.m_customCollisionAlgorithmMaxElementSize =
        std::max(info.m_customCollisionAlgorithmMaxElementSize, int(CollisionAlgorithmSize()));
    return info;
}

bool InCustomRowOrColumn(int inProxyType0, int inProxyType1)
{
    return inProxyType0 == CUSTOM_CONCAVE_SHAPE_TYPE || inProxyType1 == CUSTOM_CONCAVE_SHAPE_TYPE;
}

} // namespace

CollisionConfiguration::CollisionConfiguration(const btDefaultCollisionConstructionInfo& inInfo)
    : btDefaultCollisionConfiguration(WithAlgorithmSize(inInfo)),
      mCreateFuncs(std::make_unique<CreateFuncRegistry>())
{
    // A pool passed in `inInfo` is used as it is: check it.
    RequireAlgorithmPool(*this);
}

CollisionConfiguration::~CollisionConfiguration() = default;

btCollisionAlgorithmCreateFunc* CollisionConfiguration::getCollisionAlgorithmCreateFunc(int inProxyType0,
                                                                                        int inProxyType1)
{
    btCollisionAlgorithmCreateFunc* bullet =
        btDefaultCollisionConfiguration::getCollisionAlgorithmCreateFunc(inProxyType0, inProxyType1);
    return InCustomRowOrColumn(inProxyType0, inProxyType1) ? mCreateFuncs->Get(bullet, false) : bullet;
}

btCollisionAlgorithmCreateFunc* CollisionConfiguration::getClosestPointsAlgorithmCreateFunc(int inProxyType0,
                                                                                            int inProxyType1)
{
    btCollisionAlgorithmCreateFunc* bullet =
        btDefaultCollisionConfiguration::getClosestPointsAlgorithmCreateFunc(inProxyType0, inProxyType1);
    return InCustomRowOrColumn(inProxyType0, inProxyType1) ? mCreateFuncs->Get(bullet, true) : bullet;
}

} // namespace bdt
