#pragma once

// Helpers for the Bullet-level tests: shared assets and brute-force measures of deformed bodies.

#include <bdt/adapter/SampleWorld.h>
#include <bdt/core/DeformableAsset.h>
#include <memory>
#include <string>

class btRigidBody;

namespace bdt::test
{

/// A DeformableAsset of a built-in shape with a smooth basis, cached per (shape, triangles, modes).
std::shared_ptr<const DeformableAsset> ShapeAsset(const std::string& inShape, std::uint32_t inTriangles,
                                                  std::uint32_t inModes);

/// World position of deformed vertex `inVertex` of a body made by bdt::World (brute force: p + U q in double,
/// then the shape's principal frame, scale and the body's transform).
Vec3d DeformedVertexWorld(btRigidBody& inBody, std::size_t inVertex);

/// Lowest world y over all deformed vertices of the body.
double LowestVertexHeight(btRigidBody& inBody);

/// An upper bound on the speed of any point of the body (m/s): |v| + |ω|·reach + max_i s·|U_i q̇|.
double MaxPointSpeed(btRigidBody& inBody);

} // namespace bdt::test
