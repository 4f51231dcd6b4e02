// bdt-bake: turns a mesh file or a built-in shape into a `.bdt` asset (model, displacement basis and
// BD-Tree).
//
//     bdt-bake MESH -o OUT.bdt [--basis smooth] [--modes M]
//     bdt-bake MESH -o OUT.bdt --basis modal [--modes M] [--resolution R] [--young E] [--poisson NU]
//                                            [--density RHO] [--damping ALPHA,BETA] [--scale S]
//     bdt-bake --shape chair [--triangles 18000] -o OUT.bdt [--modes M] [--basis ...]
//
// Informational output (import counts, progress, summary) goes to stderr; any failure prints exactly one line
// `error: <file>: <problem>` and exits with code 1.

#include "Progress.h"
#include "ToolSupport.h"

#include <bdt/bake/MeshImport.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/AssetFile.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/Error.h>
#include <bdt/core/ProceduralShapes.h>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numbers>
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
    // --basis modal only (as typed; empty: the default).
    std::string resolution; ///< Cells along the longest side.
    std::string young;      ///< E, Pa.
    std::string poisson;    ///< ν.
    std::string density;    ///< ρ, kg/m³.
    std::string damping;    ///< "alpha,beta", Rayleigh.
    std::string scale;      ///< Mesh units to metres.
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
                     "Displacement basis: smooth (procedural fields) or modal (vibration modes of the solid; "
                     "animation: not yet)");
    ioApp.add_option("--modes", outOptions.modes, "Number of displacement fields M, 0 to 1000 (default 10)")
        ->type_name("INT");
    ioApp.add_option("--leaf-triangles", outOptions.leafTriangles,
                     "Triangles per tree leaf (default 1, the paper's)");
    ioApp.add_option("--resolution", outOptions.resolution,
                     "modal: lattice cells along the longest side (default: about 8000 solid cells, so thin "
                     "parts get several cells across; 16 to 160)")
        ->type_name("INT");
    ioApp.add_option("--young", outOptions.young, "modal: Young's modulus E in Pa (default 1e6, stiff rubber)")
        ->type_name("PA");
    ioApp.add_option("--poisson", outOptions.poisson, "modal: Poisson's ratio, in (-1, 0.5) (default 0.4)")
        ->type_name("NU");
    ioApp.add_option("--density", outOptions.density, "modal: density in kg/m^3 (default 1000)")
        ->type_name("RHO");
    ioApp.add_option("--damping", outOptions.damping,
                     "modal: Rayleigh damping alpha,beta: zeta_j = alpha/(2 omega_j) + beta omega_j/2 "
                     "(default 0,0: the runtime's default ratio)")
        ->type_name("ALPHA,BETA");
    ioApp.add_option("--scale", outOptions.scale, "modal: metres per mesh unit (default 1)")->type_name("S");
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

/// `inText` as a finite real number; throws `ToolError` naming `inOption` otherwise.
double ParseReal(const std::string& inText, const char* inOption)
{
    double value = 0.0;
    const char* end = inText.data() + inText.size();
    const auto [stop, error] = std::from_chars(inText.data(), end, value);
    if (inText.empty() || error != std::errc() || stop != end || !std::isfinite(value))
        throw ToolError(cTool, std::string(inOption) + " must be a number, got '" + inText + "'");
    return value;
}

/// The modal bake's settings from the command line (defaults where an option is absent). Checks only the
/// syntax; the ranges are the library's (`ComputeLatticeModes`), reported as one line.
ModalBakeSettings ModalSettings(const BakeOptions& inOptions, std::uint32_t inModes)
{
    ModalBakeSettings settings;
    settings.modes = inModes;
    if (!inOptions.resolution.empty())
        settings.resolution = std::uint32_t(ParseInteger(inOptions.resolution, "--resolution", 1, 4096));
    if (!inOptions.young.empty())
        settings.material.young = ParseReal(inOptions.young, "--young");
    if (!inOptions.poisson.empty())
        settings.material.poisson = ParseReal(inOptions.poisson, "--poisson");
    if (!inOptions.density.empty())
        settings.material.density = ParseReal(inOptions.density, "--density");
    if (!inOptions.scale.empty())
        settings.scale = ParseReal(inOptions.scale, "--scale");
    if (!inOptions.damping.empty())
    {
        const std::size_t comma = inOptions.damping.find(',');
        if (comma == std::string::npos)
            throw ToolError(cTool, "--damping must be ALPHA,BETA, got '" + inOptions.damping + "'");
        settings.rayleighAlpha = ParseReal(inOptions.damping.substr(0, comma), "--damping alpha");
        settings.rayleighBeta = ParseReal(inOptions.damping.substr(comma + 1), "--damping beta");
    }
    return settings;
}

/// Checks the arguments that need no file; throws `ToolError` naming the tool.
void ValidateOptions(const BakeOptions& inOptions)
{
    if (inOptions.mesh.empty() == inOptions.shape.empty())
        throw ToolError(cTool, "give either a MESH file or --shape NAME (exactly one)");
    if (inOptions.output.empty())
        throw ToolError(cTool, "no output file: give -o OUT.bdt");
    if (inOptions.basis != "smooth" && inOptions.basis != "modal")
        throw ToolError(cTool, "--basis '" + inOptions.basis +
                                   "' is not supported ('smooth' or 'modal'; 'animation' is not implemented yet)");
    const std::int64_t modes = ParseInteger(inOptions.modes, "--modes", 0, cMaxModes);
    const bool modalOptions = !inOptions.resolution.empty() || !inOptions.young.empty() ||
                              !inOptions.poisson.empty() || !inOptions.density.empty() ||
                              !inOptions.damping.empty() || !inOptions.scale.empty();
    if (inOptions.basis != "modal" && modalOptions)
        throw ToolError(cTool, "--resolution, --young, --poisson, --density, --damping and --scale apply only "
                               "to --basis modal");
    if (inOptions.basis == "modal")
    {
        if (modes == 0)
            throw ToolError(cTool, "--basis modal needs --modes 1 or more");
        // Syntax and ranges now, before any file is read: a bad value is one line and exit 1.
        ModalBakeSettings settings = ModalSettings(inOptions, std::uint32_t(modes));
        try
        {
            CheckModalBakeSettings(settings);
        }
        catch (const Error& error)
        {
            throw ToolError(cTool, error.what());
        }
    }
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

/// The model with its basis (smooth or modal) and its normal basis. Input problems are attributed to
/// `inSource`. A modal bake reports its stages on `ioProgress` and what it found in `outSummary`.
Model MakeModel(const BakeOptions& inOptions, Geometry& ioGeometry, std::uint32_t inModes,
                const std::string& inSource, Progress& ioProgress, std::string& outSummary)
{
    try
    {
        if (inOptions.basis == "smooth")
        {
            outSummary = "smooth basis: " + std::to_string(inModes) + " modes";
            return MakeSmoothModel(std::move(ioGeometry.positions), std::move(ioGeometry.triangles), inModes);
        }
        const ModalBakeSettings settings = ModalSettings(inOptions, inModes);
        LatticeModes modes;
        Model model = MakeModalModel(std::move(ioGeometry.positions), std::move(ioGeometry.triangles), settings,
                                     [&](const char* inStage, double inFraction)
                                     { ioProgress.Update(inStage, inFraction); },
                                     &modes);
        ioProgress.Finish();
        char line[256];
        std::snprintf(line, sizeof(line),
                      "modal basis: %u modes, lattice %u x %u x %u cells of %.4g m, %zu solid (%zu nodes)%s%s, "
                      "%.4g kg; frequencies %.4g to %.4g Hz",
                      inModes, modes.grid.cells[0], modes.grid.cells[1], modes.grid.cells[2],
                      modes.grid.cellSize * settings.scale, modes.grid.SolidCount(), modes.nodes,
                      modes.voxels.shellFallback ? ", shell added (sheet or thin parts)" : "",
                      modes.voxels.droppedCells > 0 ? ", loose pieces dropped" : "", modes.totalMass,
                      std::sqrt(modes.eigenvalues.front()) / (2.0 * std::numbers::pi),
                      std::sqrt(modes.eigenvalues.back()) / (2.0 * std::numbers::pi));
        outSummary = line;
        return model;
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
    Progress progress(cTool);
    std::string summary;
    const Model model = MakeModel(inOptions, geometry, modes, fromMesh ? inOptions.mesh : cTool, progress, summary);
    Note(cTool, report);
    Note(cTool, summary + ", " + std::to_string(model.DegenerateTriangleCount()) + " degenerate triangles kept (" +
                    Elapsed(start) + " so far)");

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
