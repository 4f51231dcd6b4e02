#pragma once

#include <bdt/adapter/SampleWorld.h>
#include <cstdint>
#include <memory>
#include <vector>

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
    BodyDesc body;               ///< Mass, scale, proxy level, material; the transform is set per body.
};

/// Where `AddPile` places the bodies, in creation order: the world transforms of their principal frames (centre
/// of mass, principal axes: Bullet's transforms of the bodies; `MeshFromPrincipal` gives the `BodyDesc::transform`)
/// for bodies of `inAsset`, without creating them (to build the same pile from other shapes). Deterministic for a given seed. Throws `bdt::Error` on impossible settings. Cost O(count).
std::vector<btTransform> PileTransforms(const DeformableAsset& inAsset, const PileSettings& inSettings);

/// Adds `inSettings.count` bodies of `inAsset` to `ioWorld` in a block above the ground plane y = 0 (add the
/// ground yourself), placed by `PileTransforms`, and returns them in creation order. Deterministic for a
/// given seed. Throws `bdt::Error` on impossible settings (zero layers, spacing ≤ 0) or a null asset.
std::vector<btRigidBody*> AddPile(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset,
                                  const PileSettings& inSettings);

} // namespace bdt
