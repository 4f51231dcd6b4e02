// bdt-bake: turns a mesh file or a built-in shape into a `.bdt` asset (model, displacement basis and
// BD-Tree).
//
//     bdt-bake MESH -o OUT.bdt [--basis smooth] [--modes M]
//     bdt-bake --shape chair [--triangles 18000] -o OUT.bdt [--modes M]
//
// Informational output (import counts, progress, summary) goes to stderr; any failure prints exactly one line
// `error: <file>: <problem>` and exits with code 1.

#include "Progress.h"
#include "ToolSupport.h"

#include <bdt/bake/MeshImport.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/AssetFile.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/Error.h>
#include <bdt/core/ProceduralShapes.h>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace bdt::tools
{
namespace
{

const std::string cTool = "bdt-bake";
constexpr std::int64_t cMaxModes = 1000;
constexpr std::int64_t cMaxShapeTriangles = 50'000'000;

/// Command line of one bake.
struct BakeOptions
{
    std::string mesh;                ///< Mesh file to import (empty when baking a shape).
    std::string shape;               ///< Built-in shape name (empty when importing a mesh).
    std::string triangles;           ///< Target triangle count of the shape, as typed (empty: 18000).
    std::string output;              ///< The `.bdt` file to write.
    std::string basis = "smooth";    ///< Displacement basis kind.
    std::string modes = "10";        ///< M, the number of displacement fields, as typed.
    std::uint32_t leafTriangles = 1; ///< Triangles per leaf of the tree.
};

/// Geometry to bake, with a line describing where it came from.
struct Geometry
{
    std::vector<Vec3f> positions;
    std::vector<Triangle> triangles;
    std::string report;
};

void AddOptions(CLI::App& ioApp, BakeOptions& outOptions)
{
    ioApp.add_option("mesh", outOptions.mesh,
                     "Mesh file to import (OBJ, PLY, STL, OFF, glTF, ... via Assimp)");
    ioApp.add_option("--shape", outOptions.shape,
                     "Bake a built-in shape instead of a mesh file (chair, curtain, ...)");
    ioApp.add_option("--triangles", outOptions.triangles, "Target triangle count of --shape (default 18000)")
        ->type_name("INT");
    ioApp.add_option("-o,--output", outOptions.output, "The .bdt asset to write (required)");
    ioApp.add_option("--basis", outOptions.basis,
                     "Displacement basis: smooth (modal and animation: not yet)");
    ioApp.add_option("--modes", outOptions.modes, "Number of displacement fields M, 0 to 1000 (default 10)")
        ->type_name("INT");
    ioApp.add_option("--leaf-triangles", outOptions.leafTriangles,
                     "Triangles per tree leaf (default 1, the paper's)");
}

/// `inText` as an integer in [inMin, inMax]; throws `ToolError` naming `inOption` otherwise.
std::int64_t ParseInteger(const std::string& inText, const char* inOption, std::int64_t inMin,
                          std::int64_t inMax)
{
    std::int64_t value = 0;
    const char* end = inText.data() + inText.size();
    const auto [stop, error] = std::from_chars(inText.data(), end, value);
    if (inText.empty() || error != std::errc() || stop != end || value < inMin || value > inMax)
        throw ToolError(cTool, std::string(inOption) + " must be an integer from " + std::to_string(inMin) +
                                   " to " + std::to_string(inMax) + ", got '" + inText + "'");
    return value;
}

/// Checks the arguments that need no file; throws `ToolError` naming the tool.
void ValidateOptions(const BakeOptions& inOptions)
{
    if (inOptions.mesh.empty() == inOptions.shape.empty())
        throw ToolError(cTool, "give either a MESH file or --shape NAME (exactly one)");
    if (inOptions.output.empty())
        throw ToolError(cTool, "no output file: give -o OUT.bdt");
    if (inOptions.basis != "smooth")
        throw ToolError(
            cTool, "--basis '" + inOptions.basis +
                       "' is not supported (only 'smooth'; 'modal' and 'animation' are not implemented yet)");
    ParseInteger(inOptions.modes, "--modes", 0, cMaxModes);
    if (inOptions.leafTriangles == 0)
        throw ToolError(cTool, "--leaf-triangles must be at least 1");
    if (!inOptions.mesh.empty() && !inOptions.triangles.empty())
        throw ToolError(cTool, "--triangles applies only to --shape");
    if (!inOptions.triangles.empty())
        ParseInteger(inOptions.triangles, "--triangles", 1, cMaxShapeTriangles);
    if (!inOptions.shape.empty() && !ShapeFromName(inOptions.shape))
    {
        std::string known;
        for (EShape shape : AllShapes())
            known += (known.empty() ? "" : ", ") + std::string(ShapeName(shape));
        throw ToolError(cTool, "unknown shape '" + inOptions.shape + "' (known: " + known + ")");
    }
}

/// Fails early, before any work, when the output cannot be created; leaves no file behind.
void CheckOutputWritable(const std::string& inPath)
{
    std::error_code error;
    if (std::filesystem::is_directory(inPath, error))
        throw ToolError(inPath, "is a directory, cannot write the asset there");
    const bool existed = std::filesystem::exists(inPath, error);
    std::FILE* file = std::fopen(inPath.c_str(), "ab");
    if (file == nullptr)
        throw ToolError(inPath, "cannot open for writing (" + std::string(std::strerror(errno)) + ")");
    std::fclose(file);
    if (!existed)
        std::filesystem::remove(inPath, error);
}

Geometry ImportGeometry(const std::string& inPath)
{
    ImportedMesh mesh;
    try
    {
        mesh = ImportMesh(inPath);
    }
    catch (const Error& error)
    {
        throw ToolError(inPath, error.what());
    }
    const ImportReport& r = mesh.report;
    Geometry geometry{std::move(mesh.positions), std::move(mesh.triangles), {}};
    geometry.report = inPath + ": " + std::to_string(r.parts) + " parts, " + std::to_string(r.inputVertices) +
                      " vertices (" + std::to_string(r.weldedVertices) + " welded, " +
                      std::to_string(geometry.positions.size()) + " kept), " +
                      std::to_string(r.inputTriangles) + " triangles (" +
                      std::to_string(r.droppedDegenerate) + " degenerate dropped, " +
                      std::to_string(geometry.triangles.size()) + " kept), " +
                      std::to_string(r.droppedNonTriangles) + " points/lines dropped";
    return geometry;
}

Geometry ShapeGeometry(const BakeOptions& inOptions)
{
    const EShape shape = *ShapeFromName(inOptions.shape);
    const auto target = static_cast<std::uint32_t>(
        inOptions.triangles.empty()
            ? 18000
            : ParseInteger(inOptions.triangles, "--triangles", 1, cMaxShapeTriangles));
    ShapeMesh mesh = MakeShape(shape, target);
    Geometry geometry{std::move(mesh.positions), std::move(mesh.triangles), {}};
    geometry.report = "shape " + inOptions.shape + ": " + std::to_string(geometry.positions.size()) +
                      " vertices, " + std::to_string(geometry.triangles.size()) + " triangles (target " +
                      std::to_string(target) + ")";
    return geometry;
}

/// The model with a smooth basis and its normal basis. Input problems are attributed to `inSource`.
Model MakeModel(Geometry& ioGeometry, std::uint32_t inModes, const std::string& inSource)
{
    try
    {
        return MakeSmoothModel(std::move(ioGeometry.positions), std::move(ioGeometry.triangles), inModes);
    }
    catch (const Error& error)
    {
        throw ToolError(inSource, error.what());
    }
}

/// Seconds since `inStart`, as "1.23 s".
std::string Elapsed(std::chrono::steady_clock::time_point inStart)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - inStart).count());
    return text;
}

int Bake(const BakeOptions& inOptions)
{
    ValidateOptions(inOptions);
    CheckOutputWritable(inOptions.output);
    const auto start = std::chrono::steady_clock::now();
    const bool fromMesh = !inOptions.mesh.empty();
    Geometry geometry = fromMesh ? ImportGeometry(inOptions.mesh) : ShapeGeometry(inOptions);
    const auto modes = static_cast<std::uint32_t>(ParseInteger(inOptions.modes, "--modes", 0, cMaxModes));
    // Everything that can reject the input happens before the first informational line, so a failing bake
    // prints its one error line and nothing else.
    const std::string report = geometry.report;
    const Model model = MakeModel(geometry, modes, fromMesh ? inOptions.mesh : cTool);
    Note(cTool, report);
    Note(cTool, "smooth basis: " + std::to_string(modes) + " modes, " +
                    std::to_string(model.DegenerateTriangleCount()) + " degenerate triangles kept (" +
                    Elapsed(start) + " so far)");

    Progress progress(cTool);
    BDTreeSettings settings;
    settings.maxLeafTriangles = inOptions.leafTriangles;
    const BDTree tree =
        BDTree::Build(model, settings,
                      [&](const char* inStage, double inFraction) { progress.Update(inStage, inFraction); });
    progress.Finish();
    try
    {
        SaveAsset(tree, inOptions.output);
    }
    catch (const Error& error)
    {
        throw ToolError(inOptions.output, error.what());
    }
    const auto bytes = std::filesystem::file_size(inOptions.output);
    Note(cTool, "wrote " + inOptions.output + ": " + std::to_string(model.VertexCount()) + " vertices, " +
                    std::to_string(model.TriangleCount()) + " triangles, " + std::to_string(modes) +
                    " modes, " + std::to_string(tree.NodeCount()) + " nodes, " +
                    std::to_string(tree.LevelCount()) + " levels, " + std::to_string(bytes) + " bytes in " +
                    Elapsed(start));
    return 0;
}

} // namespace
} // namespace bdt::tools

int main(int argc, char** argv)
{
    using namespace bdt::tools;
    return RunTool(
        cTool,
        [&]
        {
            CLI::App app{"Bakes a mesh or a built-in shape into a .bdt asset (model, basis, BD-Tree)", cTool};
            BakeOptions options;
            AddOptions(app, options);
            if (!ParseCommandLine(app, argc, argv))
                return 0;
            return Bake(options);
        });
}
