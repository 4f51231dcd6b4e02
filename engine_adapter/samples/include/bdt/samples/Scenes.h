#pragma once

#include <bdt/samples/SampleWorld.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cstdint>
#include <memory>
#include <vector>

class btPoint2PointConstraint;

namespace bdt
{

/// A block of bodies dropped onto the ground to form a pile (the BD-Tree paper's Figure 1 scene: 3601
/// chairs). Shared by the tests, the benchmarks and the demo.
struct PileSettings
{
    std::uint32_t count = 100; ///< Number of bodies.
    std::uint32_t layers = 4;  ///< Layers of the block; each layer a square grid of about count/layers.
    /// Centre-to-centre distance of neighbours, as a multiple of the body's bounding diameter. Below 1,
    /// neighbours' root spheres overlap from the start (their geometry still must not).
    double spacing = 1.05;
    double dropHeight = 0.2;     ///< Gap between the ground and the lowest bounding sphere, metres.
    std::uint32_t seed = 1;      ///< Random orientations (about the vertical, plus a tilt) from this seed.
    double maxTiltRadians = 0.3; ///< Largest tilt away from upright.
    BodySettings body;               ///< Mass, scale, proxy level, material; the transform is set per body.
};

/// Where `AddPile` places the bodies, in creation order: the world transforms of their principal frames (centre
/// of mass, principal axes: Bullet's transforms of the bodies; `MeshFromPrincipal` gives the `BodySettings::transform`)
/// for bodies of `inAsset`, without creating them (to build the same pile from other shapes). Deterministic for a given seed. Throws `bdt::Error` on impossible settings. Cost O(count).
std::vector<btTransform> PileTransforms(const DeformableAsset& inAsset, const PileSettings& inSettings);

/// Adds `inSettings.count` bodies of `inAsset` to `ioWorld` in a block above the ground plane y = 0 (add the
/// ground yourself), placed by `PileTransforms`, and returns them in creation order. Deterministic for a
/// given seed. Throws `bdt::Error` on impossible settings (zero layers, spacing ≤ 0) or a null asset.
std::vector<btRigidBody*> AddPile(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset,
                                  const PileSettings& inSettings);

/// The assets of the hang scene (`AddHangScene`), baked by the caller: a curtain (`EShape::Curtain`, any basis),
/// a chair (`EShape::Chair`) and a plank (`EShape::Beam`, 2 m along x), in the built-in shapes' sizes.
struct HangAssets
{
    std::shared_ptr<const DeformableAsset> curtain, chair, plank;
};

/// What `AddHangScene` made.
struct HangScene
{
    btRigidBody* curtain = nullptr;
    btRigidBody* chair = nullptr;
    btRigidBody* plank = nullptr;
    btRigidBody* box = nullptr;         ///< The swinging box the chair hangs from.
    btRigidBody* jointChair = nullptr;  ///< The second chair, on Bullet's ball joint.
    btRigidBody* jointBox = nullptr;    ///< The swinging box the second chair hangs from.
    btPoint2PointConstraint* joint = nullptr; ///< The ball joint between `jointBox` and `jointChair` (owned by the world).
    std::vector<btRigidBody*> crates;   ///< The crates on the plank.
    std::vector<AttachmentId> attachments;
};

/// The attachments' scene (`World::Attach`), above the ground plane y = 0 (added here): the curtain hung by
/// points along its top edge from a static rod; two chairs side by side, each hung by its top back corner from the
/// bottom corner of a 10 kg box that swings on Bullet's ball joint (both pushed alike at the start), the first
/// by `World::Attach`, the second by Bullet's `btPoint2PointConstraint`; the plank held at both ends by the tops
/// of two static posts, with three 2 kg crates dropped on it. Deterministic. Throws `bdt::Error` on a null asset.
HangScene AddHangScene(SampleWorld& ioWorld, const HangAssets& inAssets);

/// The bridge scene's deck: the slab (`EShape::Slab`) stretched to a 3 × 0.1 × 1 m plank along x, centred on its
/// mesh origin, about `inTriangles` triangles (at least 3 000 keeps its cells about square).
ShapeMesh BridgePlankMesh(std::uint32_t inTriangles);

/// What `AddBridgeCar` made, owned by the `SampleWorld`.
struct BridgeCar
{
    btRigidBody* chassis = nullptr;      ///< The car's body, 200 kg.
    btRaycastVehicle* vehicle = nullptr; ///< Its four wheels, all driven.
};

/// The bridge scene's car: a 1.4 × 0.3 × 0.8 m, 200 kg body on four raycast wheels (0.15 m radius, 0.25 m of
/// suspension, 10 cm down under its weight) touching the ground ±0.55 m along x and ±0.35 m along z from its centre
/// of mass, which is `inAt` (world) and rests 0.5 m above the ground. Right along z, up y, forward x; watched by the
/// `World` (`SampleWorld::AddRaycastVehicle`).
BridgeCar AddBridgeCar(SampleWorld& ioWorld, const btVector3& inAt);

/// What `AddBridgeScene` made.
struct BridgeScene
{
    btRigidBody* plank = nullptr;       ///< The deck, a deformable of the caller's asset.
    btRigidBody* chassis = nullptr;     ///< The car's body (`AddBridgeCar`).
    btRaycastVehicle* car = nullptr;    ///< Its four wheels, all driven; owned by the `SampleWorld`.
    std::vector<AttachmentId> pins;     ///< The deck's four bottom corners, held to the world.
    SurfacePoint middle;                ///< The deck's middle, on its top face.
    float deckHeight = 0.0f;            ///< The deck's top as made, m (world y): the abutments' tops too.
    float abutmentX = 0.0f;             ///< Where on each abutment the car turns back, m from the middle along x.
};

/// A raycast car (Bullet's btRaycastVehicle, watched by the `World`: its wheels press the deck) on a bridge of one
/// deformable plank of `inPlank` (a `BridgePlankMesh`, 60 kg) held by its four bottom corners between two static
/// abutments, above the ground plane y = 0 (added here). The car starts on the abutment at −x, facing +x; drive it
/// with `DriveBridgeCar`. Deterministic. Throws `bdt::Error` on a null asset.
BridgeScene AddBridgeScene(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inPlank);

/// Drives the bridge scene's car towards `inTargetX` (m, world x, along the bridge) at up to 2 m/s, slowing to a
/// stop over its last metre: the engine force on all four wheels follows the speed's error. Call before each step.
void DriveBridgeCar(const BridgeScene& inScene, float inTargetX);

} // namespace bdt
