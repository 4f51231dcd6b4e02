// `bdt-bench bake`: how long a modal bake (`MakeModalModel`: voxelise, assemble, factorise, eigensolve,
// surface basis) takes for procedural shapes of a given triangle count, per stage, median of a few runs. The
// modal bake issue's target: a 20k-triangle mesh with 10 modes in at most 10 s on the project's 2-core
// machine. Both factorisations (`EFactorisation`): the fast default on BLAS, and the reproducible one.
#include "Scenario.h"

#include <bdt/bake/ModalBasis.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace bdt::bench
{
namespace
{

struct BakeOptions
{
    std::string json;
    std::vector<std::string> shapes = {"sphere", "box", "chair", "pawn"};
    std::uint32_t triangles = 20000;
    std::uint32_t modes = 10;
    int samples = 3;
    std::string factorisation = "both"; ///< reproducible, fast or both.
};

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point inFrom, Clock::time_point inTo)
{
    return std::chrono::duration<double, std::milli>(inTo - inFrom).count();
}

const char* const cStages[] = {"voxelise", "assemble", "factorise", "eigensolve"};

/// Bakes `inMesh` (shape `inName`) `inSamples` times with `inSettings`; prints its row and returns its report.
nlohmann::json BakeRow(const std::string& inName, const char* inFactorisation, const ShapeMesh& inMesh,
                       const ModalBakeSettings& inSettings, int inSamples)
{
    std::map<std::string, std::vector<double>> stageMs;
    std::vector<double> totalMs;
    LatticeModes modes;
    for (int sample = 0; sample < inSamples; ++sample)
    {
        std::map<std::string, Clock::time_point> started;
        const Clock::time_point start = Clock::now();
        MakeModalModel(
            inMesh.positions, inMesh.triangles, inSettings,
            [&](const char* inStage, double inFraction)
            {
                if (inFraction <= 0.0)
                    started[inStage] = Clock::now();
                else if (inFraction >= 1.0 && started.count(inStage) != 0)
                    stageMs[inStage].push_back(Ms(started[inStage], Clock::now()));
            },
            &modes);
        totalMs.push_back(Ms(start, Clock::now()));
    }
    const double total = Median(totalMs);
    nlohmann::json row = {{"shape", inName},
                          {"factorisation", inFactorisation},
                          {"triangles", inMesh.triangles.size()},
                          {"solid_cells", modes.grid.SolidCount()},
                          {"nodes", modes.nodes},
                          {"total_ms_median", total},
                          {"within_10_s", total <= 10000.0}};
    for (const char* stage : cStages)
        row[std::string(stage) + "_ms_median"] = Median(stageMs[stage]);
    std::printf("%-8s %-12s %9zu %7zu %7zu %10.0f %10.0f %10.0f %10.0f %10.0f %10s\n", inName.c_str(),
                inFactorisation, inMesh.triangles.size(), modes.grid.SolidCount(), modes.nodes,
                Median(stageMs["voxelise"]), Median(stageMs["assemble"]), Median(stageMs["factorise"]),
                Median(stageMs["eigensolve"]), total, total <= 10000.0 ? "yes" : "NO");
    std::fflush(stdout);
    return row;
}

int RunBake(const BakeOptions& inOptions)
{
    nlohmann::json report = {
        {"scenario", "bake"}, {"modes", inOptions.modes}, {"samples", inOptions.samples}};
    std::printf("%-8s %-12s %9s %7s %7s %10s %10s %10s %10s %10s %10s\n", "shape", "factorise by", "triangles",
                "cells", "nodes", "voxelise", "assemble", "factorise", "eigensolve", "total ms", "<= 10 s");
    std::vector<std::pair<const char*, EFactorisation>> factorisations;
    if (inOptions.factorisation != "reproducible")
        factorisations.emplace_back("fast", EFactorisation::Fast);
    if (inOptions.factorisation != "fast")
        factorisations.emplace_back("reproducible", EFactorisation::Reproducible);
    for (const std::string& name : inOptions.shapes)
    {
        const std::optional<EShape> shape = ShapeFromName(name);
        if (!shape)
        {
            std::fprintf(stderr, "error: bdt-bench bake: unknown shape '%s'\n", name.c_str());
            return 1;
        }
        const ShapeMesh mesh = MakeShape(*shape, inOptions.triangles);
        for (const auto& [factorisationName, factorisation] : factorisations)
        {
            ModalBakeSettings settings;
            settings.modes = inOptions.modes;
            settings.factorisation = factorisation;
            report["results"].push_back(BakeRow(name, factorisationName, mesh, settings, inOptions.samples));
        }
    }
    std::printf(
        "ms per modal bake (median of %d), %u modes, default resolution; total includes the surface and "
        "normal bases\n",
        inOptions.samples, inOptions.modes);
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return 0;
}

const bool sRegistered = RegisterScenario(
    "bake", "ms per modal bake (voxel FEM, eigensolve, surface basis) of procedural shapes, per stage",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<BakeOptions>();
        AddJsonOption(ioCommand, options->json);
        ioCommand.add_option("--shapes", options->shapes, "Shapes to bake (chair, sphere, box, pawn, ...)")
            ->delimiter(',');
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Target triangle count", 100u, 5000000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "Modes M", 1u, 1000u);
        AddRangeOption(ioCommand, "--samples", options->samples, "Bakes per shape", 1, 100);
        ioCommand.add_option("--factorisation", options->factorisation,
                             "fast (the default bake's, on the system BLAS), reproducible (no BLAS) or both")
            ->check(CLI::IsMember({"reproducible", "fast", "both"}));
        return [options] { return RunBake(*options); };
    });

} // namespace
} // namespace bdt::bench
