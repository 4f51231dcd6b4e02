#pragma once

#include <bdt/core/Math.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// A smooth procedural displacement basis for any mesh: M Lipschitz-continuous fields over the mesh's
/// bounding box (the BD-Tree paper's Appendix A case), in this order: low-order polynomial fields (bends
/// and twists about each axis, then stretches and shears), then sinusoidal waves of growing wave number.
/// None is a rigid motion. Each field is scaled so that its largest vertex displacement is exactly 1
/// model unit, so q_j is the largest displacement of field j in model units.
///
/// Returns U in `ModelData::basis` layout (vertex-major, 3·N·M floats). Deterministic.
/// Throws `bdt::Error` if `inPositions` is empty or all points coincide while M > 0.
std::vector<float> MakeSmoothBasis(std::span<const Vec3f> inPositions, std::uint32_t inModes);

/// The first-order change of the area-weighted vertex normals per unit q_j for `inBasis` (same layout), for
/// shading deformed meshes: N_ij = d n_i / d q_j at q = 0, with n_i the unit normal.
std::vector<float> MakeNormalBasis(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                   std::span<const float> inBasis, std::uint32_t inModes);

} // namespace bdt
