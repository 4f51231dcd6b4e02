#pragma once

#include <bdt/core/base/Math.h>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace bdt
{

/// Built-in shapes for tests, the demo and benchmarks. Sizes in metres, y up: chair 0.45 m wide and deep,
/// 0.9 m tall (six closed boxes that overlap where they join); curtain 2 m (x) by 2.5 m (y) with 3 cm folds
/// in z, counter-clockwise seen from +z; beam 2.0 × 0.2 × 0.2 along x; box of side 1; cube-sphere of radius
/// 0.5; torus about y with radii 0.5 and 0.15; pawn 0.96 tall; slab 1.0 × 0.1 × 1.0 (x, y, z).
enum class EShape : std::uint8_t
{
    Chair,   ///< A plastic chair: seat, back and four legs (the paper's Table 1 chair has 17914 faces).
    Curtain, ///< A hanging cloth, a single-sided grid (the paper's own: `bdt-bench`'s `MakePaperCurtain`).
    Beam,    ///< A slender box, length 10× its height.
    Box,     ///< A subdivided cube.
    Sphere,  ///< A subdivided sphere.
    Torus,   ///< A ring torus.
    Pawn,    ///< A chess pawn, a surface of revolution.
    Slab,    ///< A 1 × 0.1 × 1 m plate, its faces evenly subdivided into about square cells.
};

/// A triangle mesh in metres, centred near the origin, y up.
struct ShapeMesh
{
    std::vector<Vec3f> positions;
    std::vector<Triangle> triangles;
};

/// An axis-aligned box of a shape built from boxes: centre and full size, metres, in the shape's frame.
struct BoxPart
{
    Vec3d center;
    Vec3d size;
};

/// The six boxes (seat, back, four legs) that `MakeShape(EShape::Chair, ...)` meshes, in the mesh's frame:
/// what a rigid-body user would model the same chair with (a compound of boxes). Cost O(1).
std::vector<BoxPart> ChairParts();

/// The shape called `inName` ("chair", "curtain", ...), case-sensitive lower case; nullopt if unknown.
std::optional<EShape> ShapeFromName(std::string_view inName);
/// Lower-case name of `inShape`.
const char* ShapeName(EShape inShape);
/// Every shape, for loops in tests and the demo.
std::vector<EShape> AllShapes();

/// Makes `inShape` with a triangle count close to `inTargetTriangles` (within 15% for targets of at least
/// 200; small targets are raised to the shape's minimum). Closed shapes are watertight, with shared
/// vertices and outward counter-clockwise triangles; the curtain is an open grid. Cost O(triangles).
/// Throws `bdt::Error` for a target above 50 million.
ShapeMesh MakeShape(EShape inShape, std::uint32_t inTargetTriangles);

} // namespace bdt
