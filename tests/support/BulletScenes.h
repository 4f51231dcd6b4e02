#pragma once

// Helpers for the Bullet-level tests: shared assets and brute-force measures of deformed bodies.

#include <LinearMath/btQuaternion.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

class btRigidBody;

namespace bdt::test
{

/// A DeformableAsset of a built-in shape with a smooth basis, cached per (shape, triangles, modes).
std::shared_ptr<const DeformableAsset> ShapeAsset(const std::string& inShape, std::uint32_t inTriangles,
                                                  std::uint32_t inModes);

/// A DeformableAsset of a built-in shape with `inModes` vibration modes from the modal bake of a solid of Young's
/// modulus `inYoung` (Pa), ν = 0.4, 1000 kg/m³; cached per (shape, triangles, modes, modulus).
std::shared_ptr<const DeformableAsset> ModalShapeAsset(const std::string& inShape, std::uint32_t inTriangles,
                                                       std::uint32_t inModes, double inYoung);

/// The bridge scene's deck (`BridgePlankMesh`, 3000 triangles): 12 vibration modes of a 300 MPa solid, ν = 0.4,
/// 200 kg/m³ (60 kg); baked once.
std::shared_ptr<const DeformableAsset> BridgePlankAsset();

/// A DeformableAsset of a built-in shape turned by a fixed rotation in its rest frame, so that its principal
/// frame (the shape's local frame) is not aligned with the rest frame's axes: boxes do not stay boxes between
/// the two. Not cached.
std::shared_ptr<const DeformableAsset> TurnedShapeAsset(const char* inShape, std::uint32_t inTriangles = 1500,
                                                        std::uint32_t inModes = 6);

/// `inCount` chairs (3000 triangles, 10 modes, proxies at level 7) in `inLayers` layers, neighbours 0.8 of their
/// bounding diameter apart (`AddPile`, seed 1), above the ground plane y = 0 of `ioWorld` (not added here); in
/// creation order.
std::vector<btRigidBody*> AddChairPile(SampleWorld& ioWorld, std::uint32_t inCount, std::uint32_t inLayers);

/// A uniformly distributed random rotation (a normalised 4D Gaussian).
btQuaternion RandomQuaternion(std::mt19937& ioRandom);

/// World position of deformed vertex `inVertex` of a body made by bdt::World (brute force: p + U q in double,
/// then the shape's principal frame, scale and the body's transform).
Vec3d DeformedVertexWorld(btRigidBody& inBody, std::size_t inVertex);

/// Lowest world y over all deformed vertices of the body.
double LowestVertexHeight(btRigidBody& inBody);

/// The deepest overlap (m, ≤ 0; 0 if none) of any two of `inBodies`' surfaces: `contactPairTest` of every pair,
/// which reports true surface distances, here those within 1 cm (counted into `outNear` when given).
double DeepestOverlap(SampleWorld& ioWorld, std::span<btRigidBody* const> inBodies, int* outNear = nullptr);

/// An upper bound on the speed of any point of the body (m/s): |v| + |ω|·reach + max_i s·|U_i q̇|.
double MaxPointSpeed(btRigidBody& inBody);

/// Everything that determines where the bodies go next, as raw doubles in order: each body's basis, origin,
/// linear and angular velocity, and (for a deformable) q. For bit-for-bit comparisons of two runs.
std::vector<double> RawBodyState(std::span<btRigidBody* const> inBodies);

/// The generalised impulse a shape has accumulated since its last flush or clear (`ShapeSolver::PendingImpulse`),
/// as a vector (M entries).
std::vector<double> PendingImpulse(const DeformableShape& inShape);

} // namespace bdt::test
