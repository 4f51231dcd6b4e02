// bdt-bake: turns a mesh file or a built-in shape into a `.bdt` asset (model, displacement basis and
// BD-Tree).
//
//     bdt-bake MESH -o OUT.bdt [--basis smooth] [--modes M]
//     bdt-bake MESH -o OUT.bdt --basis modal [--modes M] [--resolution R] [--young E] [--poisson NU]
//                                            [--density RHO] [--damping ALPHA,BETA] [--scale S]
//     bdt-bake [MESH] --tets FILE.node|FILE.vtk -o OUT.bdt --basis modal [...]   (volumetric model given)
//     bdt-bake ... --basis modal --export-bullet DIR     (also write Bullet's reduced deformable files)
//     bdt-bake --import-bullet DIR -o OUT.bdt [--modes M] [--damping ALPHA,BETA]
//     bdt-bake FRAME0.obj FRAME1.obj ... -o OUT.bdt --basis animation [--modes M]
//     bdt-bake --shape chair [--triangles 18000] -o OUT.bdt [--modes M] [--basis ...]
//
// Informational output (import counts, progress, summary) goes to stderr; any failure prints exactly one line
// `error: <file>: <problem>` and exits with code 1.

#include "Progress.h"
#include "ToolSupport.h"

#include <CLI/CLI.hpp>
#include <bdt/bake/AnimationBasis.h>
#include <bdt/bake/BulletReducedFiles.h>
#include <bdt/bake/MeshImport.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bake/TetModalBasis.h>
#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numbers>
#include <optional>
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
    std::vector<std::string> meshes; ///< Mesh file to import; the frames of `--basis animation`.
    std::string shape;               ///< Built-in shape name (empty when importing a mesh).
    std::string triangles;           ///< Target triangle count of the shape, as typed (empty: 18000).
    std::string size;                ///< --size X,Y,Z: the shape's bounding box, metres, as typed (empty: its own).
    std::string output;              ///< The `.bdt` file to write.
    std::string basis;               ///< Displacement basis kind, as typed (empty: smooth).
    std::string modes;               ///< M, the number of displacement fields, as typed (empty: 10).
    std::string tets;                ///< --tets: the volumetric model of a modal bake.
    std::string exportBullet;        ///< --export-bullet: folder for Bullet's reduced deformable files.
    std::string importBullet;        ///< --import-bullet: folder of Bullet's reduced deformable files.
    std::uint32_t leafTriangles = 1; ///< Triangles per leaf of the tree.
    // --basis modal only (as typed; empty: the default).
    std::string resolution; ///< Cells along the longest side.
    std::string young;      ///< E, Pa.
    std::string poisson;    ///< ν.
    std::string density;    ///< ρ, kg/m³.
    std::string damping;    ///< "alpha,beta", Rayleigh.
    std::string scale;      ///< Mesh units to metres.
    bool reproducible = false; ///< `EFactorisation::Reproducible` instead of the fast default.
};

/// Geometry to bake, with a line describing where it came from.
struct Geometry
{
    std::vector<Vec3f> positions;
    std::vector<Triangle> triangles;
    std::string report;
};

/// What each built-in shape is, for --help (its size is measured from the shape itself).
const char* ShapeBlurb(EShape inShape)
{
    switch (inShape)
    {
    case EShape::Chair: return "a plastic chair: seat, back, four legs";
    case EShape::Curtain: return "a hanging cloth, one-sided grid";
    case EShape::Beam: return "a slender box, 10 times as long as high";
    case EShape::Box: return "a subdivided cube (--size makes any box)";
    case EShape::Sphere: return "a subdivided sphere";
    case EShape::Torus: return "a ring torus";
    case EShape::Pawn: return "a chess pawn, a surface of revolution";
    case EShape::Slab: return "a plate, square cells";
    }
    return "";
}

/// The axis-aligned size of a mesh, its units.
Vec3d BoundingSize(std::span<const Vec3f> inPositions)
{
    Vec3d low = Vec3d::Constant(1e300), high = Vec3d::Constant(-1e300);
    for (const Vec3f& p : inPositions)
    {
        low = low.cwiseMin(p.cast<double>());
        high = high.cwiseMax(p.cast<double>());
    }
    return inPositions.empty() ? Vec3d::Zero() : Vec3d(high - low);
}

/// --shape's help: every built-in shape with its size (x × y × z, metres, y up) and what it is.
std::string ShapeHelp()
{
    std::string help = "Bake a built-in shape instead of a mesh file (metres, y up; --size X,Y,Z rescales it):";
    for (const EShape shape : AllShapes())
    {
        const Vec3d size = BoundingSize(MakeShape(shape, 200).positions).cwiseMax(0.0).unaryExpr(
            [](double inValue) { return inValue < 1e-9 ? 0.0 : inValue; });
        char line[160];
        std::snprintf(line, sizeof(line), "\n  %-8s %.3g x %.3g x %.3g m, %s", ShapeName(shape), size.x(), size.y(),
                      size.z(), ShapeBlurb(shape));
        help += line;
    }
    return help;
}

void AddOptions(CLI::App& ioApp, BakeOptions& outOptions)
{
    ioApp.add_option(
        "mesh", outOptions.meshes,
        "Mesh file to import (OBJ, PLY, STL, OFF, glTF, ... via Assimp); with --basis animation, "
        "the frames in order");
    ioApp.add_option("--shape", outOptions.shape, ShapeHelp())->type_name("NAME");
    ioApp.add_option("--triangles", outOptions.triangles, "Target triangle count of --shape (default 18000)")
        ->type_name("INT");
    ioApp.add_option("--size", outOptions.size, "The bounding box of --shape, metres: e.g. --shape box --size 2,0.5,1")
        ->type_name("X,Y,Z");
    ioApp.add_option("-o,--output", outOptions.output, "The .bdt asset to write (required)");
    ioApp.add_option("--basis", outOptions.basis,
                     "Displacement basis: smooth (procedural fields, the default), modal (vibration modes of "
                     "the solid) or animation (principal components of the frames given as meshes)");
    ioApp
        .add_option(
            "--modes", outOptions.modes,
            "Number of displacement fields M, 0 to 1000 (default 10; --import-bullet: all in the files)")
        ->type_name("INT");
    ioApp
        .add_option(
            "--tets", outOptions.tets,
            "modal: the volumetric model as tetrahedra (TetGen FILE.node with FILE.ele, or legacy VTK "
            ".vtk) instead of voxels; the surface is MESH if given, else the tetrahedra's boundary")
        ->type_name("FILE");
    ioApp
        .add_option("--export-bullet", outOptions.exportBullet,
                    "modal: also write Bullet's btReducedDeformableBody files (modes.bin, eigenvalues.bin, "
                    "K_r_diag_mat.bin, M_diag_mat.bin, mesh.vtk) into DIR")
        ->type_name("DIR");
    ioApp
        .add_option("--import-bullet", outOptions.importBullet,
                    "Bake Bullet's reduced deformable files in DIR (surface: the tetrahedra's boundary)")
        ->type_name("DIR");
    ioApp.add_option("--leaf-triangles", outOptions.leafTriangles,
                     "Triangles per tree leaf (default 1, the paper's)");
    ioApp
        .add_option("--resolution", outOptions.resolution,
                    "modal: lattice cells along the longest side (default: about 8000 solid cells, so thin "
                    "parts get several cells across; 16 to 160)")
        ->type_name("INT");
    ioApp
        .add_option("--young", outOptions.young, "modal: Young's modulus E in Pa (default 1e6, stiff rubber)")
        ->type_name("PA");
    ioApp.add_option("--poisson", outOptions.poisson, "modal: Poisson's ratio, in (-1, 0.5) (default 0.4)")
        ->type_name("NU");
    ioApp.add_option("--density", outOptions.density, "modal: density in kg/m^3 (default 1000)")
        ->type_name("RHO");
    ioApp
        .add_option("--damping", outOptions.damping,
                    "modal: Rayleigh damping alpha,beta: zeta_j = alpha/(2 omega_j) + beta omega_j/2 "
                    "(default 0,0: the runtime's default ratio)")
        ->type_name("ALPHA,BETA");
    ioApp.add_option("--scale", outOptions.scale, "modal: metres per mesh unit (default 1)")->type_name("S");
    ioApp.add_flag("--reproducible", outOptions.reproducible,
                   "modal: the same .bdt bytes on every CPU (a factorisation without BLAS, several times "
                   "slower; by default the modes' rounding follows the CPU's BLAS kernels)");
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

/// --size X,Y,Z: three finite sizes > 0 (metres); throws `ToolError` otherwise.
Vec3d ParseSize(const std::string& inText)
{
    Vec3d size;
    std::size_t start = 0;
    for (int axis = 0; axis < 3; ++axis)
    {
        const std::size_t comma = inText.find(',', start);
        if ((axis < 2) != (comma != std::string::npos))
            throw ToolError(cTool, "--size must be X,Y,Z (three sizes in metres), got '" + inText + "'");
        size[axis] = ParseReal(inText.substr(start, comma == std::string::npos ? std::string::npos : comma - start),
                               "--size");
        if (!(size[axis] > 0.0) || size[axis] > 1e6)
            throw ToolError(cTool, "--size must be three sizes in (0, 1e6] metres, got '" + inText + "'");
        start = comma + 1;
    }
    return size;
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
    if (inOptions.reproducible)
        settings.factorisation = EFactorisation::Reproducible;
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

/// The basis kind: as typed, "bullet" for `--import-bullet`, "smooth" by default.
std::string BasisOf(const BakeOptions& inOptions)
{
    if (!inOptions.importBullet.empty())
        return "bullet";
    return inOptions.basis.empty() ? "smooth" : inOptions.basis;
}

/// M as typed; 10 by default, 0 ("all in the files") for `--import-bullet`.
std::uint32_t ModeCountOf(const BakeOptions& inOptions)
{
    if (inOptions.modes.empty())
        return inOptions.importBullet.empty() ? 10 : 0;
    return std::uint32_t(ParseInteger(inOptions.modes, "--modes", 0, cMaxModes));
}

/// Checks the arguments that need no file; throws `ToolError` naming the tool.
void ValidateOptions(const BakeOptions& inOptions)
{
    const std::string basis = BasisOf(inOptions);
    if (inOptions.output.empty())
        throw ToolError(cTool, "no output file: give -o OUT.bdt");
    if (basis != "smooth" && basis != "modal" && basis != "animation" && basis != "bullet")
        throw ToolError(cTool, "--basis '" + inOptions.basis +
                                   "' is not supported ('smooth', 'modal' or 'animation')");
    const std::uint32_t modes = ModeCountOf(inOptions);
    const bool modalOptions = !inOptions.resolution.empty() || !inOptions.young.empty() ||
                              !inOptions.poisson.empty() || !inOptions.density.empty() ||
                              !inOptions.scale.empty();
    if (basis == "bullet")
    {
        if (!inOptions.basis.empty() || !inOptions.meshes.empty() || !inOptions.shape.empty() ||
            !inOptions.tets.empty() || !inOptions.exportBullet.empty() || modalOptions)
            throw ToolError(cTool, "--import-bullet takes only -o, --modes, --damping and --leaf-triangles");
        if (!inOptions.damping.empty())
        {
            try
            {
                CheckModalBakeSettings(ModalSettings(inOptions, 1));
            }
            catch (const Error& error)
            {
                throw ToolError(cTool, error.what());
            }
        }
    }
    else if (basis == "animation")
    {
        if (inOptions.meshes.size() < 2 || !inOptions.shape.empty())
            throw ToolError(cTool,
                            "--basis animation needs two or more frame meshes (FRAME0.obj FRAME1.obj ...)");
        if (modes == 0)
            throw ToolError(cTool, "--basis animation needs --modes 1 or more");
    }
    else
    {
        const std::size_t sources = inOptions.meshes.size() + (inOptions.shape.empty() ? 0 : 1);
        if (sources > 1 || (sources == 0 && (basis != "modal" || inOptions.tets.empty())))
            throw ToolError(cTool, "give either a MESH file or --shape NAME (exactly one)");
    }
    if (basis != "modal" && (modalOptions || !inOptions.tets.empty() || !inOptions.exportBullet.empty() ||
                             (!inOptions.damping.empty() && basis != "bullet")))
        throw ToolError(cTool, "--resolution, --young, --poisson, --density, --damping, --scale, --tets and "
                               "--export-bullet apply only to --basis modal");
    if (basis == "modal")
    {
        if (modes == 0)
            throw ToolError(cTool, "--basis modal needs --modes 1 or more");
        if (!inOptions.tets.empty() && !inOptions.resolution.empty())
            throw ToolError(cTool, "--resolution is the voxel lattice's; it does not apply with --tets");
        // Syntax and ranges now, before any file is read: a bad value is one line and exit 1.
        ModalBakeSettings settings = ModalSettings(inOptions, modes);
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
    if (!inOptions.meshes.empty() && !inOptions.triangles.empty())
        throw ToolError(cTool, "--triangles applies only to --shape");
    if (!inOptions.size.empty() && inOptions.shape.empty())
        throw ToolError(cTool, "--size applies only to --shape");
    if (!inOptions.size.empty())
        ParseSize(inOptions.size);
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

/// A mesh file whose size suggests units other than metres (more than 50 across, or less than 1 cm): the runtime
/// takes model units as metres unless told (`BodySettings::scale`), and so does a modal bake's material unless given
/// --scale.
void WarnAboutUnits(const BakeOptions& inOptions, const Model& inModel)
{
    if (inOptions.meshes.empty() || !inOptions.scale.empty())
        return;
    const double across = BoundingSize(inModel.Positions()).maxCoeff();
    if (across <= 50.0 && across >= 0.01)
        return;
    char text[256];
    std::snprintf(text, sizeof(text),
                  "warning: the mesh is %.4g units across: if its units are not metres, give %sBodySettings::scale "
                  "(metres per unit, e.g. 0.01 for centimetres)",
                  across, inOptions.basis == "modal" ? "--scale and " : "");
    Note(cTool, text);
}

/// A modal basis whose lowest mode is slower than 1 Hz: a body that soft sags far under its own weight.
void WarnAboutSoftModes(const Model& inModel)
{
    double lowest = 0.0;
    for (const ModeInfo& mode : inModel.Modes())
        if (mode.frequency > 0.0f && (lowest == 0.0 || double(mode.frequency) < lowest))
            lowest = double(mode.frequency);
    const double hertz = lowest / (2.0 * std::numbers::pi);
    if (lowest == 0.0 || hertz >= 1.0)
        return;
    char text[256];
    std::snprintf(text, sizeof(text),
                  "warning: the lowest mode vibrates at %.3g Hz, below 1 Hz: the body is very soft (raise --young, "
                  "or check --scale and --density)",
                  hertz);
    Note(cTool, text);
}

/// Fails early, before any work, when the output cannot be created; leaves no file behind.
void CheckOutputWritable(const std::string& inPath)
{
    std::error_code error;
    if (std::filesystem::is_directory(inPath, error))
        throw ToolError(inPath, "is a directory, cannot write a file there");
    const bool existed = std::filesystem::exists(inPath, error);
    std::FILE* file = std::fopen(inPath.c_str(), "ab");
    if (file == nullptr)
        throw ToolError(inPath, "cannot open for writing (" + std::string(std::strerror(errno)) + ")");
    std::fclose(file);
    if (!existed)
        std::filesystem::remove(inPath, error);
}

/// Fails early, before any work, when `--export-bullet`'s folder cannot be created or written.
void CheckFolderWritable(const std::string& inPath)
{
    std::error_code error;
    std::filesystem::create_directories(inPath, error);
    if (!std::filesystem::is_directory(inPath, error))
        throw ToolError(inPath, "cannot create the folder");
    CheckOutputWritable((std::filesystem::path(inPath) / "modes.bin").string());
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
    if (!inOptions.size.empty())
    {
        // Stretched about its box's centre to the asked size, axis by axis.
        const Vec3d size = ParseSize(inOptions.size);
        const Vec3d own = BoundingSize(mesh.positions);
        Vec3d low = Vec3d::Constant(1e300);
        for (const Vec3f& p : mesh.positions)
            low = low.cwiseMin(p.cast<double>());
        const Vec3d centre = low + 0.5 * own;
        for (Vec3f& p : mesh.positions)
            for (int axis = 0; axis < 3; ++axis)
                p[axis] = float(centre[axis] + (double(p[axis]) - centre[axis]) *
                                                   (own[axis] > 0.0 ? size[axis] / own[axis] : 1.0));
    }
    Geometry geometry{std::move(mesh.positions), std::move(mesh.triangles), {}};
    geometry.report = "shape " + inOptions.shape + ": " + std::to_string(geometry.positions.size()) +
                      " vertices, " + std::to_string(geometry.triangles.size()) + " triangles (target " +
                      std::to_string(target) + ")";
    return geometry;
}

/// "lo to hi Hz" of ascending eigenvalues λ = ω².
std::string FrequencyRange(const std::vector<double>& inEigenvalues)
{
    char text[64];
    std::snprintf(text, sizeof(text), "%.4g to %.4g Hz",
                  std::sqrt(inEigenvalues.front()) / (2.0 * std::numbers::pi),
                  std::sqrt(inEigenvalues.back()) / (2.0 * std::numbers::pi));
    return text;
}

/// Writes Bullet's reduced deformable files when asked (`--export-bullet`); adds a note to `ioSummary`.
void ExportBullet(const BakeOptions& inOptions, const BulletReducedFiles& inFiles, std::string& ioSummary)
{
    try
    {
        SaveBulletReducedFiles(inFiles, inOptions.exportBullet);
    }
    catch (const Error& error)
    {
        throw ToolError(inOptions.exportBullet, error.what());
    }
    ioSummary += "; Bullet files in " + inOptions.exportBullet + " (" +
                 std::to_string(inFiles.mesh.positions.size()) + " nodes, " +
                 std::to_string(inFiles.mesh.tets.size()) + " tetrahedra)";
}

/// A modal model on the tetrahedra of `--tets`; the surface is the geometry if any, else their boundary.
Model MakeTetModel(const BakeOptions& inOptions, Geometry& ioGeometry, const ModalBakeSettings& inSettings,
                   Progress& ioProgress, std::string& outSummary)
{
    TetMesh mesh;
    try
    {
        mesh = LoadTetMesh(inOptions.tets);
    }
    catch (const Error& error)
    {
        throw ToolError(inOptions.tets, error.what());
    }
    TetModes modes;
    Model model = MakeTetModalModel(
        std::move(mesh), std::move(ioGeometry.positions), std::move(ioGeometry.triangles), inSettings,
        [&](const char* inStage, double inFraction) { ioProgress.Update(inStage, inFraction); }, &modes);
    ioProgress.Finish();
    char line[256];
    std::snprintf(line, sizeof(line),
                  "modal basis: %u modes, %zu tetrahedra, %zu nodes (%zu unused dropped), %.4g kg; ",
                  inSettings.modes, modes.mesh.tets.size(), modes.mesh.positions.size(), modes.unusedNodes,
                  modes.elasticity.totalMass);
    outSummary = line + ("frequencies " + FrequencyRange(modes.eigenvalues));
    if (!inOptions.exportBullet.empty())
        ExportBullet(inOptions, MakeBulletFiles(modes, inSettings.scale), outSummary);
    return model;
}

/// The model with its basis (smooth or modal) and its normal basis. Input problems are attributed to
/// `inSource`. A modal bake reports its stages on `ioProgress` and what it found in `outSummary`.
Model MakeModel(const BakeOptions& inOptions, Geometry& ioGeometry, std::uint32_t inModes,
                const std::string& inSource, Progress& ioProgress, std::string& outSummary)
{
    try
    {
        if (BasisOf(inOptions) == "smooth")
        {
            outSummary = "smooth basis: " + std::to_string(inModes) + " modes";
            return MakeSmoothModel(std::move(ioGeometry.positions), std::move(ioGeometry.triangles), inModes);
        }
        const ModalBakeSettings settings = ModalSettings(inOptions, inModes);
        if (!inOptions.tets.empty())
            return MakeTetModel(inOptions, ioGeometry, settings, ioProgress, outSummary);
        LatticeModes modes;
        Model model = MakeModalModel(
            std::move(ioGeometry.positions), std::move(ioGeometry.triangles), settings,
            [&](const char* inStage, double inFraction) { ioProgress.Update(inStage, inFraction); }, &modes);
        ioProgress.Finish();
        char line[256];
        std::snprintf(
            line, sizeof(line),
            "modal basis: %u modes, lattice %u x %u x %u cells of %.4g m, %zu solid (%zu nodes)%s%s, "
            "%.4g kg; ",
            inModes, modes.grid.cells[0], modes.grid.cells[1], modes.grid.cells[2],
            modes.grid.cellSize * settings.scale, modes.grid.SolidCount(), modes.nodes,
            modes.voxels.shellFallback ? ", shell added (sheet or thin parts)" : "",
            modes.voxels.droppedCells > 0 ? ", loose pieces dropped" : "", modes.totalMass);
        outSummary = line + ("frequencies " + FrequencyRange(modes.eigenvalues));
        if (!inOptions.exportBullet.empty())
            ExportBullet(inOptions, MakeBulletFiles(modes, settings.scale), outSummary);
        return model;
    }
    catch (const Error& error)
    {
        throw ToolError(inSource, error.what());
    }
}

/// `--basis animation`: the frames imported, checked for one topology, and their principal components.
Model MakeAnimationModel(const BakeOptions& inOptions, std::uint32_t inModes, Progress& ioProgress,
                         std::string& outReport, std::string& outSummary)
{
    std::vector<std::vector<Vec3f>> frames;
    std::vector<Triangle> triangles;
    for (std::size_t f = 0; f < inOptions.meshes.size(); ++f)
    {
        Geometry frame = ImportGeometry(inOptions.meshes[f]);
        if (f == 0)
        {
            triangles = std::move(frame.triangles);
            outReport = frame.report;
        }
        else if (frame.triangles != triangles || frame.positions.size() != frames[0].size())
            throw ToolError(inOptions.meshes[f],
                            "frame " + std::to_string(f) + " has " + std::to_string(frame.positions.size()) +
                                " vertices and " + std::to_string(frame.triangles.size()) +
                                " triangles, not the topology of frame 0 (" +
                                std::to_string(frames[0].size()) + " vertices, " +
                                std::to_string(triangles.size()) + " triangles)");
        frames.push_back(std::move(frame.positions));
    }
    try
    {
        AnimationBasis pca = ComputeAnimationBasis(frames, inModes,
                                                   [&](const char* inStage, double inFraction)
                                                   { ioProgress.Update(inStage, inFraction); });
        ioProgress.Finish();
        Eigen::AlignedBox3f box;
        for (const Vec3f& p : pca.rest)
            box.extend(p);
        char line[256];
        std::snprintf(
            line, sizeof(line),
            "animation basis: %u modes of %zu frames, %.6g%% of the variance kept; reconstruction error "
            "max %.4g, rms %.4g model units (%.3g%% and %.3g%% of the bounding-box diagonal)",
            inModes, frames.size(), 100.0 * pca.energyKept, pca.maxError, pca.rmsError,
            100.0 * pca.maxError / box.diagonal().norm(), 100.0 * pca.rmsError / box.diagonal().norm());
        outSummary = line;
        ModelData data;
        data.modeCount = inModes;
        data.normalBasis = MakeNormalBasis(pca.rest, triangles, pca.basis, inModes);
        data.basis = std::move(pca.basis);
        data.animation = std::move(pca.track);
        data.positions = std::move(pca.rest);
        data.triangles = std::move(triangles);
        return Model::Create(std::move(data));
    }
    catch (const Error& error)
    {
        throw ToolError(inOptions.meshes[0], error.what());
    }
}

/// `--import-bullet DIR`: Bullet's reduced deformable files as a model.
Model MakeImportedModel(const BakeOptions& inOptions, std::uint32_t inModes, std::string& outReport,
                        std::string& outSummary)
{
    try
    {
        const BulletReducedFiles files = LoadBulletReducedFiles(inOptions.importBullet);
        const ModalBakeSettings settings = ModalSettings(inOptions, 1);
        Model model = MakeModelFromBulletFiles(files, inModes, settings.rayleighAlpha, settings.rayleighBeta);
        outReport = inOptions.importBullet + ": " + std::to_string(files.mesh.positions.size()) + " nodes, " +
                    std::to_string(files.mesh.tets.size()) + " tetrahedra, " +
                    std::to_string(files.modes.cols()) + " modes in the files";
        std::vector<double> eigenvalues(files.reducedStiffness.begin(),
                                        files.reducedStiffness.begin() + model.ModeCount());
        outSummary = "Bullet reduced deformable basis: " + std::to_string(model.ModeCount()) +
                     " modes, surface = the tetrahedra's boundary; frequencies " +
                     FrequencyRange(eigenvalues);
        return model;
    }
    catch (const Error& error)
    {
        throw ToolError(inOptions.importBullet, error.what());
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
    if (!inOptions.exportBullet.empty())
        CheckFolderWritable(inOptions.exportBullet);
    const auto start = std::chrono::steady_clock::now();
    const std::string basis = BasisOf(inOptions);
    const std::uint32_t modes = ModeCountOf(inOptions);
    // Everything that can reject the input happens before the first informational line, so a failing bake
    // prints its one error line and nothing else.
    Progress progress(cTool);
    std::string report, summary;
    std::optional<Model> made;
    if (basis == "animation")
        made = MakeAnimationModel(inOptions, modes, progress, report, summary);
    else if (basis == "bullet")
        made = MakeImportedModel(inOptions, modes, report, summary);
    else
    {
        const bool fromMesh = !inOptions.meshes.empty();
        Geometry geometry = fromMesh ? ImportGeometry(inOptions.meshes[0])
                            : inOptions.shape.empty()
                                ? Geometry{{}, {}, inOptions.tets + ": surface = boundary"}
                                : ShapeGeometry(inOptions);
        report = geometry.report;
        made = MakeModel(inOptions, geometry, modes,
                         fromMesh ? inOptions.meshes[0] : (inOptions.shape.empty() ? inOptions.tets : cTool),
                         progress, summary);
    }
    const Model& model = *made;
    Note(cTool, report);
    Note(cTool, summary + ", " + std::to_string(model.DegenerateTriangleCount()) +
                    " degenerate triangles kept (" + Elapsed(start) + " so far)");
    WarnAboutUnits(inOptions, model);
    WarnAboutSoftModes(model);

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
                    std::to_string(model.TriangleCount()) + " triangles, " +
                    std::to_string(model.ModeCount()) + " modes, " + std::to_string(tree.NodeCount()) +
                    " nodes, " + std::to_string(tree.LevelCount()) + " levels, " + std::to_string(bytes) +
                    " bytes in " + Elapsed(start));
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
