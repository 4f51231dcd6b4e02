#pragma once

#include <bdt/core/base/Math.h>
#include <bdt/core/model/Model.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// M smooth (Lipschitz) fields over the mesh's box (Appendix A), in `ModelData::basis` layout: bends, twists,
/// stretches, shears, then waves; none rigid, each scaled to a largest vertex displacement of 1 model unit.
/// Deterministic; O(N·M + min(N, 1024)·M²). Throws `bdt::Error` for no, non-finite or coincident points.
std::vector<float> MakeSmoothBasis(std::span<const Vec3f> inPositions, std::uint32_t inModes);

/// The normal basis N_ij = d n_i / d q_j at q = 0 of `inBasis` (same layout; n_i the area-weighted unit normal,
/// 0 where no area), for shading. O(T·M). Throws `bdt::Error` for a wrong size or an index out of range.
std::vector<float> MakeNormalBasis(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                   std::span<const float> inBasis, std::uint32_t inModes);

/// The mesh (moved in) as a model with `MakeSmoothBasis` and `MakeNormalBasis`, throwing as they do.
Model MakeSmoothModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles, std::uint32_t inModes);

} // namespace bdt
