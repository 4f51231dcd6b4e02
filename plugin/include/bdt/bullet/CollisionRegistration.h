#pragma once

#include <cstddef>

class btCollisionDispatcher;

namespace bdt
{

/// Registers the BD-Tree collision algorithms on `ioDispatcher` for the whole row and the whole column of
/// `CUSTOM_CONCAVE_SHAPE_TYPE`, in both of Bullet's tables (contact points and closest points). Bullet 3.24
/// gives `SDF_SHAPE_PROXYTYPE` that same value, so without this Bullet would treat a `DeformableShape` as
/// an SDF. Pairs in those cells that hold no `DeformableShape` are forwarded to the algorithm that the
/// dispatcher's collision configuration gives for the cell, so Bullet's own shapes keep their behaviour.
///
/// The dispatcher's collision-algorithm pool must hold `CollisionAlgorithmSize()` bytes per element (set
/// `btDefaultCollisionConstructionInfo::m_customCollisionAlgorithmMaxElementSize`, or use
/// `bdt::CollisionConfiguration`, which does it and registers by itself); otherwise this throws
/// `bdt::Error` rather than let Bullet write past a pool element. Call it once, before the first step.
void registerCollisionAlgorithms(btCollisionDispatcher& ioDispatcher);

/// Whether `inDispatcher` has the BD-Tree algorithms in the whole row and column of `CUSTOM_CONCAVE_SHAPE_TYPE`
/// of both its tables (`registerCollisionAlgorithms`, or a `bdt::CollisionConfiguration`'s dispatcher): without
/// them Bullet takes a `DeformableShape` for an SDF and it collides with nothing. O(types).
bool HasCollisionAlgorithms(const btCollisionDispatcher& inDispatcher);

/// The largest size in bytes of the collision algorithms `registerCollisionAlgorithms` creates.
std::size_t CollisionAlgorithmSize();

} // namespace bdt
