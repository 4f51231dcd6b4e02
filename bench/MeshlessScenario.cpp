// `bdt-bench meshless`: tight bounds for surfaces animated by convex combinations of affine transforms
// (Steinemann, Otaduy & Gross 2008, §6). Three measurements, as the paper's:
//  1. tightness (its Fig. 5): the radius of each node's AABB refitted by eq. 12 over the optimal AABB of its
//     deformed vertices, per tree level, mean and max over a pulled, twisted animation;
//  2. scalability (its Table 1): the time to fit the root AABB from n node transforms for meshes of 3.5k to
//  145k
//     vertices, against the optimal AABB from every vertex;
//  3. collision (its Tables 3-4): six models hanging from a turning ring, swinging into each other; every
//     frame all pairs are collided by the full bottom-up refit of AABB trees (every vertex deformed) and by
//     the eq. 12 refit on demand with front tracking, and the two answers must be the same triangle pairs.
#include "Scenario.h"

#include "core/bounds/BlendBounds.h"
#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <array>
#include <bdt/bake/MeshlessNodes.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace bdt::bench
{
namespace
{

using Clock = std::chrono::steady_clock;
constexpr double cPi = 3.14159265358979323846;

double MsSince(Clock::time_point inStart)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - inStart).count();
}

struct MeshlessOptions
{
    std::string json;
    std::uint32_t frames = 60;
    std::uint32_t tightnessVertices = 30000; ///< The paper's brain: 29 966.
    std::vector<std::uint32_t> nodes = {65, 509};
    std::vector<std::uint32_t> scaleVertices = {3500, 30000, 145000};
    std::uint32_t ringVertices = 2857; ///< The paper's small Santa.
    std::uint32_t ringNodes = 115;
    double swing = 0.5; ///< Swing amplitude of the hanging models (0.5: contacts in every frame).
    std::uint32_t repeats = 5;
};

struct Body
{
    std::shared_ptr<const BlendedMesh> mesh;
    std::shared_ptr<const BlendBoundsTree> tree;
    std::vector<Vec3d> nodes;
    double buildMs = 0.0;
};

// A cube-sphere ("brain-like" blob) of about `inVertices` vertices with `inNodes` simulation nodes.
Body MakeBody(EShape inShape, std::uint32_t inVertices, std::uint32_t inNodes)
{
    const auto start = Clock::now();
    ShapeMesh shape = MakeShape(inShape, 2 * inVertices);
    MeshlessNodes sampled =
        SampleMeshlessNodes(std::move(shape.positions), std::move(shape.triangles), inNodes, 4);
    Body body;
    body.mesh = std::make_shared<const BlendedMesh>(BlendedMesh::Create(std::move(sampled.mesh)));
    body.tree = std::make_shared<const BlendBoundsTree>(BlendBoundsTree::Build(body.mesh));
    body.nodes = std::move(sampled.nodePositions);
    body.buildMs = MsSince(start);
    return body;
}

// The pull of the paper's Fig. 1: one side of the body drawn out along +x by up to `inAmount` of its size (a
// Gaussian-weighted region, so the surface stretches), with a twist about x growing along it.
DeformationMap Pull(double inAmount)
{
    return [inAmount](const Vec3d& inX)
    {
        const double reach =
            std::exp(-4.0 * ((inX.x() - 0.5) * (inX.x() - 0.5) + inX.y() * inX.y() + inX.z() * inX.z()));
        const double angle = 0.8 * inAmount * (inX.x() + 0.5);
        const double c = std::cos(angle), s = std::sin(angle);
        return Vec3d(inX.x() + inAmount * reach, c * inX.y() - s * inX.z(), s * inX.y() + c * inX.z());
    };
}

// 1. Tightness per level over the pulled animation.
nlohmann::json MeasureTightness(const MeshlessOptions& inOptions)
{
    nlohmann::json out = nlohmann::json::array();
    for (const std::uint32_t n : inOptions.nodes)
    {
        const Body body = MakeBody(EShape::Sphere, inOptions.tightnessVertices, n);
        const BDTree& topology = body.tree->Topology();
        const std::uint32_t levels = topology.LevelCount();
        std::vector<double> sum(levels, 0.0), largest(levels, 0.0);
        std::vector<std::uint64_t> count(levels, 0);
        for (std::uint32_t f = 0; f < inOptions.frames; ++f)
        {
            const double amount = 0.6 * double(f + 1) / double(inOptions.frames);
            const auto transforms = TransformsOfMap(Pull(amount), body.nodes, 1e-4);
            for (std::uint32_t node = 0; node < topology.NodeCount(); ++node)
            {
                const double ratio = DopRadius(RefitDop(*body.tree, node, transforms, EDop::Box6)) /
                                     DopRadius(ExactDop(*body.tree, node, transforms, EDop::Box6));
                const std::uint32_t level = topology.Node(node).level;
                sum[level] += ratio;
                largest[level] = std::max(largest[level], ratio);
                ++count[level];
            }
        }
        std::printf(
            "\ntightness, %zu vertices, %u nodes (%.1f s to build): AABB radius by eq. 12 / optimal, over %u "
            "frames of a pull up to 60%% of the size\n",
            body.mesh->VertexCount(), n, body.buildMs / 1e3, inOptions.frames);
        std::printf("%6s %8s %8s\n", "level", "mean", "max");
        nlohmann::json levelsOut = nlohmann::json::array();
        for (std::uint32_t level = 0; level < levels; ++level)
        {
            const double mean = sum[level] / double(std::max<std::uint64_t>(1, count[level]));
            std::printf("%6u %8.3f %8.3f\n", level, mean, largest[level]);
            levelsOut.push_back({{"level", level}, {"mean_ratio", mean}, {"max_ratio", largest[level]}});
        }
        out.push_back({{"vertices", body.mesh->VertexCount()}, {"nodes", n}, {"levels", levelsOut}});
    }
    return out;
}

// 2. The root AABB's fit time against the vertex count, and the optimal AABB's.
nlohmann::json MeasureScaling(const MeshlessOptions& inOptions)
{
    nlohmann::json out = nlohmann::json::array();
    std::printf("\nroot AABB fit, microseconds (median of %u x 200 fits): eq. 12 per node count, then the "
                "optimal AABB "
                "from every vertex\n%10s",
                inOptions.repeats, "vertices");
    for (const std::uint32_t n : inOptions.nodes)
        std::printf(" %10u", n);
    std::printf(" %12s\n", "optimal");
    for (const std::uint32_t vertices : inOptions.scaleVertices)
    {
        nlohmann::json row = {{"vertices_target", vertices}};
        std::vector<double> fits;
        double optimalUs = 0.0;
        std::size_t actual = 0;
        for (const std::uint32_t n : inOptions.nodes)
        {
            const Body body = MakeBody(EShape::Sphere, vertices, n);
            actual = body.mesh->VertexCount();
            const auto transforms = TransformsOfMap(Pull(0.4), body.nodes, 1e-4);
            std::vector<double> samples;
            double sink = 0.0;
            for (std::uint32_t r = 0; r < inOptions.repeats; ++r)
            {
                const auto start = Clock::now();
                for (int k = 0; k < 200; ++k)
                    sink += RefitDop(*body.tree, 0, transforms, EDop::Box6).hi[0];
                samples.push_back(1e3 * MsSince(start) / 200.0);
            }
            fits.push_back(Median(samples));
            row["eq12_us_" + std::to_string(n)] = fits.back();
            if (optimalUs == 0.0)
            {
                samples.clear();
                for (std::uint32_t r = 0; r < inOptions.repeats; ++r)
                {
                    const auto start = Clock::now();
                    sink += ExactDop(*body.tree, 0, transforms, EDop::Box6).hi[0];
                    samples.push_back(1e3 * MsSince(start));
                }
                optimalUs = Median(samples);
            }
            if (!std::isfinite(sink))
                throw Error("meshless: a root fit is not finite");
        }
        std::printf("%10zu", actual);
        for (const double us : fits)
            std::printf(" %10.2f", us);
        std::printf(" %12.1f\n", optimalUs);
        row["vertices"] = actual;
        row["optimal_us"] = optimalUs;
        out.push_back(row);
    }
    return out;
}

// The classical baseline of the paper's Table 3: every vertex deformed, every node's AABB refitted bottom up.
struct BottomUpTree
{
    std::vector<Vec3d> vertices;
    std::vector<Dop> boxes;

    void Refit(const BlendBoundsTree& inTree, std::span<const AffineTransform> inTransforms)
    {
        const BlendedMesh& mesh = inTree.Mesh();
        vertices.resize(mesh.VertexCount());
        for (std::size_t v = 0; v < vertices.size(); ++v)
            vertices[v] = mesh.DeformedPosition(v, inTransforms);
        const BDTree& topology = inTree.Topology();
        boxes.resize(topology.NodeCount());
        for (std::uint32_t node = topology.NodeCount(); node-- > 0;)
        {
            const BDTreeNode& n = topology.Node(node);
            Dop& box = boxes[node];
            if (n.IsLeaf())
            {
                box.lo.fill(std::numeric_limits<double>::infinity());
                box.hi.fill(-std::numeric_limits<double>::infinity());
                for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
                    for (std::uint32_t v : inTree.TreeTriangle(t))
                        for (int a = 0; a < 3; ++a)
                        {
                            box.lo[a] = std::min(box.lo[a], vertices[v][a]);
                            box.hi[a] = std::max(box.hi[a], vertices[v][a]);
                        }
            }
            else
                for (int a = 0; a < 3; ++a)
                {
                    box.lo[a] = std::min(boxes[n.firstChild].lo[a], boxes[n.firstChild + 1].lo[a]);
                    box.hi[a] = std::max(boxes[n.firstChild].hi[a], boxes[n.firstChild + 1].hi[a]);
                }
        }
    }
};

// Every intersecting triangle pair of two bottom-up trees (the same descent as `CollideBlended`).
void CollideBottomUp(const BlendBoundsTree& inTree, const BottomUpTree& inA, const BottomUpTree& inB,
                     std::vector<TrianglePair>& outPairs, QueryStats& ioStats)
{
    const BDTree& topology = inTree.Topology();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{0, 0}};
    while (!stack.empty())
    {
        const auto [nodeA, nodeB] = stack.back();
        stack.pop_back();
        ++ioStats.overlapTests;
        if (!DopsOverlap(inA.boxes[nodeA], inB.boxes[nodeB], EDop::Box6))
            continue;
        const BDTreeNode& na = topology.Node(nodeA);
        const BDTreeNode& nb = topology.Node(nodeB);
        if (na.IsLeaf() && nb.IsLeaf())
        {
            const Triangle& ta = inTree.TreeTriangle(na.firstTriangle);
            const Triangle& tb = inTree.TreeTriangle(nb.firstTriangle);
            const Vec3d va[3] = {inA.vertices[ta[0]], inA.vertices[ta[1]], inA.vertices[ta[2]]};
            const Vec3d vb[3] = {inB.vertices[tb[0]], inB.vertices[tb[1]], inB.vertices[tb[2]]};
            ++ioStats.triangleTests;
            if (TrianglesIntersect(va, vb))
                outPairs.push_back({na.firstTriangle, nb.firstTriangle});
            continue;
        }
        if (!na.IsLeaf() && (nb.IsLeaf() || DopRadius(inA.boxes[nodeA]) >= DopRadius(inB.boxes[nodeB])))
        {
            stack.push_back({na.firstChild + 1, nodeB});
            stack.push_back({na.firstChild, nodeB});
        }
        else
        {
            stack.push_back({nodeA, nb.firstChild + 1});
            stack.push_back({nodeA, nb.firstChild});
        }
    }
}

// Six models hanging from a ring of radius 0.62 m (bases 0.6 m wide: they clear each other at rest) that
// turns back and forth about y: each hangs from its top and swings outwards and sideways with the ring's
// motion, bending more the lower a point is, and twists, so neighbours swing into each other. The pawn is
// 0.96 m tall; its rest frame is centred.
DeformationMap Hanging(std::uint32_t inModel, std::uint32_t inModels, double inTime, double inSwing)
{
    const double ringAngle = 0.6 * std::sin(2.0 * cPi * inTime / 3.0) + 2.0 * cPi * inModel / inModels;
    const double swing = inSwing * std::sin(2.0 * cPi * inTime / 1.5 + 0.7 * inModel);
    const double twist = 0.6 * std::sin(2.0 * cPi * inTime / 2.0 + inModel);
    return [=](const Vec3d& inX)
    {
        const double below = 0.48 - inX.y(); // 0 at the top, 0.96 at the foot
        const double bend = swing * below;
        // Bend in the model's tangent plane (its local x), twist about its axis, growing downwards.
        const double c = std::cos(twist * below), s = std::sin(twist * below);
        Vec3d local(c * inX.x() - s * inX.z() + 0.5 * bend * below, inX.y() - 0.1 * std::abs(bend) * below,
                    s * inX.x() + c * inX.z());
        const Mat3d ring = Eigen::AngleAxisd(ringAngle, Vec3d::UnitY()).toRotationMatrix();
        return Vec3d(ring * (local + Vec3d(0.0, 1.5, 0.62)));
    };
}

// The hanging models' node transforms, per frame and model.
std::vector<std::vector<std::vector<AffineTransform>>> RingTransforms(const Body& inBody,
                                                                      const MeshlessOptions& inOptions,
                                                                      std::uint32_t inModels)
{
    std::vector<std::vector<std::vector<AffineTransform>>> transforms(inOptions.frames);
    for (std::uint32_t f = 0; f < inOptions.frames; ++f)
        for (std::uint32_t m = 0; m < inModels; ++m)
            transforms[f].push_back(
                TransformsOfMap(Hanging(m, inModels, f / 30.0, inOptions.swing), inBody.nodes, 1e-4));
    return transforms;
}

// Timed passes over the ring's frames, the two methods interleaved: the median ms per frame of the refit and
// of the query, for the full bottom-up refit ([0]) and eq. 12 on demand ([1]). `inFrameOf(ours, frame,
// nullptr, stats)` runs one frame of one method and returns its refit and query ms.
template <class FrameOf>
std::array<std::array<double, 2>, 2> TimeRing(const FrameOf& inFrameOf, const MeshlessOptions& inOptions)
{
    std::array<std::vector<double>, 2> refitMs, queryMs;
    for (std::uint32_t r = 0; r < inOptions.repeats; ++r)
        for (int k = 0; k < 2; ++k)
        {
            const bool ours = (k + r) % 2 == 1;
            double refit = 0.0, query = 0.0;
            QueryStats ignored;
            for (std::uint32_t f = 0; f < inOptions.frames; ++f)
            {
                const auto ms = inFrameOf(ours, f, nullptr, ignored);
                refit += ms[0];
                query += ms[1];
            }
            refitMs[ours].push_back(refit / inOptions.frames);
            queryMs[ours].push_back(query / inOptions.frames);
        }
    return {{{Median(refitMs[0]), Median(queryMs[0])}, {Median(refitMs[1]), Median(queryMs[1])}}};
}

// 3. Collisions of the hanging models: full bottom-up refit against eq. 12 on demand with front tracking.
nlohmann::json MeasureRing(const MeshlessOptions& inOptions)
{
    constexpr std::uint32_t models = 6;
    const Body body = MakeBody(EShape::Pawn, inOptions.ringVertices, inOptions.ringNodes);
    const auto transforms = RingTransforms(body, inOptions, models);

    std::vector<BottomUpTree> bottomUp(models);
    std::vector<BlendBoundsState> states;
    for (std::uint32_t m = 0; m < models; ++m)
    {
        states.emplace_back(body.tree, EDop::Box6);
        states.back().SetFrontTracking(true);
    }
    std::vector<TrianglePair> pairs;
    std::uint64_t contactFrames = 0, triangles = 0, mismatches = 0;
    // One frame of one method: refit (or set the transforms), then all model pairs; returns refit and query
    // ms.
    const auto frameOf = [&](bool inOurs, std::uint32_t inFrame,
                             std::vector<std::vector<TrianglePair>>* outPairs, QueryStats& ioStats)
    {
        auto start = Clock::now();
        for (std::uint32_t m = 0; m < models; ++m)
        {
            if (inOurs)
            {
                if (!states[m].SetTransforms(transforms[inFrame][m]))
                    throw Error("meshless: refused transforms");
            }
            else
                bottomUp[m].Refit(*body.tree, transforms[inFrame][m]);
        }
        const double refitMs = MsSince(start);
        start = Clock::now();
        for (std::uint32_t a = 0; a < models; ++a)
            for (std::uint32_t b = a + 1; b < models; ++b)
            {
                pairs.clear();
                if (inOurs)
                    CollideBlended(states[a], states[b], pairs, ioStats);
                else
                    CollideBottomUp(*body.tree, bottomUp[a], bottomUp[b], pairs, ioStats);
                if (outPairs != nullptr)
                {
                    std::sort(pairs.begin(), pairs.end());
                    outPairs->push_back(pairs);
                }
            }
        return std::array<double, 2>{refitMs, MsSince(start)};
    };
    // Counting pass with the check: the same pairs every frame.
    std::array<QueryStats, 2> stats{};
    for (std::uint32_t f = 0; f < inOptions.frames; ++f)
    {
        std::vector<std::vector<TrianglePair>> ours, theirs;
        frameOf(true, f, &ours, stats[1]);
        frameOf(false, f, &theirs, stats[0]);
        bool any = false;
        for (std::size_t k = 0; k < ours.size(); ++k)
        {
            mismatches += ours[k] == theirs[k] ? 0 : 1;
            triangles += theirs[k].size();
            any = any || !theirs[k].empty();
        }
        contactFrames += any ? 1 : 0;
    }
    const auto [full, ours] = TimeRing(frameOf, inOptions);
    const double refitFull = full[0], queryFull = full[1];
    const double refitOurs = ours[0], queryOurs = ours[1];
    std::uint64_t refits = 0, exact = 0, unions = 0;
    for (const BlendBoundsState& state : states)
    {
        refits += state.Refits();
        exact += state.ExactFits();
        unions += state.ChildUnions();
    }
    std::printf("\nring: %u models of %zu vertices, %u nodes each, swing %.2f, %u frames at 30 FPS; %llu "
                "intersecting "
                "triangle pairs over %llu frames\n",
                models, body.mesh->VertexCount(), inOptions.ringNodes, inOptions.swing, inOptions.frames,
                static_cast<unsigned long long>(triangles), static_cast<unsigned long long>(contactFrames));
    std::printf("%-28s %10s %10s %10s %10s %12s\n", "ms per frame", "refit", "query", "total", "gain",
                "box tests");
    std::printf("%-28s %10.3f %10.3f %10.3f %10s %12llu\n", "full bottom-up AABB refit", refitFull, queryFull,
                refitFull + queryFull, "1", static_cast<unsigned long long>(stats[0].overlapTests));
    std::printf("%-28s %10.3f %10.3f %10.3f %9.1fx %12llu\n", "eq. 12 on demand + front", refitOurs,
                queryOurs, refitOurs + queryOurs, (refitFull + queryFull) / (refitOurs + queryOurs),
                static_cast<unsigned long long>(stats[1].overlapTests));
    std::printf("refit speed-up %.1fx; eq. 12 refits %llu, exact leaves %llu, child unions %llu; answers "
                "that differ: "
                "%llu\n",
                refitFull / std::max(refitOurs, 1e-9), static_cast<unsigned long long>(refits),
                static_cast<unsigned long long>(exact), static_cast<unsigned long long>(unions),
                static_cast<unsigned long long>(mismatches));
    return {{"models", models},
            {"vertices", body.mesh->VertexCount()},
            {"nodes", inOptions.ringNodes},
            {"frames", inOptions.frames},
            {"triangle_pairs", triangles},
            {"contact_frames", contactFrames},
            {"full_refit_ms", refitFull},
            {"full_query_ms", queryFull},
            {"ours_refit_ms", refitOurs},
            {"ours_query_ms", queryOurs},
            {"total_gain", (refitFull + queryFull) / (refitOurs + queryOurs)},
            {"refit_gain", refitFull / std::max(refitOurs, 1e-9)},
            {"mismatched_pair_lists", mismatches}};
}

int RunMeshless(const MeshlessOptions& inOptions)
{
    nlohmann::json report = {{"scenario", "meshless"}};
    report["tightness"] = MeasureTightness(inOptions);
    report["scaling"] = MeasureScaling(inOptions);
    report["ring"] = MeasureRing(inOptions);
    const bool failed = report["ring"]["mismatched_pair_lists"].get<std::uint64_t>() != 0;
    if (failed)
        std::fprintf(stderr,
                     "error: meshless: the eq. 12 trees and the bottom-up trees found different pairs\n");
    else
        std::printf("every frame, both methods found the same intersecting triangle pairs\n");
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return failed ? 1 : 0;
}

const bool sRegistered = RegisterScenario(
    "meshless",
    "Steinemann et al. 2008: tight AABBs from node transforms (eq. 12): tightness per level, fit cost "
    "against "
    "vertex count, hanging models colliding against a full bottom-up refit",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<MeshlessOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--frames", options->frames, "Frames of each animation", 1u, 100000u);
        AddRangeOption(ioCommand, "--tightness-vertices", options->tightnessVertices,
                       "Vertices of the tightness body", 100u, 2000000u);
        AddRangeOption(ioCommand, "--nodes", options->nodes, "Simulation node counts", 1u, 100000u);
        AddRangeOption(ioCommand, "--scale-vertices", options->scaleVertices,
                       "Vertex counts of the fit-cost table", 100u, 5000000u);
        AddRangeOption(ioCommand, "--ring-vertices", options->ringVertices, "Vertices of each hanging model",
                       100u, 2000000u);
        AddRangeOption(ioCommand, "--ring-nodes", options->ringNodes,
                       "Simulation nodes of each hanging model", 1u, 100000u);
        AddRangeOption(ioCommand, "--swing", options->swing,
                       "Swing amplitude of the hanging models (0.5: contact every frame)", 0.0, 2.0);
        AddRangeOption(ioCommand, "--repeats", options->repeats, "Timed passes (median)", 1u, 100000u);
        return [options] { return RunMeshless(*options); };
    });

} // namespace
} // namespace bdt::bench
