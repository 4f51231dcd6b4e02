#pragma once

#include <bdt/core/base/Math.h>

#include <cstddef>
#include <string>
#include <vector>

namespace bdt
{

/// What `ImportMesh` did to the file's geometry.
struct ImportReport
{
    std::size_t parts = 0;              ///< Meshes merged (all nodes of the scene, transforms applied).
    std::size_t inputVertices = 0;      ///< Vertices in the file as Assimp gives them (OBJ, STL: per corner).
    std::size_t inputTriangles = 0;     ///< Triangles after triangulating polygons.
    std::size_t weldedVertices = 0;     ///< Vertices removed by welding duplicates.
    std::size_t droppedDegenerate = 0;  ///< Triangles dropped: repeated vertex or zero area after welding.
    std::size_t droppedNonTriangles = 0; ///< Points and lines dropped.
};

/// A mesh as imported: one merged, welded, triangle-only surface.
struct ImportedMesh
{
    std::vector<Vec3f> positions;
    std::vector<Triangle> triangles;
    ImportReport report;
};

/// Options of `ImportMesh`. Tuning: docs/TUNING.md#importsettings.
struct ImportSettings
{
    /// Vertices closer than this fraction of the bounding-box diagonal are welded into one.
    double weldTolerance = 1e-6;
    /// Run Assimp in a child process (`fork`) with memory and CPU limits scaled to the file, so its crashes,
    /// hangs and huge allocations become a `bdt::Error`. Costs a fork and a pipe. Off: in-process, no limits.
    bool isolateReader = true;
    /// With `isolateReader`, a reader still running after this many seconds is killed and reported.
    double readerTimeoutSeconds = 600.0;
};

/// Imports any format Assimp reads (OBJ, PLY, STL, OFF, glTF, ...): merges the scene's meshes with their node
/// transforms, welds vertices, drops degenerate faces, non-triangles and unused vertices (order: first use).
/// Throws `bdt::Error` (without the file name) for a missing, unreadable, malformed or empty file, no triangle
/// left, non-finite coordinates, or OFF counts or PLY headers that Assimp would read out of bounds.
ImportedMesh ImportMesh(const std::string& inPath, const ImportSettings& inSettings = {});

} // namespace bdt
