// bdt-inspect: reads a `.bdt` asset and prints what is in it.
//
//     bdt-inspect info FILE.bdt                                        JSON summary on stdout
//     bdt-inspect spheres FILE.bdt --q q1,...,qM [--level L] [--bound paper|tight]
//                                                                      updated spheres as CSV on stdout
//     bdt-inspect mesh FILE.bdt --q q1,...,qM --out deformed.obj       p + U q as OBJ, tree triangle order
//
// Any failure prints exactly one line `error: <file>: <problem>` on stderr and exits with code 1.

#include "QParser.h"
#include "ToolSupport.h"

#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/bounds/TreeState.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bdt::tools
{
namespace
{

const std::string cTool = "bdt-inspect";

/// Options of every subcommand (each uses a subset).
struct InspectOptions
{
    std::string file;                  ///< The `.bdt` asset.
    std::optional<std::string> q;      ///< Comma-separated q (omitted: q = 0).
    std::optional<std::int64_t> level; ///< Only the nodes of this level (spheres).
    std::string bound = "tight";       ///< paper or tight (spheres).
    std::string out;                   ///< OBJ to write (mesh).
};

std::shared_ptr<const BDTree> LoadTree(const std::string& inPath)
{
    std::error_code ignored;
    if (std::filesystem::is_directory(inPath, ignored))
        throw ToolError(inPath, "is a directory, not a .bdt asset");
    try
    {
        return LoadAsset(inPath);
    }
    catch (const Error& error)
    {
        throw ToolError(inPath, error.what());
    }
}

nlohmann::ordered_json Vector3(const Eigen::Vector3f& inValue)
{
    return nlohmann::ordered_json::array({inValue.x(), inValue.y(), inValue.z()});
}

int Info(const InspectOptions& inOptions)
{
    const std::shared_ptr<const BDTree> tree = LoadTree(inOptions.file);
    const Model& model = tree->GetModel();
    std::error_code sizeError;
    const auto fileBytes = std::filesystem::file_size(inOptions.file, sizeError);

    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (std::uint32_t level = 0; level < tree->LevelCount(); ++level)
        levels.push_back(tree->LevelEnd(level) - tree->LevelBegin(level));
    std::uint32_t leaves = 0;
    std::uint32_t maxLeafTriangles = 0;
    for (const BDTreeNode& node : tree->Nodes())
    {
        if (node.IsLeaf())
        {
            ++leaves;
            maxLeafTriangles = std::max(maxLeafTriangles, node.triangleCount);
        }
    }
    const float* root = tree->Row(0);

    nlohmann::ordered_json json;
    json["file"] = inOptions.file;
    json["format_version"] = cAssetVersion;
    json["vertices"] = model.VertexCount();
    json["triangles"] = model.TriangleCount();
    json["modes"] = model.ModeCount();
    json["nodes"] = tree->NodeCount();
    json["levels"] = tree->LevelCount();
    json["nodes_per_level"] = levels;
    json["leaves"] = leaves;
    json["max_leaf_triangles"] = maxLeafTriangles;
    json["bytes"] = {{"file", sizeError ? 0 : fileBytes}, {"memory", tree->MemoryBytes()}};
    json["degenerate_triangles"] = model.DegenerateTriangleCount();
    json["normal_basis"] = model.HasNormalBasis();
    json["rest_bounds"] = {{"min", Vector3(model.RestBounds().min())},
                           {"max", Vector3(model.RestBounds().max())}};
    json["root_sphere"] = {{"center", {root[0], root[1], root[2]}}, {"radius", root[3]}};
    if (!model.Modes().empty())
    {
        nlohmann::ordered_json frequencies = nlohmann::ordered_json::array();
        nlohmann::ordered_json damping = nlohmann::ordered_json::array();
        for (const ModeInfo& mode : model.Modes())
        {
            frequencies.push_back(mode.frequency);
            damping.push_back(mode.damping);
        }
        json["frequencies"] = frequencies;
        json["damping"] = damping;
    }
    if (model.AnimationFrameCount() > 0)
        json["animation_frames"] = model.AnimationFrameCount();
    std::printf("%s\n", json.dump(2).c_str());
    return 0;
}

/// The nodes to print: all, or those of `--level` (checked against the tree).
std::pair<std::uint32_t, std::uint32_t> NodeRange(const InspectOptions& inOptions, const BDTree& inTree)
{
    if (!inOptions.level)
        return {0, inTree.NodeCount()};
    const std::int64_t level = *inOptions.level;
    if (level < 0 || level >= std::int64_t(inTree.LevelCount()))
        throw ToolError(cTool, "--level " + std::to_string(level) + " is out of range (" + inOptions.file +
                                   " has " + std::to_string(inTree.LevelCount()) + " levels, 0 to " +
                                   std::to_string(inTree.LevelCount() - 1) + ")");
    const auto l = static_cast<std::uint32_t>(level);
    return {inTree.LevelBegin(l), inTree.LevelEnd(l)};
}

int Spheres(const InspectOptions& inOptions)
{
    const std::shared_ptr<const BDTree> tree = LoadTree(inOptions.file);
    const std::vector<float> q = ParseQ(inOptions.q, *tree, inOptions.file);
    const auto [begin, end] = NodeRange(inOptions, *tree);

    // Proxies at the deepest level: no node is enlarged, every sphere is the tree's own bound.
    TreeState state(std::make_shared<const ContactProxies>(tree, tree->LevelCount() - 1));
    state.SetBound(inOptions.bound == "paper" ? EBound::Paper : EBound::Tight);
    if (!state.SetQ(q))
        throw ToolError(cTool, "--q was rejected by the tree state (non-finite or too large)");

    std::printf("node,level,cx,cy,cz,r,first_triangle,triangle_count\n");
    for (std::uint32_t i = begin; i < end; ++i)
    {
        const BDTreeNode& node = tree->Node(i);
        const UpdatedSphere sphere = state.Sphere(i);
        std::printf("%u,%u,%.9g,%.9g,%.9g,%.9g,%u,%u\n", i, unsigned(node.level), double(sphere.center[0]),
                    double(sphere.center[1]), double(sphere.center[2]), double(sphere.radius),
                    node.firstTriangle, node.triangleCount);
    }
    return 0;
}

int Mesh(const InspectOptions& inOptions)
{
    const std::shared_ptr<const BDTree> tree = LoadTree(inOptions.file);
    const std::vector<float> q = ParseQ(inOptions.q, *tree, inOptions.file);
    const Model& model = tree->GetModel();

    std::FILE* file = std::fopen(inOptions.out.c_str(), "w");
    if (file == nullptr)
        throw ToolError(inOptions.out, "cannot open for writing (" + std::string(std::strerror(errno)) + ")");
    std::fprintf(file, "# bdt-inspect mesh %s: p + U q for %zu modes; face k is tree triangle k\n",
                 inOptions.file.c_str(), q.size());
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
    {
        const Vec3d p = model.DeformedPosition(i, q);
        std::fprintf(file, "v %.17g %.17g %.17g\n", p.x(), p.y(), p.z());
    }
    for (const Triangle& triangle : model.Triangles())
        std::fprintf(file, "f %u %u %u\n", triangle[0] + 1, triangle[1] + 1, triangle[2] + 1);
    const bool failed = std::ferror(file) != 0;
    if (std::fclose(file) != 0 || failed)
    {
        std::remove(inOptions.out.c_str());
        throw ToolError(inOptions.out, "cannot write the mesh");
    }
    return 0;
}

/// Adds the FILE positional and, when `inWithQ`, the `--q` option to a subcommand.
CLI::App* AddCommand(CLI::App& ioApp, const char* inName, const char* inHelp, InspectOptions& outOptions,
                     bool inWithQ)
{
    CLI::App* command = ioApp.add_subcommand(inName, inHelp);
    command->add_option("file", outOptions.file, "The .bdt asset")->required();
    if (inWithQ)
        command->add_option("--q", outOptions.q,
                            "Reduced coordinates q1,...,qM, comma separated (default: all 0)");
    return command;
}

int Run(int inArgc, char** inArgv)
{
    CLI::App app{"Prints what a .bdt asset holds: summary, updated spheres, deformed mesh", cTool};
    app.require_subcommand(1);
    InspectOptions options;
    CLI::App* info = AddCommand(app, "info", "JSON summary of the asset", options, false);
    CLI::App* spheres =
        AddCommand(app, "spheres", "Updated spheres (rest frame) of every node as CSV", options, true);
    spheres->add_option("--level", options.level, "Only the nodes of this level");
    spheres->add_option("--bound", options.bound, "Radius bound: paper (eq. 7) or tight (default)")
        ->check(CLI::IsMember({"paper", "tight"}));
    CLI::App* mesh =
        AddCommand(app, "mesh", "Deformed mesh p + U q as OBJ in the tree's triangle order", options, true);
    mesh->add_option("--out", options.out, "The OBJ file to write")->required();
    if (!ParseCommandLine(app, inArgc, inArgv))
        return 0;
    if (info->parsed())
        return Info(options);
    if (spheres->parsed())
        return Spheres(options);
    return Mesh(options);
}

} // namespace
} // namespace bdt::tools

int main(int argc, char** argv)
{
    return bdt::tools::RunTool(bdt::tools::cTool, [&] { return bdt::tools::Run(argc, argv); });
}
