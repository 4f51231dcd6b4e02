// bdt-demo (console): bakes a built-in shape with a smooth basis, drops one vibrating copy onto another that
// rests on the ground, and prints per frame what the BD-Tree does: spheres updated, overlap tests, contacts.
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/Error.h>
#include <bdt/core/ProceduralShapes.h>
#include <bdt/core/TreeQueries.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace
{

struct DemoOptions
{
    std::string shape = "chair";
    std::uint32_t triangles = 18000;
    std::uint32_t modes = 10;
    std::uint32_t level = 10;
    int frames = 90;
};

std::shared_ptr<const bdt::BDTree> Bake(const DemoOptions& inOptions)
{
    const auto shape = bdt::ShapeFromName(inOptions.shape);
    if (!shape)
        throw bdt::Error("unknown shape '" + inOptions.shape + "'");
    const auto start = std::chrono::steady_clock::now();
    bdt::ShapeMesh mesh = bdt::MakeShape(*shape, inOptions.triangles);
    auto tree = std::make_shared<const bdt::BDTree>(bdt::BDTree::Build(
        bdt::MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inOptions.modes)));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("baked %s: %zu vertices, %zu triangles, M = %u, %u nodes in %u levels, %.1f MB, %.0f ms\n",
                inOptions.shape.c_str(), tree->GetModel().VertexCount(), tree->GetModel().TriangleCount(),
                tree->ModeCount(), tree->NodeCount(), tree->LevelCount(), tree->MemoryBytes() / 1e6, ms);
    return tree;
}

// q_j(t): each field rings at its own frequency, decaying; `inKick` restarts the ringing at an impact.
void AnimateQ(double inTime, double inAmplitude, std::vector<float>& outQ)
{
    for (std::size_t j = 0; j < outQ.size(); ++j)
    {
        const double omega = 6.0 + 4.0 * double(j);
        outQ[j] = static_cast<float>(inAmplitude * std::exp(-0.8 * inTime) * std::sin(omega * inTime + double(j)) /
                                     (1.0 + double(j)));
    }
}

int Run(const DemoOptions& inOptions)
{
    const auto tree = Bake(inOptions);
    const auto proxies = std::make_shared<const bdt::ProxyLevel>(tree, inOptions.level);
    std::printf("contact proxies at level %u: %u nodes visitable, %u enlarged to wrap their proxies\n\n",
                proxies->Level(), proxies->VisitCount(), proxies->WrappedCount());

    const auto bounds = tree->GetModel().RestBounds();
    const double height = bounds.sizes().y();
    const double size = 0.5 * bounds.diagonal().norm();
    bdt::TreeState resting(proxies);
    bdt::TreeState falling(proxies);
    bdt::DeformedBody a{&resting, bdt::Pose::Identity()};
    bdt::DeformedBody b{&falling, bdt::Pose::Identity()};
    a.pose.translation = bdt::Vec3d(0, -bounds.min().y(), 0);
    const bdt::Plane ground{bdt::Vec3d::UnitY(), 0.0};

    std::vector<float> qa(tree->ModeCount()), qb(tree->ModeCount());
    std::vector<bdt::ProxyContact> contacts;
    std::printf("%5s %8s %9s %9s %10s %11s %10s %9s\n", "frame", "B y (m)", "updated", "tests", "contacts",
                "tri pairs", "tri tests", "ms");
    std::uint64_t totalUpdated = 0, totalTests = 0, totalContacts = 0;
    for (int frame = 0; frame < inOptions.frames; ++frame)
    {
        const double t = frame / 30.0;
        // B falls from one body height above A and slows to rest on it; both ring.
        const double drop = std::max(0.0, 1.0 - t / 1.5);
        b.pose.translation = a.pose.translation + bdt::Vec3d(0.05 * size, 0.6 * height + drop * height, 0.0);
        b.pose.rotation = Eigen::AngleAxisd(0.3 * t, bdt::Vec3d::UnitY()).toRotationMatrix();
        AnimateQ(t, 0.04 * size, qa);
        AnimateQ(t + 0.5, 0.08 * size, qb);
        if (!resting.SetQ(qa) || !falling.SetQ(qb))
            throw bdt::Error("q rejected");
        resting.ResetCounters();
        falling.ResetCounters();

        const auto start = std::chrono::steady_clock::now();
        bdt::QueryStats stats;
        contacts.clear();
        bdt::CollideProxies(a, b, contacts, stats);
        bdt::CollideProxies(a, ground, contacts, stats);
        bdt::CollideProxies(b, ground, contacts, stats);
        bdt::QueryStats leafStats;
        std::vector<bdt::TrianglePair> pairs;
        bdt::CollideTriangles(a, b, pairs, leafStats);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

        const std::uint64_t updated = resting.SpheresUpdated() + falling.SpheresUpdated();
        totalUpdated += updated;
        totalTests += stats.overlapTests;
        totalContacts += stats.contacts;
        if (frame % 5 == 0 || frame + 1 == inOptions.frames)
            std::printf("%5d %8.3f %9llu %9llu %10llu %11zu %10llu %9.3f\n", frame, b.pose.translation.y(),
                        static_cast<unsigned long long>(updated), static_cast<unsigned long long>(stats.overlapTests),
                        static_cast<unsigned long long>(stats.contacts), pairs.size(),
                        static_cast<unsigned long long>(leafStats.triangleTests), ms);
    }
    std::printf("\n%d frames: %llu spheres updated (%.1f%% of the %u nodes per body per frame), %llu overlap tests, "
                "%llu proxy contacts\n",
                inOptions.frames, static_cast<unsigned long long>(totalUpdated),
                100.0 * double(totalUpdated) / (2.0 * inOptions.frames * tree->NodeCount()), tree->NodeCount(),
                static_cast<unsigned long long>(totalTests), static_cast<unsigned long long>(totalContacts));
    std::printf("The CPU deformed only the vertices of triangles tested at the leaves; spheres came from q alone.\n");
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"bdt-demo (console): watch a BD-Tree at work"};
    DemoOptions options;
    app.add_option("--shape", options.shape, "Built-in shape: chair, curtain, beam, box, sphere, torus, pawn");
    app.add_option("--triangles", options.triangles, "Triangle count")->check(CLI::Range(20u, 2000000u));
    app.add_option("--modes", options.modes, "Number of smooth displacement fields M")->check(CLI::Range(0u, 200u));
    app.add_option("--level", options.level, "Contact proxy level L")->check(CLI::Range(0u, 64u));
    app.add_option("--frames", options.frames, "Frames to simulate")->check(CLI::Range(1, 100000));
    CLI11_PARSE(app, argc, argv);
    try
    {
        return Run(options);
    }
    catch (const bdt::Error& error)
    {
        std::cerr << "error: bdt-demo: " << error.what() << '\n';
        return 1;
    }
}
