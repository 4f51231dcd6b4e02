#pragma once

#include <bdt/core/Math.h>
#include <bdt/core/Model.h>

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
/// The fields are functions of (p − c) / h, c the bounding-box centre and h half the largest extent (one
/// scale for all axes, so flat meshes such as the curtain need no special case). Each candidate field has
/// its least-squares rigid part over the vertices (t + ω × p) removed, so every field is orthogonal to the
/// rigid motions; candidates that vanish on the vertices, are (nearly) rigid there, or are nearly dependent
/// on the fields already taken are skipped, and as many waves (axis, face and body diagonal directions, sine
/// and cosine phase) are generated as M needs. Lipschitz constant of field j: a small multiple of its wave
/// number over the largest extent (measured: 6 to 20 / extent for M ≤ 60, up to 50 / extent for M = 200).
/// Only when the mesh has fewer than about M + 6 independent vertex degrees of freedom do later fields
/// depend on earlier ones.
///
/// Returns U in `ModelData::basis` layout (vertex-major, 3·N·M floats). Deterministic. Cost O(N·M) plus
/// O(min(N, 1024)·M²) for the independence tests (about 1 s for N = 9000, M = 200).
/// Throws `bdt::Error` if `inPositions` is empty, has a non-finite point, or all points coincide while M > 0.
std::vector<float> MakeSmoothBasis(std::span<const Vec3f> inPositions, std::uint32_t inModes);

/// The first-order change of the area-weighted vertex normals per unit q_j for `inBasis` (same layout), for
/// shading deformed meshes: N_ij = d n_i / d q_j at q = 0, with n_i the unit normal. Computed analytically
/// (the derivative of the normalised sum of triangle cross products), in double; zero at vertices with no
/// triangle area. Cost O(T·M). Throws `bdt::Error` if `inBasis` is not 3·N·M long or an index is out of
/// range.
std::vector<float> MakeNormalBasis(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                   std::span<const float> inBasis, std::uint32_t inModes);

/// A model of the mesh `inPositions`/`inTriangles` (moved in) with M smooth fields (`MakeSmoothBasis`) and
/// their normal basis (`MakeNormalBasis`): what `bdt-bake --basis smooth`, the demo, the benchmarks and the
/// tests build. Throws `bdt::Error` as those functions and `Model::Create` do. Cost O(N·M + T·M).
Model MakeSmoothModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles, std::uint32_t inModes);

} // namespace bdt
