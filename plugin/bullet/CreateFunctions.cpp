#include "CreateFunctions.h"

#include "bullet/narrowphase/ContactGeneration.h"
#include "bullet/narrowphase/DeformableCollisionAlgorithm.h"

#include <BulletCollision/CollisionDispatch/btCollisionConfiguration.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btCompoundCollisionAlgorithm.h>
#include <LinearMath/btPoolAllocator.h>
#include <bdt/bullet/CollisionRegistration.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <string>

namespace bdt
{

btCollisionAlgorithm*
DeformableCreateFunc::CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo& ci,
                                               const btCollisionObjectWrapper* body0Wrap,
                                               const btCollisionObjectWrapper* body1Wrap)
{
    const bool deformable0 = AsDeformable(body0Wrap->getCollisionShape()) != nullptr;
    const bool deformable1 = AsDeformable(body1Wrap->getCollisionShape()) != nullptr;
    const bool marked = ci.m_manifold == ClosestPointsMarker();
    const bool closestPoints = mClosestPoints || marked;

    const auto forward = [&]() -> btCollisionAlgorithm*
    {
        if (mFallback == nullptr)
            return nullptr;
        if (!marked)
            return mFallback->CreateCollisionAlgorithm(ci, body0Wrap, body1Wrap);
        btCollisionAlgorithmConstructionInfo plain = ci;
        plain.m_manifold = nullptr;
        return mFallback->CreateCollisionAlgorithm(plain, body0Wrap, body1Wrap);
    };
    if (!deformable0 && !deformable1)
        return forward();

    if (!deformable0 || !deformable1)
    {
        const btCollisionObjectWrapper* other = deformable0 ? body1Wrap : body0Wrap;
        switch (ClassifyOther(other->getCollisionShape()))
        {
        case EOtherShape::Compound:
        {
            // Bullet's compound algorithm (its own size, which the default pool already fits) finds an
            // algorithm per child through the dispatcher: deformable vs child comes back here.
            static btCompoundCollisionAlgorithm::CreateFunc sCompound;
            static btCompoundCollisionAlgorithm::SwappedCreateFunc sSwappedCompound;
            btCollisionAlgorithmConstructionInfo info = ci;
            if (closestPoints)
                info.m_manifold = ClosestPointsMarker();
            return other == body1Wrap ? sSwappedCompound.CreateCollisionAlgorithm(info, body0Wrap, body1Wrap)
                                      : sCompound.CreateCollisionAlgorithm(info, body0Wrap, body1Wrap);
        }
        case EOtherShape::Unsupported:
            return forward();
        default:
            break;
        }
    }
    void* memory = ci.m_dispatcher1->allocateCollisionAlgorithm(int(sizeof(DeformableCollisionAlgorithm)));
    return new (memory) DeformableCollisionAlgorithm(ci, closestPoints);
}

btCollisionAlgorithmCreateFunc* CreateFuncRegistry::Get(btCollisionAlgorithmCreateFunc* inFallback,
                                                        bool inClosestPoints)
{
    const std::lock_guard lock(mMutex);
    std::unique_ptr<DeformableCreateFunc>& func = mFuncs[{inFallback, inClosestPoints}];
    if (!func)
        func = std::make_unique<DeformableCreateFunc>(inFallback, inClosestPoints);
    return func.get();
}

std::size_t CreateFuncRegistry::Size() const
{
    const std::lock_guard lock(mMutex);
    return mFuncs.size();
}

btPersistentManifold* ClosestPointsMarker()
{
    static btPersistentManifold sMarker;
    return &sMarker;
}

void RequireAlgorithmPool(btCollisionConfiguration& ioConfiguration)
{
    const btPoolAllocator* pool = ioConfiguration.getCollisionAlgorithmPool();
    if (pool == nullptr)
        throw Error("the collision configuration has no collision-algorithm pool");
    if (std::size_t(pool->getElementSize()) < CollisionAlgorithmSize())
        throw Error("the collision-algorithm pool's elements hold " + std::to_string(pool->getElementSize()) +
                    " bytes but the BD-Tree algorithms need " + std::to_string(CollisionAlgorithmSize()) +
                    ": set btDefaultCollisionConstructionInfo::m_customCollisionAlgorithmMaxElementSize to "
                    "bdt::CollisionAlgorithmSize(), or use bdt::CollisionConfiguration");
}

} // namespace bdt
