// `bdt-bench bounds`: the Distance Hierarchy paper's comparison (Madera, Day & Laycock 2007, §3.2–4) with the
// BD-Tree's own bound kinds. Eight deforming pawns of about 7k triangles pressing into each other for 100
// steps; the same hierarchy (the BD-Tree's median split, traversed to one level) bounded three ways:
// spheres updated from q (BD-Tree, §3.2), boxes updated from q (BD-AABB, §3.5), and the Distance Hierarchy
// (central vertex and radius recomputed from the deformed vertices). Reported per kind as in the paper's
// cost model T = N_V C_V + N_U C_U (its eq. 4): overlap tests, bounds updated, the cost of one update, bytes
// per bounding volume and the total time. Every step's answer is checked against the exact triangle pairs.
#include "Scenario.h"
#include "reference/DeformVertices.h"
#include "reference/VertexRefitRegions.h"

#include "core/queries/RegionTraversal.h"

#include <algorithm>
#include <array>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/queries/TreeQueries.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <type_traits>

namespace bdt::bench
{
namespace
{

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point inStart)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - inStart).count();
}

struct BoundsOptions
{
    std::string json;
    std::uint32_t pawns = 8;
    std::uint32_t triangles = 6976; ///< The paper's pawn.
    std::uint32_t modes = 10;
    std::uint32_t steps = 100;
    std::vector<std::uint32_t> levels = {4, 9}; ///< Region levels (the traversal's depth), one table each.
    double amplitude = 0.02;                    ///< Largest displacement per mode, m.
    std::uint32_t repeats = 7;
};

// The bound kinds: the three the issue compares, then the Distance Hierarchy paper's own baselines (spheres
// and boxes refitted from the deformed vertices) so that its result can be checked on the same scene.
enum EKind : int
{
    SphereKind,
    BoxKind,
    DistanceKind,
    RefitSphereKind,
    RefitBoxKind,
    KindCount
};
constexpr std::array<const char*, KindCount> cKindNames = {
    "BD-Tree spheres", "BD-AABB boxes", "Distance Hierarchy", "refitted spheres", "refitted boxes"};
constexpr std::array<const char*, KindCount> cKindKeys = {"spheres", "boxes", "distance_hierarchy",
                                                          "refit_spheres", "refit_boxes"};
// Kinds that read the deformed vertices (and so need them made first, unless the simulation gives them).
constexpr bool FromVertices(int inKind)
{
    return inKind >= DistanceKind;
}

// One pawn's motion: where it stands and how it deforms at each step.
struct PawnMotion
{
    std::vector<Pose> poses; ///< Per step.
    std::vector<float> q;    ///< Per step, step-major, M each.
};

// The pawns stand on a ring that closes and opens again: neighbours' rest frames' centres go from 0.73 m
// apart to 0.54 m at the middle step, so their bases (0.60 m across) press up to 6 cm into each other (for 8
// pawns the ring's radius goes from 0.95 m to 0.70 m); each spins about its axis and rocks
// by up to 8 degrees (so box axes differ between pawns), and each mode oscillates with its own frequency and
// phase (largest displacement `amplitude` per mode). Deterministic.
std::vector<PawnMotion> MakeMotions(const BoundsOptions& inOptions, const Vec3d& inRestCentre)
{
    std::vector<PawnMotion> motions(inOptions.pawns);
    const double pi = 3.14159265358979323846;
    for (std::uint32_t p = 0; p < inOptions.pawns; ++p)
    {
        PawnMotion& motion = motions[p];
        const double angle = 2.0 * pi * p / inOptions.pawns;
        for (std::uint32_t s = 0; s < inOptions.steps; ++s)
        {
            const double t = double(s) / std::max(1u, inOptions.steps - 1); // 0..1
            const double spacing = 0.73 - 0.19 * std::pow(std::sin(pi * t), 2.0);
            const double ring = spacing / (2.0 * std::sin(pi / inOptions.pawns));
            const Mat3d spin =
                Eigen::AngleAxisd(angle + 1.3 * t * (p % 2 ? 1.0 : -1.0), Vec3d::UnitY()).toRotationMatrix();
            const Mat3d rock = Eigen::AngleAxisd(0.14 * std::sin(2.0 * pi * (t + 0.13 * p)), Vec3d::UnitX())
                                   .toRotationMatrix();
            Pose pose;
            pose.rotation = spin * rock;
            pose.translation =
                Vec3d(ring * std::cos(angle), 0.0, ring * std::sin(angle)) - pose.rotation * inRestCentre;
            motion.poses.push_back(pose);
            for (std::uint32_t j = 0; j < inOptions.modes; ++j)
                motion.q.push_back(float(inOptions.amplitude *
                                         std::sin(2.0 * pi * (1.0 + 0.37 * j) * t + 0.9 * p + 1.7 * j)));
        }
    }
    return motions;
}

// Everything one level's comparison needs for one pawn.
struct PawnRegions
{
    SphereRegions spheres;
    BoxRegions boxes;
    DistanceRegions distances;
    RefitSphereRegions refitSpheres;
    RefitBoxRegions refitBoxes;
    std::vector<Vec3f> deformed; ///< This step's vertices, rest frame (the vertex-based kinds' input).

    /// Calls `inCall` with this pawn's regions of kind `inKind`.
    template <class Call> void With(int inKind, Call&& inCall)
    {
        switch (inKind)
        {
        case SphereKind:
            inCall(spheres);
            break;
        case BoxKind:
            inCall(boxes);
            break;
        case DistanceKind:
            inCall(distances);
            break;
        case RefitSphereKind:
            inCall(refitSpheres);
            break;
        default:
            inCall(refitBoxes);
            break;
        }
    }
};

// Starts a step: from q for the BD kinds, from the deformed vertices for the others.
bool StartStep(SphereRegions& ioRegions, std::span<const float> inQ, std::span<const Vec3f>,
               const Pose& inPose)
{
    return ioRegions.SetStep(inQ, inPose);
}
bool StartStep(BoxRegions& ioRegions, std::span<const float> inQ, std::span<const Vec3f>, const Pose& inPose)
{
    return ioRegions.SetStep(inQ, inPose);
}
template <class Bound>
bool StartStep(VertexRegionBounds<Bound>& ioRegions, std::span<const float>,
               std::span<const Vec3f> inVertices, const Pose& inPose)
{
    return ioRegions.SetStep(inVertices, inPose);
}

// The size of a bound, read by the update timing so that no update is optimised away.
double SizeOf(const WorldBall& inBall)
{
    return inBall.radius;
}
double SizeOf(const WorldBox& inBox)
{
    return inBox.halfExtents.x();
}

// The region (node at the level, or leaf above it) of each tree triangle.
std::vector<std::uint32_t> RegionOfTriangles(const SphereRegions& inRegions)
{
    const BDTree& tree = inRegions.Tree();
    std::vector<std::uint32_t> region(tree.GetModel().TriangleCount());
    for (std::uint32_t node = 0; node < tree.NodeCount(); ++node)
        if (tree.Node(node).level <= inRegions.Level() && inRegions.IsRegion(node))
            for (std::uint32_t t = 0; t < tree.Node(node).triangleCount; ++t)
                region[tree.Node(node).firstTriangle + t] = node;
    return region;
}

// What every level's measurement shares: the pawns' tree and its other bounds, the pawns' motions and the exact
// answer of every step.
struct BoundsSetup
{
    explicit BoundsSetup(const BoundsOptions& inOptions) : options(inOptions) {}

    const BoundsOptions& options;
    std::shared_ptr<const BDTree> tree;
    std::shared_ptr<const BDAabbTree> boxes;
    std::shared_ptr<const DistanceHierarchy> hierarchy;
    std::vector<PawnMotion> motions;
    std::vector<std::vector<std::array<std::uint32_t, 4>>> exact; // per step: pawn A, pawn B, tri A, tri B

    const Model& GetModel() const { return tree->GetModel(); }
    std::span<const float> Q(std::uint32_t inPawn, std::uint32_t inStep) const
    {
        const std::uint32_t m = tree->ModeCount();
        return std::span<const float>(motions[inPawn].q).subspan(std::size_t(inStep) * m, m);
    }
};

// The exact answer of every step: the intersecting deformed triangle pairs of every pawn pair (the library's
// exact leaf traversal, itself checked against all-pairs brute force in tests/core).
std::vector<std::vector<std::array<std::uint32_t, 4>>> ExactContacts(const BoundsSetup& inSetup)
{
    const BoundsOptions& options = inSetup.options;
    std::vector<std::vector<std::array<std::uint32_t, 4>>> exact(options.steps);
    const auto leaves = std::make_shared<const ContactProxies>(inSetup.tree, inSetup.tree->LevelCount() - 1);
    std::vector<TreeState> states(options.pawns, TreeState(leaves));
    std::vector<TrianglePair> pairs;
    QueryStats ignored;
    for (std::uint32_t s = 0; s < options.steps; ++s)
    {
        for (std::uint32_t p = 0; p < options.pawns; ++p)
            if (!states[p].SetQ(inSetup.Q(p, s)))
                throw Error("bounds: step " + std::to_string(s) + " has an invalid q");
        for (std::uint32_t a = 0; a < options.pawns; ++a)
            for (std::uint32_t b = a + 1; b < options.pawns; ++b)
            {
                pairs.clear();
                CollideTriangles({&states[a], inSetup.motions[a].poses[s]}, {&states[b], inSetup.motions[b].poses[s]},
                                 pairs, ignored);
                for (const TrianglePair& pair : pairs)
                    exact[s].push_back({a, b, pair.triangleA, pair.triangleB});
            }
    }
    return exact;
}

// One region level's pawns, each with its bounds of every kind.
class LevelPawns
{
public:
    LevelPawns(const BoundsSetup& inSetup, std::uint32_t inLevel) : mSetup(inSetup)
    {
        const Model& model = inSetup.GetModel();
        for (std::uint32_t p = 0; p < inSetup.options.pawns; ++p)
            mPawns.push_back({SphereRegions(inSetup.tree, inLevel), BoxRegions(inSetup.boxes, inLevel),
                              DistanceRegions(inSetup.hierarchy, inLevel), RefitSphereRegions(inSetup.hierarchy, inLevel),
                              RefitBoxRegions(inSetup.hierarchy, inLevel), std::vector<Vec3f>(model.VertexCount())});
        regionLevel = mPawns[0].spheres.Level();
        visitable = inSetup.tree->LevelEnd(regionLevel);
        for (std::uint32_t node = 0; node < visitable; ++node)
            regionCount += mPawns[0].spheres.IsRegion(node) ? 1 : 0;
        regionOf = RegionOfTriangles(mPawns[0].spheres);
    }

    /// One step of one kind: start the step on every pawn (the vertex-based kinds first deform the vertices,
    /// unless `inVerticesGiven`) and collide every pair of pawns.
    void Step(int inKind, std::uint32_t inStep, bool inVerticesGiven, RegionStats& ioStats,
              std::vector<std::set<std::array<std::uint32_t, 4>>>* outFound)
    {
        const std::uint32_t pawns = mSetup.options.pawns;
        for (std::uint32_t p = 0; p < pawns; ++p)
        {
            PawnRegions& pawn = mPawns[p];
            if (FromVertices(inKind) && !inVerticesGiven)
                DeformVertices(mSetup.GetModel(), mSetup.Q(p, inStep), pawn.deformed);
            pawn.With(inKind,
                      [&](auto& ioRegions)
                      {
                          if (!StartStep(ioRegions, mSetup.Q(p, inStep), pawn.deformed, mSetup.motions[p].poses[inStep]))
                              throw Error("bounds: step " + std::to_string(inStep) + " was refused");
                      });
        }
        for (std::uint32_t a = 0; a < pawns; ++a)
            for (std::uint32_t b = a + 1; b < pawns; ++b)
            {
                mFound.clear();
                mPawns[a].With(inKind,
                               [&](auto& ioA)
                               {
                                   mPawns[b].With(inKind,
                                                  [&](auto& ioB)
                                                  {
                                                      if constexpr (std::is_same_v<decltype(ioA), decltype(ioB)>)
                                                          CollideRegions(ioA, ioB, mFound, ioStats);
                                                  });
                               });
                if (outFound != nullptr)
                    for (const RegionPair& pair : mFound)
                        (*outFound)[inStep].insert({a, b, pair.nodeA, pair.nodeB});
            }
    }

    /// Deforms every pawn's vertices to step `inStep` (for the vertex-based kinds' "vertices given" passes).
    void DeformVerticesAt(std::uint32_t inStep)
    {
        for (std::uint32_t p = 0; p < mSetup.options.pawns; ++p)
            DeformVertices(mSetup.GetModel(), mSetup.Q(p, inStep), mPawns[p].deformed);
    }

    /// The bounds of one kind updated so far, over all pawns.
    std::uint64_t Updates(int inKind)
    {
        std::uint64_t updates = 0;
        for (PawnRegions& pawn : mPawns)
            pawn.With(inKind, [&](auto& inRegions) { updates += inRegions.Updates(); });
        return updates;
    }

    /// The median cost of one update (C_U) of each kind, ns: every node the traversal can visit, updated once
    /// per pawn and tenth step (the vertices given), divided by the updates.
    std::array<double, KindCount> UpdateCostNs()
    {
        std::array<std::vector<double>, KindCount> samples;
        for (std::uint32_t r = 0; r < mSetup.options.repeats; ++r)
            for (int kind = 0; kind < KindCount; ++kind)
            {
                double ms = 0.0;
                std::uint64_t count = 0;
                for (std::uint32_t s = 0; s < mSetup.options.steps; s += 10)
                    for (std::uint32_t p = 0; p < mSetup.options.pawns; ++p)
                    {
                        ms += TimeOneUpdate(kind, p, s);
                        count += visitable;
                    }
                samples[kind].push_back(1e6 * ms / double(count));
            }
        std::array<double, KindCount> updateNs{};
        for (int kind = 0; kind < KindCount; ++kind)
            updateNs[kind] = Median(samples[kind]);
        return updateNs;
    }

    std::uint32_t regionLevel = 0;
    std::uint32_t visitable = 0;
    std::uint32_t regionCount = 0;
    std::vector<std::uint32_t> regionOf; ///< Each triangle's region at this level.

private:
    // ms to start step `inStep` of pawn `inPawn` with bounds of `inKind` and read every visitable bound.
    double TimeOneUpdate(int inKind, std::uint32_t inPawn, std::uint32_t inStep)
    {
        PawnRegions& pawn = mPawns[inPawn];
        if (FromVertices(inKind))
            DeformVertices(mSetup.GetModel(), mSetup.Q(inPawn, inStep), pawn.deformed);
        double ms = 0.0;
        pawn.With(inKind,
                  [&](auto& ioRegions)
                  {
                      const auto go = Clock::now();
                      double sum = 0.0; // every bound is read so that no update is optimised away
                      if (StartStep(ioRegions, mSetup.Q(inPawn, inStep), pawn.deformed,
                                    mSetup.motions[inPawn].poses[inStep]))
                          for (std::uint32_t node = 0; node < visitable; ++node)
                              sum += SizeOf(ioRegions.Bound(node));
                      ms = MsSince(go);
                      if (!(sum > 0.0))
                          throw Error("bounds: an update gave no positive size");
                  });
        return ms;
    }

    const BoundsSetup& mSetup;
    std::vector<PawnRegions> mPawns;
    std::vector<RegionPair> mFound;
};

// The counting pass of every kind, with the check: every exact triangle pair lies under a region pair of the
// kind (`outMisses` counts those that do not).
void CountPass(const BoundsSetup& inSetup, LevelPawns& ioLevel, std::array<RegionStats, KindCount>& outStats,
               std::array<std::uint64_t, KindCount>& outUpdates, std::array<std::uint64_t, KindCount>& outMisses)
{
    const std::uint32_t steps = inSetup.options.steps;
    for (int kind = 0; kind < KindCount; ++kind)
    {
        const std::uint64_t before = ioLevel.Updates(kind);
        std::vector<std::set<std::array<std::uint32_t, 4>>> reported(steps);
        for (std::uint32_t s = 0; s < steps; ++s)
            ioLevel.Step(kind, s, false, outStats[kind], &reported);
        outUpdates[kind] = ioLevel.Updates(kind) - before;
        for (std::uint32_t s = 0; s < steps; ++s)
            for (const auto& [a, b, ta, tb] : inSetup.exact[s])
                outMisses[kind] += reported[s].count({a, b, ioLevel.regionOf[ta], ioLevel.regionOf[tb]}) ? 0 : 1;
    }
}

// Timed passes over all steps, kinds interleaved: the median ms of each column. The vertex-based kinds twice:
// deforming the vertices themselves (what they cost a reduced model), then with the vertices given (the paper's
// setting, where the simulation produces them anyway); column KindCount + k is kind k with vertices given.
constexpr int cColumns = 2 * KindCount;
std::array<double, cColumns> TimedPassMs(const BoundsSetup& inSetup, LevelPawns& ioLevel)
{
    const BoundsOptions& options = inSetup.options;
    std::array<std::vector<double>, cColumns> passMs;
    for (std::uint32_t r = 0; r < options.repeats; ++r)
        for (int k = 0; k < cColumns; ++k)
        {
            const int column = int((k + r) % cColumns);
            const int kind = column % KindCount;
            const bool given = column >= KindCount;
            if (given && !FromVertices(kind))
                continue;
            double ms = 0.0;
            for (std::uint32_t s = 0; s < options.steps; ++s)
            {
                if (given)
                    ioLevel.DeformVerticesAt(s); // given: deformed outside the timed part
                RegionStats ignored;
                const auto go = Clock::now();
                ioLevel.Step(kind, s, given, ignored, nullptr);
                ms += MsSince(go);
            }
            passMs[column].push_back(ms);
        }
    std::array<double, cColumns> totalMs{};
    for (int column = 0; column < cColumns; ++column)
        totalMs[column] = passMs[column].empty() ? 0.0 : Median(passMs[column]);
    return totalMs;
}

// Prints one level's table and adds it to the report. Returns whether a kind missed an exact contact.
bool ReportLevel(const BoundsSetup& inSetup, const LevelPawns& inLevel, const std::array<RegionStats, KindCount>& inStats,
                 const std::array<std::uint64_t, KindCount>& inUpdates,
                 const std::array<std::uint64_t, KindCount>& inMisses, const std::array<double, KindCount>& inUpdateNs,
                 const std::array<double, cColumns>& inTotalMs, nlohmann::json& ioReport)
{
    bool failed = false;
    // Bytes: the updated bound itself (what the papers count), and the shared data each update reads.
    const double vertexListBytes = double(inSetup.hierarchy->VertexListBytes()) / inSetup.tree->NodeCount();
    const std::array<std::size_t, KindCount> boundBytes = {sizeof(float) * 4, sizeof(float) * 6,
                                                           sizeof(DistanceRegion), sizeof(float) * 4,
                                                           sizeof(float) * 6};
    const std::array<double, KindCount> sharedBytesPerNode = {
        double(4 * inSetup.tree->RowStride()), double(4 * inSetup.boxes->RowStride()), vertexListBytes, vertexListBytes,
        vertexListBytes};

    std::printf("\nlevel %u: %u regions a pawn (%.1f triangles each), %u nodes visitable\n", inLevel.regionLevel,
                inLevel.regionCount, double(inSetup.GetModel().TriangleCount()) / inLevel.regionCount, inLevel.visitable);
    std::printf("%-19s %9s %9s %8s %9s %9s %9s %10s %9s %8s %8s %6s\n", "bound", "tests", "updates",
                "pairs", "ns/update", "total ms", "x spheres", "given ms", "x spheres", "B per BV",
                "shared B", "missed");
    nlohmann::json levelReport = {
        {"level", inLevel.regionLevel}, {"regions", inLevel.regionCount}, {"visitable_nodes", inLevel.visitable}};
    for (int kind = 0; kind < KindCount; ++kind)
    {
        const double givenMs = inTotalMs[KindCount + kind];
        char given[2][16] = {"", ""};
        if (FromVertices(kind))
        {
            std::snprintf(given[0], sizeof(given[0]), "%.3f", givenMs);
            std::snprintf(given[1], sizeof(given[1]), "%.2f", givenMs / inTotalMs[SphereKind]);
        }
        std::printf("%-19s %9llu %9llu %8llu %9.1f %9.3f %9.2f %10s %9s %8zu %8.0f %6llu\n",
                    cKindNames[kind], static_cast<unsigned long long>(inStats[kind].overlapTests),
                    static_cast<unsigned long long>(inUpdates[kind]),
                    static_cast<unsigned long long>(inStats[kind].regionPairs), inUpdateNs[kind],
                    inTotalMs[kind], inTotalMs[kind] / inTotalMs[SphereKind], given[0], given[1],
                    boundBytes[kind], sharedBytesPerNode[kind],
                    static_cast<unsigned long long>(inMisses[kind]));
        levelReport[cKindKeys[kind]] = {{"overlap_tests", inStats[kind].overlapTests},
                                        {"updates", inUpdates[kind]},
                                        {"region_pairs", inStats[kind].regionPairs},
                                        {"ns_per_update", inUpdateNs[kind]},
                                        {"total_ms_median", inTotalMs[kind]},
                                        {"total_ratio_to_spheres", inTotalMs[kind] / inTotalMs[SphereKind]},
                                        {"bytes_per_bound", boundBytes[kind]},
                                        {"shared_bytes_per_node", sharedBytesPerNode[kind]},
                                        {"missed_contacts", inMisses[kind]}};
        if (FromVertices(kind))
        {
            levelReport[cKindKeys[kind]]["total_ms_vertices_given"] = givenMs;
            levelReport[cKindKeys[kind]]["total_ratio_to_spheres_vertices_given"] =
                givenMs / inTotalMs[SphereKind];
        }
        failed = failed || inMisses[kind] != 0;
    }
    ioReport["levels"].push_back(levelReport);
    return failed;
}

int RunBounds(const BoundsOptions& inOptions)
{
    BoundsSetup setup(inOptions);
    const ShapeMesh mesh = MakeShape(EShape::Pawn, inOptions.triangles);
    auto start = Clock::now();
    setup.tree = std::make_shared<const BDTree>(
        BDTree::Build(MakeSmoothModel(mesh.positions, mesh.triangles, inOptions.modes)));
    const double treeMs = MsSince(start);
    start = Clock::now();
    setup.boxes = std::make_shared<const BDAabbTree>(BDAabbTree::Build(setup.tree));
    const double boxMs = MsSince(start);
    start = Clock::now();
    setup.hierarchy = std::make_shared<const DistanceHierarchy>(DistanceHierarchy::Build(setup.tree));
    const double hierarchyMs = MsSince(start);
    const Model& model = setup.GetModel();
    const std::uint32_t m = setup.tree->ModeCount();
    std::printf(
        "bounds: %u pawns of %zu vertices, %zu triangles, M = %u, %u nodes, %u levels; %u steps, up to "
        "%.0f mm a mode (build: tree %.0f ms, boxes %.0f ms, distance hierarchy %.0f ms)\n",
        inOptions.pawns, model.VertexCount(), model.TriangleCount(), m, setup.tree->NodeCount(),
        setup.tree->LevelCount(), inOptions.steps, 1e3 * inOptions.amplitude, treeMs, boxMs, hierarchyMs);

    setup.motions = MakeMotions(inOptions, model.RestBounds().center().cast<double>());
    setup.exact = ExactContacts(setup);
    std::size_t exactPairs = 0, touchingSteps = 0;
    for (const auto& step : setup.exact)
    {
        exactPairs += step.size();
        touchingSteps += step.empty() ? 0 : 1;
    }
    std::printf("exact contacts: %zu intersecting triangle pairs over %zu of %u steps\n", exactPairs,
                touchingSteps, inOptions.steps);

    nlohmann::json report = {{"scenario", "bounds"},
                             {"pawns", inOptions.pawns},
                             {"vertices", model.VertexCount()},
                             {"triangles", model.TriangleCount()},
                             {"modes", m},
                             {"nodes", setup.tree->NodeCount()},
                             {"steps", inOptions.steps},
                             {"amplitude_m", inOptions.amplitude},
                             {"exact_triangle_pairs", exactPairs},
                             {"levels", nlohmann::json::array()}};
    bool failed = false;
    for (const std::uint32_t level : inOptions.levels)
    {
        LevelPawns pawns(setup, level);
        std::array<RegionStats, KindCount> stats{};
        std::array<std::uint64_t, KindCount> updates{}, misses{};
        CountPass(setup, pawns, stats, updates, misses);
        const std::array<double, KindCount> updateNs = pawns.UpdateCostNs();
        const std::array<double, cColumns> totalMs = TimedPassMs(setup, pawns);
        failed = ReportLevel(setup, pawns, stats, updates, misses, updateNs, totalMs, report) || failed;
    }

    if (failed)
        std::fprintf(stderr, "error: bounds: a bound kind missed an exact contact (column 'missed')\n");
    else
        std::printf("\nevery exact contact lies under a reported region pair of every bound kind\n");
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return failed ? 1 : 0;
}

const bool sRegistered = RegisterScenario(
    "bounds",
    "the Distance Hierarchy paper's comparison: eight deforming pawns, BD-Tree spheres vs BD-AABB boxes vs "
    "Distance Hierarchy",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<BoundsOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--pawns", options->pawns, "Pawns on the ring (the paper: 8)", 2u, 64u);
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Triangles a pawn (the paper: 6976)",
                       100u, 2000000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "Smooth displacement fields M", 1u, 200u);
        AddRangeOption(ioCommand, "--steps", options->steps, "Steps (the paper: 100)", 2u, 100000u);
        AddRangeOption(ioCommand, "--levels", options->levels, "Region levels, one table each", 0u, 64u);
        AddRangeOption(ioCommand, "--amplitude", options->amplitude, "Largest displacement per mode, m", 0.0,
                       1.0);
        AddRangeOption(ioCommand, "--repeats", options->repeats, "Timed passes per kind (median)", 1u,
                       100000u);
        return [options] { return RunBounds(*options); };
    });

} // namespace
} // namespace bdt::bench
