#pragma once

#include <bdt/core/Math.h>

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

/// Options of `ImportMesh`.
struct ImportSettings
{
    /// Vertices closer than this fraction of the bounding-box diagonal are welded into one.
    double weldTolerance = 1e-6;
    /// Read the file with Assimp in a child process (`fork`), so that a crash, an abort or a hang of Assimp on
    /// a malformed file becomes a `bdt::Error` ("the reader crashed (SIGSEGV)") instead of taking the caller
    /// down. Assimp is not hardened against hostile files: the fuzzer found out-of-bounds reads and aborts in
    /// its PLY reader (docs/ROBUSTNESS.md). The child also has limits scaled to the file's size, so that a file
    /// whose counts make Assimp allocate gigabytes fails at once ("the reader ran out of its memory limit"):
    /// 512 MiB of address space beyond its own plus 64 bytes per byte of file (not applied in sanitizer
    /// builds), and 10 CPU seconds plus one per MiB. Costs a fork and a copy of the geometry through a pipe,
    /// small beside the import itself. Off: Assimp runs in the calling process, without limits.
    bool isolateReader = true;
    /// With `isolateReader`, a reader still running after this many seconds is killed and reported.
    double readerTimeoutSeconds = 600.0;
};

/// Imports OBJ, PLY, STL, OFF, glTF and any other format Assimp reads: merges every mesh of the scene with
/// its node transform, welds duplicate vertices, drops degenerate faces and non-triangles. Throws
/// `bdt::Error` with a one-line message (without the file name) when the file is missing, unreadable,
/// malformed, empty, or has no triangle left, or has non-finite coordinates. OFF headers whose counts exceed
/// what the file can hold are rejected before Assimp reads them (its reader would allocate that many faces).
/// Unused vertices are dropped; the output's vertex order is first use by the kept triangles. PLY headers must be
/// well formed (a `ply` line, text lines, known property types, x, y and z, `end_header`, a binary body at least
/// as long as its elements need): Assimp's PLY reader reads out of bounds otherwise. Header lines of unknown
/// keywords are skipped, as Assimp skips them (Blender 2.4 wrote `Created by ...`).
ImportedMesh ImportMesh(const std::string& inPath, const ImportSettings& inSettings = {});

} // namespace bdt
