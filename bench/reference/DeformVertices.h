#pragma once

#include <bdt/core/model/Model.h>
#include <span>

namespace bdt::bench
{

/// Every deformed vertex p_i + Σ_j U_ij q_j of `inModel` (rest frame, model units), in float, as a
/// brute-force refit deforms the mesh before refitting its tree (and a vertex shader does for display).
/// `inQ` has M entries; `outVertices` has N. Cost 6·N·M flops, streaming p and U (12·N·(M+1) bytes).
void DeformVertices(const Model& inModel, std::span<const float> inQ, std::span<Vec3f> outVertices);

} // namespace bdt::bench
