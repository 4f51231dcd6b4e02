#pragma once

// The create functions registered in the row and column of CUSTOM_CONCAVE_SHAPE_TYPE, and where they live.
// Private to plugin/bullet.

#include <BulletCollision/CollisionDispatch/btCollisionCreateFunc.h>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

class btCollisionConfiguration;
class btPersistentManifold;

namespace bdt
{

/// Create function of one or more cells in the row or column of CUSTOM_CONCAVE_SHAPE_TYPE: a pair with a
/// `DeformableShape` gets a `DeformableCollisionAlgorithm` (or, against a compound, Bullet's
/// btCompoundCollisionAlgorithm, whose children come back through the dispatcher); any other pair, and a
/// deformable against a shape the narrowphase does not handle (a soft body, say), goes to `mFallback`, the
/// function the cell had before. 32 bytes.
struct DeformableCreateFunc : public btCollisionAlgorithmCreateFunc
{
    DeformableCreateFunc(btCollisionAlgorithmCreateFunc* inFallback, bool inClosestPoints)
        : mFallback(inFallback), mClosestPoints(inClosestPoints)
    {
    }

    btCollisionAlgorithm* CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo& ci,
                                                   const btCollisionObjectWrapper* body0Wrap,
                                                   const btCollisionObjectWrapper* body1Wrap) override;

    btCollisionAlgorithmCreateFunc* mFallback = nullptr; ///< Not owned; may be null (then: no algorithm).
    bool mClosestPoints = false;                         ///< Registered in the closest-points table.
};

/// Owns `DeformableCreateFunc`s, one per (fallback, table): cells that shared a create function share its
/// forwarder: Bullet 3.24's default configuration needs 10 (5 distinct functions in each table's row and
/// column).
/// Thread-safe.
class CreateFuncRegistry
{
public:
    /// The forwarder to `inFallback` for the contact (`inClosestPoints` false) or closest-points table,
    /// made on first request and the same object afterwards. Lives as long as the registry.
    btCollisionAlgorithmCreateFunc* Get(btCollisionAlgorithmCreateFunc* inFallback, bool inClosestPoints);
    /// Number of forwarders made so far.
    std::size_t Size() const;

private:
    mutable std::mutex mMutex;
    std::map<std::pair<const void*, bool>, std::unique_ptr<DeformableCreateFunc>> mFuncs;
};

/// Stands in `btCollisionAlgorithmConstructionInfo::m_manifold` for a compound created in closest-points
/// mode. btCompoundCollisionAlgorithm passes its construction manifold to the dispatcher when it creates
/// its children and, under a zero distance threshold (contactTest), asks the contact table for them; the
/// marker tells our create function that the child is part of a closest-points query after all. Never
/// used as a manifold.
btPersistentManifold* ClosestPointsMarker();

/// Throws `bdt::Error` when `ioConfiguration`'s collision-algorithm pool is missing or its elements are
/// smaller than `CollisionAlgorithmSize()` (Bullet's pool allocator only asserts on that, so release builds
/// would write past an element).
void RequireAlgorithmPool(btCollisionConfiguration& ioConfiguration);

} // namespace bdt
