#pragma once

#include <cstddef>

class btCollisionDispatcher;

namespace bdt
{

/// Registers the BD-Tree algorithms on `ioDispatcher` in the row and column of `CUSTOM_CONCAVE_SHAPE_TYPE`
/// (also Bullet 3.24's SDF type) of both tables, other shapes keeping theirs; once, before the first step.
/// Throws `bdt::Error` unless the pool's elements hold `CollisionAlgorithmSize()` (a `CollisionConfiguration`).
void registerCollisionAlgorithms(btCollisionDispatcher& ioDispatcher);

/// Whether `inDispatcher` has them in both tables (else a `DeformableShape` collides with nothing). O(types).
bool HasCollisionAlgorithms(const btCollisionDispatcher& inDispatcher);

/// The largest size in bytes of the collision algorithms `registerCollisionAlgorithms` creates.
std::size_t CollisionAlgorithmSize();

} // namespace bdt
