// `bdt-bench update`: nanoseconds per BD-Tree sphere update (paper §3.2: 8M flops) for several M, batch
// and lazy, beside a streaming multiply-add kernel over the same bytes (the memory roofline), in one run.
#include "Scenario.h"

#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/core/bounds/TreeState.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <numeric>
#include <random>

namespace bdt::bench
{
namespace
{

struct UpdateOptions
{
    std::string json;
    std::uint32_t triangles = 18000;
    std::uint32_t level = 10;
    int samples = 31;
    std::vector<std::uint32_t> modes = {1, 3, 5, 10, 20, 40};
};

using Clock = std::chrono::steady_clock;

// Median over `inSamples` samples of the nanoseconds per item of `inWork`, which processes `inItems` items;
// each sample repeats the work until it lasts at least a millisecond.
template <class Work> double MedianNsPerItem(int inSamples, std::size_t inItems, Work&& inWork)
{
    int repeats = 1;
    for (;;)
    {
        const auto start = Clock::now();
        for (int r = 0; r < repeats; ++r)
            inWork();
        if (Clock::now() - start > std::chrono::milliseconds(1) || repeats > (1 << 24))
            break;
        repeats *= 2;
    }
    std::vector<double> perItem;
    for (int s = 0; s < inSamples; ++s)
    {
        const auto start = Clock::now();
        for (int r = 0; r < repeats; ++r)
            inWork();
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
        perItem.push_back(ns / (double(repeats) * double(inItems)));
    }
    return Median(perItem);
}

// Roofline reference: one multiply-add per float over the same rows, eight lanes at a time, two chains.
float StreamFma(const float* inData, std::size_t inCount)
{
    typedef float Float8 __attribute__((vector_size(32)));
    Float8 acc0 = {}, acc1 = {};
    const Float8 weight = {1.0f, 0.5f, 0.25f, 2.0f, 1.0f, 0.5f, 0.25f, 2.0f};
    std::size_t k = 0;
    for (; k + 16 <= inCount; k += 16)
    {
        Float8 a, b;
        std::memcpy(&a, inData + k, sizeof(a));
        std::memcpy(&b, inData + k + 8, sizeof(b));
        acc0 += a * weight;
        acc1 += b * weight;
    }
    acc0 += acc1;
    float sum = 0.0f;
    for (int lane = 0; lane < 8; ++lane)
        sum += acc0[lane];
    for (; k < inCount; ++k)
        sum += inData[k];
    return sum;
}

struct Tightness
{
    double paperOverRest = 0.0; // mean R'/R, eq. 7
    double tightOverRest = 0.0; // mean R'/R, min(eq. 7, δR‖q‖)
    double tightOverPaper = 0.0;
};

Tightness MeasureTightness(const std::shared_ptr<const ContactProxies>& inProxies, std::span<const float> inQ)
{
    TreeState paper(inProxies);
    TreeState tight(inProxies);
    paper.SetBound(EBound::Paper);
    tight.SetBound(EBound::Tight);
    (void)paper.SetQ(inQ);
    (void)tight.SetQ(inQ);
    Tightness result;
    std::size_t count = 0;
    const BDTree& tree = inProxies->Tree();
    for (std::uint32_t i = 0; i < tree.NodeCount(); ++i)
    {
        const double rest = tree.Row(i)[3];
        if (rest <= 0.0)
            continue;
        const double a = paper.Sphere(i).radius;
        const double b = tight.Sphere(i).radius;
        result.paperOverRest += a / rest;
        result.tightOverRest += b / rest;
        result.tightOverPaper += b / a;
        ++count;
    }
    result.paperOverRest /= double(count);
    result.tightOverRest /= double(count);
    result.tightOverPaper /= double(count);
    return result;
}

volatile float gSink;

nlohmann::json RunOneModeCount(const UpdateOptions& inOptions, std::uint32_t inModes, std::mt19937& ioRandom)
{
    ShapeMesh mesh = MakeShape(EShape::Chair, inOptions.triangles);
    const auto tree = std::make_shared<const BDTree>(
        BDTree::Build(MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inModes)));
    const auto all = std::make_shared<const ContactProxies>(tree, tree->LevelCount() - 1);
    const double size = 0.5 * double(tree->GetModel().RestBounds().diagonal().norm());
    std::uniform_real_distribution<float> uniform(-0.1f * float(size), 0.1f * float(size));
    std::vector<float> q(inModes);
    for (float& value : q)
        value = uniform(ioRandom);

    const std::uint32_t level = std::min(inOptions.level, tree->LevelCount() - 1);
    const std::uint32_t begin = tree->LevelBegin(level);
    const std::uint32_t end = tree->LevelEnd(level);
    const std::size_t levelNodes = end - begin;

    TreeState state(all);
    (void)state.SetQ(q);
    nlohmann::json row = {{"modes", inModes}, {"level", level}, {"level_nodes", levelNodes}, {"tree_nodes", tree->NodeCount()},
                          {"row_bytes", tree->RowStride() * sizeof(float)}};
    for (EBound bound : {EBound::Paper, EBound::Tight})
    {
        state.SetBound(bound);
        const char* name = bound == EBound::Paper ? "paper" : "tight";
        row[std::string("batch_level_ns_") + name] =
            MedianNsPerItem(inOptions.samples, levelNodes, [&] { state.UpdateRange(begin, end); });
    }
    state.SetBound(EBound::Paper);
    row["batch_tree_ns_paper"] =
        MedianNsPerItem(inOptions.samples, tree->NodeCount(), [&] { state.UpdateRange(0, tree->NodeCount()); });

    // Lazy: a new step, then every node of levels 0..L visited once in random order through Sphere().
    const auto proxies = std::make_shared<const ContactProxies>(tree, level);
    TreeState lazy(proxies);
    std::vector<std::uint32_t> order(proxies->VisitCount());
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), ioRandom);
    row["lazy_ns_paper"] = MedianNsPerItem(inOptions.samples, order.size(),
                                           [&]
                                           {
                                               (void)lazy.SetQ(q);
                                               float sum = 0.0f;
                                               for (std::uint32_t i : order)
                                                   sum += lazy.Sphere(i).radius;
                                               gSink = sum;
                                           });

    const float* rows = tree->Row(begin);
    const std::size_t floats = levelNodes * tree->RowStride();
    row["roofline_ns"] = MedianNsPerItem(inOptions.samples, levelNodes, [&] { gSink = StreamFma(rows, floats); });
    row["batch_over_roofline"] = row["batch_level_ns_paper"].get<double>() / row["roofline_ns"].get<double>();

    for (double amplitude : {0.01, 0.1, 0.5})
    {
        std::uniform_real_distribution<float> dist(-float(amplitude * size), float(amplitude * size));
        std::vector<float> sample(inModes);
        for (float& value : sample)
            value = dist(ioRandom);
        const Tightness t = MeasureTightness(all, sample);
        row["tightness"].push_back({{"amplitude", amplitude},
                                    {"mean_paper_over_rest", t.paperOverRest},
                                    {"mean_tight_over_rest", t.tightOverRest},
                                    {"mean_tight_over_paper", t.tightOverPaper}});
    }
    return row;
}

int RunUpdate(const UpdateOptions& inOptions)
{
    std::mt19937 random(1234);
    nlohmann::json report = {{"scenario", "update"}, {"model", "chair"}, {"triangles_requested", inOptions.triangles}};
    std::printf("%4s %7s %12s %12s %12s %11s %12s %9s %14s\n", "M", "nodes", "batch ns", "tight ns", "tree ns",
                "lazy ns", "roofline ns", "ratio", "tight/paper");
    for (std::uint32_t m : inOptions.modes)
    {
        nlohmann::json row = RunOneModeCount(inOptions, m, random);
        std::printf("%4u %7zu %12.2f %12.2f %12.2f %11.2f %12.2f %9.2f %14.3f\n", m,
                    row["level_nodes"].get<std::size_t>(), row["batch_level_ns_paper"].get<double>(),
                    row["batch_level_ns_tight"].get<double>(), row["batch_tree_ns_paper"].get<double>(),
                    row["lazy_ns_paper"].get<double>(), row["roofline_ns"].get<double>(),
                    row["batch_over_roofline"].get<double>(), row["tightness"][1]["mean_tight_over_paper"].get<double>());
        std::fflush(stdout);
        report["results"].push_back(row);
    }
    std::printf("ns per sphere update (median of %d samples); batch = all nodes of level %u; ratio = batch / roofline;\n"
                "tight/paper = mean R' of the tight bound over eq. 7 at q amplitude 0.1 x model size.\n",
                inOptions.samples, inOptions.level);
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return 0;
}

const bool sRegistered = RegisterScenario(
    "update", "ns per sphere update for several M, batch and lazy, against a streaming roofline kernel",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<UpdateOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Chair triangle count", 100u, 5000000u);
        AddRangeOption(ioCommand, "--level", options->level, "Tree level of the batch", 0u, 60u);
        AddRangeOption(ioCommand, "--samples", options->samples, "Timing samples per figure", 1, 1000);
        ioCommand.add_option("--modes", options->modes, "Mode counts to measure")->delimiter(',')->check(CLI::Range(0u, 1000u));
        return [options] { return RunUpdate(*options); };
    });

} // namespace
} // namespace bdt::bench
