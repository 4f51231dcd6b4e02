// `bdt-bench curtain`: the BD-Tree paper's Table 2 (James & Pai 2004, §4). A cloth curtain blowing in the
// wind (a simple cloth simulation, 110 frames at 30 FPS) compressed to M = 12 fields by PCA, and a ball
// thrown through it. The same frames and the same ball for four ways of finding the triangles the ball
// touches: the BD-Tree (spheres updated from q alone, lazily, §3.2), a layered sphere tree and an AABB tree
// (van den Bergen 1997) refitted bottom-up after every vertex is deformed, and Bullet's btGImpactMeshShape
// with its vertices rewritten and `updateBound()` every frame. Each answer is checked against brute force.
#include "GImpactMesh.h"
#include "Scenario.h"
#include "reference/AabbTree.h"
#include "reference/ClothSimulation.h"
#include "reference/DeformVertices.h"
#include "reference/LayeredSphereTree.h"
#include "reference/PaperCurtain.h"

#include "core/geometry/TriangleGeometry.h"

#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <algorithm>
#include <array>
#include <bdt/bake/AnimationBasis.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/queries/TreeQueries.h>
#include <chrono>
#include <cstdio>
#include <numeric>

namespace bdt::bench
{
namespace
{

using Clock = std::chrono::steady_clock;

struct CurtainOptions
{
    std::string json;
    std::uint32_t triangles = 12020; ///< 12020: the paper's curtain (`MakePaperCurtain`), else `MakeShape`'s.
    std::uint32_t frames = 110;
    std::uint32_t modes = 12;
    std::uint32_t repeats = 15; ///< Timed passes over the animation per method (median).
    double ballRadius = 0.15;   ///< m
    double ballSpeed = 5.0;     ///< m/s
    std::string series;         ///< Per-frame times as a whitespace table (for gnuplot), if set.
};

// The animation and what every method shares.
struct Curtain
{
    std::shared_ptr<const BDTree> tree;
    AnimationBasis animation;
    std::vector<Sphere> balls; ///< The ball at each frame (curtain frame, m).
    double simulationMs = 0.0, pcaMs = 0.0, buildMs = 0.0;
};

double MsSince(Clock::time_point inStart)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - inStart).count();
}

Curtain MakeCurtain(const CurtainOptions& inOptions)
{
    Curtain curtain;
    const ShapeMesh mesh =
        inOptions.triangles == 12020 ? MakePaperCurtain() : MakeShape(EShape::Curtain, inOptions.triangles);
    float top = -std::numeric_limits<float>::infinity();
    for (const Vec3f& p : mesh.positions)
        top = std::max(top, p.y());
    std::vector<std::uint8_t> pinned(mesh.positions.size());
    for (std::size_t i = 0; i < pinned.size(); ++i)
        pinned[i] = mesh.positions[i].y() >= top - 1e-5f ? 1 : 0;
    ClothSettings cloth;
    cloth.frames = inOptions.frames;
    auto start = Clock::now();
    const std::vector<std::vector<Vec3f>> frames =
        SimulateCloth(mesh.positions, mesh.triangles, pinned, cloth);
    curtain.simulationMs = MsSince(start);

    start = Clock::now();
    curtain.animation = ComputeAnimationBasis(frames, inOptions.modes);
    curtain.pcaMs = MsSince(start);
    ModelData data;
    data.positions = curtain.animation.rest;
    data.triangles = mesh.triangles;
    data.modeCount = inOptions.modes;
    data.basis = curtain.animation.basis;
    data.animation = curtain.animation.track;
    start = Clock::now();
    curtain.tree = std::make_shared<const BDTree>(BDTree::Build(Model::Create(std::move(data))));
    curtain.buildMs = MsSince(start);

    // The ball is thrown along +z, straight, through the lower middle of the cloth, where it moves most: it
    // crosses the curtain's mean plane there (the mean z of the frames' vertices) at the middle frame.
    float yLow = std::numeric_limits<float>::infinity(), yHigh = -yLow, xLow = yLow, xHigh = -yLow;
    double zSum = 0.0;
    for (const Vec3f& p : frames.front())
    {
        yLow = std::min(yLow, p.y());
        yHigh = std::max(yHigh, p.y());
        xLow = std::min(xLow, p.x());
        xHigh = std::max(xHigh, p.x());
    }
    for (const std::vector<Vec3f>& frame : frames)
        for (const Vec3f& p : frame)
            zSum += p.z();
    const Vec3d crossing(xLow + 0.55 * (xHigh - xLow), yLow + 0.3 * (yHigh - yLow),
                         zSum / double(frames.size() * frames.front().size()));
    const double middle = 0.5 * double(inOptions.frames - 1) / cloth.framesPerSecond;
    for (std::uint32_t f = 0; f < inOptions.frames; ++f)
    {
        const double t = double(f) / cloth.framesPerSecond - middle;
        curtain.balls.push_back({crossing + Vec3d(-0.05, 0.0, 1.0).normalized() * (inOptions.ballSpeed * t),
                                 inOptions.ballRadius});
    }
    return curtain;
}

std::span<const float> FrameQ(const Curtain& inCurtain, std::uint32_t inFrame)
{
    const std::uint32_t m = inCurtain.tree->ModeCount();
    return std::span<const float>(inCurtain.animation.track).subspan(std::size_t(inFrame) * m, m);
}

enum EMethod : int
{
    BDTreeMethod,
    LayeredMethod,
    AabbMethod,
    GImpactMethod,
    MethodCount
};
constexpr std::array<const char*, MethodCount> cMethodNames = {"BD-Tree", "layered spheres", "AABB tree",
                                                               "Bullet GImpact"};
constexpr std::array<const char*, MethodCount> cMethodKeys = {"bdtree", "layered", "aabb", "gimpact"};
constexpr std::array<std::size_t, MethodCount> cBytesPerVolume = {
    0, LayeredSphereTree::cBytesPerVolume, AabbTree::cBytesPerVolume, sizeof(BT_QUANTIZED_BVH_NODE)};

// The triangles the ball touches, by brute force over every triangle (double, `Model::DeformedPosition`),
// with their distance from the ball's centre for judging a disagreement.
struct Oracle
{
    std::vector<std::uint32_t> inside; ///< Sorted.
    std::vector<double> distance;      ///< Per triangle: centre-to-triangle distance, m.
};

Oracle BruteForce(const Model& inModel, std::span<const float> inQ, const Sphere& inBall)
{
    Oracle oracle;
    std::vector<Vec3d> vertices(inModel.VertexCount());
    for (std::size_t i = 0; i < vertices.size(); ++i)
        vertices[i] = inModel.DeformedPosition(i, inQ);
    oracle.distance.resize(inModel.TriangleCount());
    for (std::size_t k = 0; k < inModel.TriangleCount(); ++k)
    {
        const Triangle& t = inModel.Triangles()[k];
        const Vec3d corners[3] = {vertices[t[0]], vertices[t[1]], vertices[t[2]]};
        oracle.distance[k] = (ClosestPointOnTriangle(inBall.center, corners) - inBall.center).norm();
        if (TriangleSphereContact(corners, inBall))
            oracle.inside.push_back(std::uint32_t(k));
    }
    return oracle;
}

// Triangles found by one method but not by brute force or the reverse, not counting grazing ones (within
// 1e-5 m of the ball's surface, where float vertices and double vertices may decide either way).
std::uint64_t Disagreements(const Oracle& inOracle, std::vector<std::uint32_t> inFound, double inRadius)
{
    std::sort(inFound.begin(), inFound.end());
    std::vector<std::uint32_t> difference;
    std::set_symmetric_difference(inFound.begin(), inFound.end(), inOracle.inside.begin(),
                                  inOracle.inside.end(), std::back_inserter(difference));
    std::uint64_t real = 0;
    for (const std::uint32_t k : difference)
        real += std::abs(inOracle.distance[k] - inRadius) > 1e-5 ? 1 : 0;
    return real;
}

// The four methods over one curtain: each answers the ball query of a frame with its own structures.
class CurtainMethods
{
public:
    explicit CurtainMethods(const Curtain& inCurtain)
        : state(std::make_shared<const ContactProxies>(inCurtain.tree, inCurtain.tree->LevelCount() - 1)),
          layered(inCurtain.tree), mCurtain(inCurtain), mModel(inCurtain.tree->GetModel()), mAabb(inCurtain.tree),
          mGImpact(mModel), mVertices(mModel.VertexCount())
    {
    }

    /// One frame of one method: everything it does to answer the query at that frame. The triangles found are
    /// in `Found()` until the next frame.
    void Frame(int inMethod, std::uint32_t inFrame, QueryStats& ioStats)
    {
        const std::span<const float> q = FrameQ(mCurtain, inFrame);
        const Sphere& ball = mCurtain.balls[inFrame];
        mFound.clear();
        switch (inMethod)
        {
        case BDTreeMethod:
            if (!state.SetQ(q))
                throw Error("curtain: frame " + std::to_string(inFrame) + " has an invalid q");
            mContacts.clear();
            CollideTriangles(DeformedBody{&state, Pose::Identity(), 1.0, 0.0}, ball, mContacts, ioStats);
            for (const TriangleContact& contact : mContacts)
                mFound.push_back(contact.triangle);
            break;
        case LayeredMethod:
            DeformVertices(mModel, q, mVertices);
            layered.Refit(mVertices);
            layered.Query(ball, mVertices, mFound, ioStats);
            break;
        case AabbMethod:
            DeformVertices(mModel, q, mVertices);
            mAabb.Refit(mVertices);
            mAabb.Query(ball, mVertices, mFound, ioStats);
            break;
        default:
            DeformVertices(mModel, q, mVertices);
            mGImpact.Update(mVertices);
            mGImpact.QueryBall(ball, mVertices, mCandidates, mFound, ioStats);
            break;
        }
    }

    const std::vector<std::uint32_t>& Found() const { return mFound; }
    /// GImpact's box tests for the ball of a frame (its `Query` counts only the exact ones).
    std::uint64_t GImpactBallTests(const Sphere& inBall) const { return mGImpact.CountBallTests(inBall); }

    TreeState state;           ///< The BD-Tree method's body, at the last frame it answered.
    LayeredSphereTree layered; ///< The layered method's tree, refitted to the last frame it answered.

private:
    const Curtain& mCurtain;
    const Model& mModel;
    AabbTree mAabb;
    GImpactMesh mGImpact;
    std::vector<Vec3f> mVertices;
    std::vector<TriangleContact> mContacts;
    std::vector<std::uint32_t> mFound;
    btAlignedObjectArray<int> mCandidates;
};

// What the counting pass finds: each method's counts and wrong answers, the frames where the ball touches
// nothing and those where it touches the cloth, and the BD-Tree's mean radius growth.
struct CurtainCounts
{
    std::array<QueryStats, MethodCount> stats{};
    std::array<std::uint64_t, MethodCount> wrong{};
    std::vector<std::uint32_t> awayFrames, touchingFrames; // brute force finds no triangle / some
    double meanOverRest = 0.0;    // ⟨R'/R⟩: the BD-Tree radius at q_f over its rest radius
    double meanOverLayered = 0.0; // and over the refitted layered sphere of the same node and frame
};

// Counting pass: tests, answers against brute force, and the BD-Tree's radii.
CurtainCounts CountPass(const Curtain& inCurtain, CurtainMethods& ioMethods, const CurtainOptions& inOptions)
{
    const BDTree& tree = *inCurtain.tree;
    CurtainCounts counts;
    double growthSum = 0.0, overLayeredSum = 0.0;
    std::uint64_t radiusSamples = 0;
    for (std::uint32_t f = 0; f < inOptions.frames; ++f)
    {
        const Oracle oracle = BruteForce(tree.GetModel(), FrameQ(inCurtain, f), inCurtain.balls[f]);
        (oracle.inside.empty() ? counts.awayFrames : counts.touchingFrames).push_back(f);
        for (int method = 0; method < MethodCount; ++method)
        {
            ioMethods.Frame(method, f, counts.stats[method]);
            counts.wrong[method] += Disagreements(oracle, ioMethods.Found(), inOptions.ballRadius);
            if (method == GImpactMethod)
                counts.stats[method].overlapTests += ioMethods.GImpactBallTests(inCurtain.balls[f]);
        }
        // Every node: the state and the layered tree both hold frame f (their methods just ran).
        for (std::uint32_t node = 0; node < tree.NodeCount(); ++node)
        {
            const double deformed = double(ioMethods.state.Sphere(node).radius);
            const double rest = double(tree.Row(node)[3]);
            const double layeredRadius = ioMethods.layered.NodeSphere(node).radius;
            if (rest > 0.0 && layeredRadius > 0.0)
            {
                growthSum += deformed / rest;
                overLayeredSum += deformed / layeredRadius;
                ++radiusSamples;
            }
        }
    }
    counts.meanOverRest = growthSum / double(std::max<std::uint64_t>(1, radiusSamples));
    counts.meanOverLayered = overLayeredSum / double(std::max<std::uint64_t>(1, radiusSamples));
    return counts;
}

// Timed passes over `inFrames`: every method runs them once per repeat, the methods interleaved so that a slow
// moment of the machine falls on all of them. The median ms of each method (0 without frames).
std::array<double, MethodCount> TimePasses(CurtainMethods& ioMethods, const std::vector<std::uint32_t>& inFrames,
                                           std::uint32_t inRepeats)
{
    std::array<std::vector<double>, MethodCount> passMs;
    for (std::uint32_t r = 0; r < inRepeats; ++r)
        for (int k = 0; k < MethodCount; ++k)
        {
            const int method = int((k + r) % MethodCount);
            QueryStats ignored;
            const auto start = Clock::now();
            for (const std::uint32_t f : inFrames)
                ioMethods.Frame(method, f, ignored);
            passMs[method].push_back(MsSince(start));
        }
    std::array<double, MethodCount> medians{};
    for (int method = 0; method < MethodCount; ++method)
        medians[method] = inFrames.empty() ? 0.0 : Median(passMs[method]);
    return medians;
}

// Each frame timed on its own (median over the repeats): the time along the animation. Separate passes, so the
// timer's own cost (tens of ns a frame) stays out of the totals.
std::array<std::vector<double>, MethodCount> FrameSeries(CurtainMethods& ioMethods, std::uint32_t inFrames,
                                                         std::uint32_t inRepeats)
{
    std::array<std::vector<std::vector<double>>, MethodCount> samples;
    for (auto& method : samples)
        method.assign(inFrames, {});
    for (std::uint32_t r = 0; r < inRepeats; ++r)
        for (int k = 0; k < MethodCount; ++k)
        {
            const int method = int((k + r) % MethodCount);
            QueryStats ignored;
            for (std::uint32_t f = 0; f < inFrames; ++f)
            {
                const auto start = Clock::now();
                ioMethods.Frame(method, f, ignored);
                samples[method][f].push_back(MsSince(start));
            }
        }
    std::array<std::vector<double>, MethodCount> seriesMs;
    for (int method = 0; method < MethodCount; ++method)
        for (std::uint32_t f = 0; f < inFrames; ++f)
            seriesMs[method].push_back(Median(samples[method][f]));
    return seriesMs;
}

// Writes the per-frame series as a table for gnuplot: frame, each method's ms, 1 where the ball touches. False
// (with the error printed) if it cannot.
bool WriteSeries(const std::string& inPath, const std::array<std::vector<double>, MethodCount>& inSeriesMs,
                 const std::vector<std::uint32_t>& inTouchingFrames, std::uint32_t inRepeats)
{
    const std::size_t frames = inSeriesMs[BDTreeMethod].size();
    std::vector<std::vector<double>> rows(frames);
    for (std::size_t f = 0; f < frames; ++f)
        rows[f] = {double(f), inSeriesMs[BDTreeMethod][f], inSeriesMs[LayeredMethod][f], inSeriesMs[AabbMethod][f],
                   inSeriesMs[GImpactMethod][f], 0.0};
    for (const std::uint32_t f : inTouchingFrames)
        rows[f].back() = 1.0;
    return WriteTable(inPath,
                      "frame, ms per frame (median of " + std::to_string(inRepeats) +
                          ") for BD-Tree, layered spheres, AABB tree, Bullet GImpact; 1 where the ball touches the "
                          "cloth",
                      rows);
}

int RunCurtain(const CurtainOptions& inOptions)
{
    const Curtain curtain = MakeCurtain(inOptions);
    const BDTree& tree = *curtain.tree;
    const Model& model = tree.GetModel();
    const std::uint32_t frames = inOptions.frames;
    std::printf(
        "curtain: %zu vertices, %zu triangles, M = %u, %u nodes, %u levels; %u frames (cloth simulation "
        "%.0f ms, PCA %.0f ms: %.4f of the variance kept, max error %.2f mm; tree %.0f ms); ball radius "
        "%.2f m, thrown at %.1f m/s\n",
        model.VertexCount(), model.TriangleCount(), tree.ModeCount(), tree.NodeCount(), tree.LevelCount(),
        frames, curtain.simulationMs, curtain.pcaMs, curtain.animation.energyKept,
        1e3 * curtain.animation.maxError, curtain.buildMs, inOptions.ballRadius, inOptions.ballSpeed);

    CurtainMethods methods(curtain);
    const CurtainCounts counts = CountPass(curtain, methods, inOptions);
    // The whole animation, then the frames where the ball touches nothing and those where it touches the
    // cloth: the BD-Tree's cost follows the answer's size (§4), a refit's does not.
    std::vector<std::uint32_t> allFrames(frames);
    std::iota(allFrames.begin(), allFrames.end(), 0u);
    const std::array<double, MethodCount> totalMs = TimePasses(methods, allFrames, inOptions.repeats);
    const std::array<double, MethodCount> awayMs = TimePasses(methods, counts.awayFrames, inOptions.repeats);
    const std::array<double, MethodCount> touchingMs = TimePasses(methods, counts.touchingFrames, inOptions.repeats);
    const auto perFrame = [](double inMs, std::size_t inFrames) { return inFrames == 0 ? 0.0 : inMs / double(inFrames); };
    const std::array<std::vector<double>, MethodCount> frameSeriesMs = FrameSeries(methods, frames, inOptions.repeats);

    nlohmann::json report = {
        {"scenario", "curtain"},
        {"vertices", model.VertexCount()},
        {"triangles", model.TriangleCount()},
        {"modes", tree.ModeCount()},
        {"nodes", tree.NodeCount()},
        {"levels", tree.LevelCount()},
        {"frames", frames},
        {"frames_touching", counts.touchingFrames.size()},
        {"repeats", inOptions.repeats},
        {"ball_radius_m", inOptions.ballRadius},
        {"ball_speed_m_per_s", inOptions.ballSpeed},
        {"pca_energy_kept", curtain.animation.energyKept},
        {"pca_max_error_m", curtain.animation.maxError},
        {"bdtree_mean_radius_over_rest", counts.meanOverRest},
        {"bdtree_mean_radius_over_layered", counts.meanOverLayered}};
    const double bdFrameMs = totalMs[BDTreeMethod] / frames;
    const double bdAwayMs = perFrame(awayMs[BDTreeMethod], counts.awayFrames.size());
    const double bdTouchingMs = perFrame(touchingMs[BDTreeMethod], counts.touchingFrames.size());
    std::printf(
        "ball touches the curtain in %zu of %u frames; <R'/R> = %.3f (BD-Tree radius over rest radius, "
        "every node and frame), %.3f over the layered sphere's\n",
        counts.touchingFrames.size(), frames, double(report["bdtree_mean_radius_over_rest"]),
        double(report["bdtree_mean_radius_over_layered"]));
    std::printf("%-16s %8s %9s %6s %9s %11s %9s %11s %9s %11s %9s %8s %5s\n", "method", "tests", "tri tests",
                "found", "total ms", "ms / frame", "x BD-Tree", "away ms/f", "x BD-Tree", "touch ms/f", "x BD-Tree",
                "B per BV", "wrong");
    bool failed = false;
    for (int method = 0; method < MethodCount; ++method)
    {
        const double frameMs = totalMs[method] / frames;
        const double awayFrameMs = perFrame(awayMs[method], counts.awayFrames.size());
        const double touchingFrameMs = perFrame(touchingMs[method], counts.touchingFrames.size());
        std::printf("%-16s %8llu %9llu %6llu %9.3f %11.6f %9.1f %11.6f %9.1f %11.6f %9.1f %8zu %5llu\n",
                    cMethodNames[method], static_cast<unsigned long long>(counts.stats[method].overlapTests),
                    static_cast<unsigned long long>(counts.stats[method].triangleTests),
                    static_cast<unsigned long long>(counts.stats[method].contacts), totalMs[method], frameMs,
                    frameMs / bdFrameMs, awayFrameMs, bdAwayMs > 0.0 ? awayFrameMs / bdAwayMs : 0.0, touchingFrameMs,
                    bdTouchingMs > 0.0 ? touchingFrameMs / bdTouchingMs : 0.0,
                    method == BDTreeMethod ? std::size_t(4 * tree.RowStride()) : cBytesPerVolume[method],
                    static_cast<unsigned long long>(counts.wrong[method]));
        report[cMethodKeys[method]] = {
            {"overlap_tests", counts.stats[method].overlapTests},
            {"triangle_tests", counts.stats[method].triangleTests},
            {"triangles_found", counts.stats[method].contacts},
            {"total_ms_median", totalMs[method]},
            {"frame_ms", frameMs},
            {"frame_ratio_to_bdtree", frameMs / bdFrameMs},
            {"away_frame_ms", awayFrameMs},
            {"away_frame_ratio_to_bdtree", bdAwayMs > 0.0 ? awayFrameMs / bdAwayMs : 0.0},
            {"touching_frame_ms", touchingFrameMs},
            {"touching_frame_ratio_to_bdtree", bdTouchingMs > 0.0 ? touchingFrameMs / bdTouchingMs : 0.0},
            {"wrong_answers", counts.wrong[method]},
            {"frame_ms_series", frameSeriesMs[method]}};
        // A miss by GImpact is Bullet's: reported in `wrong`, not failed.
        failed = failed || (method != GImpactMethod && counts.wrong[method] != 0);
    }
    const double testRatio =
        double(counts.stats[BDTreeMethod].overlapTests) / double(counts.stats[LayeredMethod].overlapTests);
    report["bdtree_over_layered_tests"] = testRatio;
    std::printf("layered refit / BD-Tree per frame: %.0fx; BD-Tree tests / layered tests: %.2f\n",
                double(report["layered"]["frame_ratio_to_bdtree"]), testRatio);
    if (failed)
        std::fprintf(stderr, "error: curtain: a method's answer differs from brute force (column 'wrong')\n");
    else
        std::printf("every frame's answer of BD-Tree, layered and AABB matches brute force\n");
    if (!inOptions.series.empty() && !WriteSeries(inOptions.series, frameSeriesMs, counts.touchingFrames, inOptions.repeats))
        return 1;
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return failed ? 1 : 0;
}

const bool sRegistered = RegisterScenario(
    "curtain",
    "the paper's Table 2: a ball through a PCA-compressed cloth animation; BD-Tree vs layered, AABB and "
    "GImpact refits",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<CurtainOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--triangles", options->triangles,
                       "Curtain triangle count (the paper: 12020)", 8u, 2000000u);
        AddRangeOption(ioCommand, "--frames", options->frames, "Animation frames at 30 FPS (the paper: 110)",
                       2u, 100000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "PCA components M (the paper: 12)", 1u, 200u);
        AddRangeOption(ioCommand, "--repeats", options->repeats,
                       "Timed passes over the animation per method (median)", 1u, 100000u);
        AddRangeOption(ioCommand, "--ball-radius", options->ballRadius, "Ball radius, m", 1e-3, 10.0);
        ioCommand.add_option("--series", options->series,
                             "Write each frame's time per method to this file (a table for gnuplot)");
        AddRangeOption(ioCommand, "--ball-speed", options->ballSpeed, "Ball speed, m/s", 0.0, 1000.0);
        return [options] { return RunCurtain(*options); };
    });

} // namespace
} // namespace bdt::bench
