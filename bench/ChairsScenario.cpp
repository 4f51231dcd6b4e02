// `bdt-bench chairs`: the BD-Tree paper's Figure 1 scene. N procedural chairs (about 18k triangles like the
// paper's Table 1 chair, M = 10 modes, contact proxies at level 10) dropped into a pile on the ground, as
// deformable bodies and as rigid ones (q forced to 0, no sphere updates), stepped alternately in one run so
// both see the same machine load. Reports per-step time (median, p95), Bullet's collision time, contacts,
// sphere updates, memory, and the deformable / rigid ratio. `--front` turns the narrowphase's front
// tracking on (`DeformableShapeSettings::frontTracking`); `--scenes front` steps the deformable pile with
// front tracking and without it alternately instead (the same motion, bit for bit: the A/B of its cost).
// `--skin` sets the pair cache's skin (`DeformableShapeSettings::pairCacheSkin`), and `--scenes skin` steps
// the deformable pile with the cache and without it alternately (also the same motion, bit for bit).
// `--scenes bullet` (or `all`) adds the pile as a Bullet user models it today without this plugin: rigid
// compounds of the chair's six boxes (`ChairParts`), same placements, mass and inertia, in the same kind of
// world: the floor that Bullet's own broadphase, narrowphase and solver set for this scene.
#include "Scenario.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sys/resource.h>
#include <unistd.h>

namespace bdt::bench
{
namespace
{

struct ChairsOptions
{
    std::string json;
    std::uint32_t count = 100;
    int steps = 300;
    std::uint32_t triangles = 18000;
    std::uint32_t modes = 10;
    std::uint32_t level = 10;
    std::uint32_t layers = 4;
    std::uint32_t seed = 1;  // the pile's random orientations
    std::uint32_t seeds = 1; // piles run, seeds seed .. seed + seeds - 1
    double timeStep = 1.0 / 60.0;
    std::string scenes = "both"; // both (deformable, rigid), deformable, rigid, bullet, all, front or skin
    bool front = false;          // front tracking on every body
    bool boxes = false;          // BD-AABB box culling of the deformable pairs on every body
    double skin = DeformableShapeSettings{}.pairCacheSkin; // pair cache skin of every body (0: off)
    unsigned threads = 1;        // narrowphase threads of every scene's dispatcher
    std::string contacts = "surface"; // the contact model of the deformable and rigid scenes
};

EContactModel ContactModelOf(const std::string& inName)
{
    return inName == "proxies" ? EContactModel::Proxies : EContactModel::Surface;
}

// What a scene's chairs are.
enum class EChairs : std::uint8_t
{
    Deformable, ///< This plugin's deformable shape.
    Rigid,      ///< The same shape with q forced to 0 and no sphere updates.
    Bullet,     ///< Bullet's own rigid compound of the chair's boxes.
};

// A scene to build: its name in the report, its chairs, front tracking or not, the pair cache's skin, box
// culling or not.
struct SceneSpec
{
    const char* name;
    EChairs chairs;
    bool front;
    double skin;
    bool boxes = false;
    EContactModel contacts = EContactModel::Surface;
};

// The scenes `--scenes` asks for, stepped alternately in this order.
std::vector<SceneSpec> ChosenScenes(const ChairsOptions& inOptions)
{
    const EContactModel model = ContactModelOf(inOptions.contacts);
    if (inOptions.scenes == "contacts")
        return {{"surface", EChairs::Deformable, inOptions.front, inOptions.skin, inOptions.boxes,
                 EContactModel::Surface},
                {"proxies", EChairs::Deformable, inOptions.front, inOptions.skin, inOptions.boxes,
                 EContactModel::Proxies}};
    if (inOptions.scenes == "front")
        return {{"front_on", EChairs::Deformable, true, inOptions.skin},
                {"front_off", EChairs::Deformable, false, inOptions.skin}};
    if (inOptions.scenes == "skin")
        return {{"skin_on", EChairs::Deformable, inOptions.front, inOptions.skin},
                {"skin_off", EChairs::Deformable, inOptions.front, 0.0}};
    if (inOptions.scenes == "boxes")
        return {{"boxes_on", EChairs::Deformable, inOptions.front, inOptions.skin, true},
                {"boxes_off", EChairs::Deformable, inOptions.front, inOptions.skin, false}};
    const std::string& scenes = inOptions.scenes;
    std::vector<SceneSpec> specs;
    if (scenes == "both" || scenes == "all" || scenes == "deformable")
        specs.push_back({"deformable", EChairs::Deformable, inOptions.front, inOptions.skin, inOptions.boxes, model});
    if (scenes == "both" || scenes == "all" || scenes == "rigid")
        specs.push_back({"rigid", EChairs::Rigid, inOptions.front, inOptions.skin, inOptions.boxes, model});
    if (scenes == "all" || scenes == "bullet")
        specs.push_back({"bullet", EChairs::Bullet, false, 0.0});
    return specs;
}

using Clock = std::chrono::steady_clock;

// Resident set size now, in bytes (Linux /proc/self/statm).
double ResidentBytes()
{
    std::ifstream statm("/proc/self/statm");
    double pages = 0.0, resident = 0.0;
    statm >> pages >> resident;
    return resident * double(sysconf(_SC_PAGESIZE));
}

double PeakResidentBytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) * 1024.0;
}

// The median over the steps of each of the narrowphase's stage counters and times (`NarrowphaseStats`).
nlohmann::json StageMedians(const std::vector<NarrowphaseStats>& inSteps)
{
    using Field = double (*)(const NarrowphaseStats&);
    static const std::pair<const char*, Field> cFields[] = {
        {"pairs", [](const NarrowphaseStats& s) { return double(s.pairs); }},
        {"pairs_apart", [](const NarrowphaseStats& s) { return double(s.pairsApart); }},
        {"sphere_tests", [](const NarrowphaseStats& s) { return double(s.work.overlapTests); }},
        {"proxy_contacts", [](const NarrowphaseStats& s) { return double(s.work.contacts); }},
        {"speculative_pairs", [](const NarrowphaseStats& s) { return double(s.work.speculativePairs); }},
        {"patch_pairs", [](const NarrowphaseStats& s) { return double(s.work.patchPairs); }},
        {"patches_made", [](const NarrowphaseStats& s) { return double(s.work.patchesMade); }},
        {"patches_reused", [](const NarrowphaseStats& s) { return double(s.work.patchesReused); }},
        {"feature_tests", [](const NarrowphaseStats& s) { return double(s.work.featureTests); }},
        {"surface_contacts", [](const NarrowphaseStats& s) { return double(s.work.surfaceContacts); }},
        {"piece_pairs", [](const NarrowphaseStats& s) { return double(s.work.piecePairs); }},
        {"piece_contacts", [](const NarrowphaseStats& s) { return double(s.work.pieceContacts); }},
        {"contacts_found", [](const NarrowphaseStats& s) { return double(s.contactsFound); }},
        {"contacts_filtered", [](const NarrowphaseStats& s) { return double(s.contactsFiltered); }},
        {"points_kept", [](const NarrowphaseStats& s) { return double(s.pointsKept); }},
        {"descent_ms", [](const NarrowphaseStats& s) { return s.descentMs; }},
        {"place_ms", [](const NarrowphaseStats& s) { return s.placeMs; }},
        {"features_ms", [](const NarrowphaseStats& s) { return s.featuresMs; }},
        {"regions_ms", [](const NarrowphaseStats& s) { return s.regionsMs; }},
        {"commit_ms", [](const NarrowphaseStats& s) { return s.commitMs; }},
    };
    nlohmann::json medians;
    std::vector<double> values;
    for (const auto& [name, field] : cFields)
    {
        values.clear();
        for (const NarrowphaseStats& step : inSteps)
            values.push_back(field(step));
        medians[name] = Median(values);
    }
    return medians;
}

// One scene being measured: its world and the per-step figures.
struct Run
{
    const char* name = "";
    std::vector<std::unique_ptr<btBoxShape>> boxes; // the Bullet scene's compound children; outlive the world
    std::unique_ptr<SampleWorld> world;
    std::vector<btRigidBody*> chairs;
    double memoryBytes = 0.0; // resident growth when the scene was built
    std::vector<double> stepMs, collisionMs, solverMs, preTickMs, postSolveMs, contacts, spheres, tests,
        awake, narrowphaseMs;
    std::vector<NarrowphaseStats> stages; // the deformables' narrowphase, per step
    std::uint64_t finalClamped = 0;
    double lowestHeight = 0.0;

    void Step(double inTimeStep)
    {
        const Clock::time_point start = Clock::now();
        world->Step(1, inTimeStep);
        stepMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        const StepStats& stats = world->Deformables().Stats();
        collisionMs.push_back(stats.collisionMs);
        solverMs.push_back(stats.solverMs);
        preTickMs.push_back(stats.preTickMs);
        postSolveMs.push_back(stats.postSolveMs);
        narrowphaseMs.push_back(stats.narrowphaseMs);
        stages.push_back(stats.narrowphase);
        // Every manifold's points, whatever the shapes (the stats count only those touching deformables).
        btDispatcher& dispatcher = *world->Dynamics().getDispatcher();
        std::size_t points = 0;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
            points += std::size_t(dispatcher.getManifoldByIndexInternal(m)->getNumContacts());
        contacts.push_back(double(points));
        spheres.push_back(double(stats.spheresUpdated));
        tests.push_back(double(stats.overlapTests));
        std::size_t active = 0;
        for (btRigidBody* body : chairs)
            active += body->isActive() ? 1 : 0;
        awake.push_back(double(active));
    }

    nlohmann::json Report() const
    {
        return {{"scene", name},
                {"step_ms_median", Median(stepMs)},
                {"step_ms_p95", Percentile(stepMs, 95.0)},
                {"collision_ms_median", Median(collisionMs)},
                {"collision_ms_p95", Percentile(collisionMs, 95.0)},
                {"solver_ms_median", Median(solverMs)},
                {"pre_tick_ms_median", Median(preTickMs)},
                {"post_solve_ms_median", Median(postSolveMs)},
                {"contacts_per_step_median", Median(contacts)},
                {"spheres_updated_per_step_median", Median(spheres)},
                {"overlap_tests_per_step_median", Median(tests)},
                {"memory_mb", memoryBytes / 1e6},
                {"strain_clamps", finalClamped},
                {"lowest_body_height_m", lowestHeight},
                {"step_ms_mean", Mean(stepMs)},
                {"narrowphase_ms_median", Median(narrowphaseMs)},
                {"stages", StageMedians(stages)},
                {"series",
                 {{"step_ms", stepMs},
                  {"collision_ms", collisionMs},
                  {"solver_ms", solverMs},
                  {"pre_tick_ms", preTickMs},
                  {"post_solve_ms", postSolveMs},
                  {"contacts", contacts},
                  {"overlap_tests", tests},
                  {"awake_bodies", awake}}}};
    }
};

// The chair as a Bullet user models it: a compound of its boxes in the chair's local frame (centre of mass,
// principal axes, as `DeformableShape`'s), each box with a 4 mm margin (Bullet's default 4 cm exceeds the
// legs' half width). The boxes are shared by every chair's compound and owned by `ioBoxes`.
std::unique_ptr<btCompoundShape> MakeChairCompound(const DeformableAsset& inAsset,
                                                   std::vector<std::unique_ptr<btBoxShape>>& ioBoxes)
{
    const std::vector<BoxPart> parts = ChairParts();
    if (ioBoxes.empty())
        for (const BoxPart& part : parts)
        {
            ioBoxes.push_back(std::make_unique<btBoxShape>(ToBtVector(0.5 * part.size)));
            ioBoxes.back()->setMargin(btScalar(0.004));
        }
    const Pose principal = inAsset.Mass().ToPrincipal();
    const btMatrix3x3 basis = ToBtMatrix(principal.rotation);
    auto compound = std::make_unique<btCompoundShape>(true, int(parts.size()));
    for (std::size_t i = 0; i < parts.size(); ++i)
        compound->addChildShape(btTransform(basis, ToBtVector(principal.Apply(parts[i].center))),
                                ioBoxes[i].get());
    return compound;
}

std::unique_ptr<SampleWorld> BuildScene(const ChairsOptions& inOptions,
                                        const std::shared_ptr<const DeformableAsset>& inAsset,
                                        const SceneSpec& inSpec, Run& ioRun)
{
    SampleWorldSettings worldSettings;
    worldSettings.narrowphaseThreads = inOptions.threads;
    auto world = std::make_unique<SampleWorld>(worldSettings);
    world->AddGroundPlane();
    world->Deformables().SetRigid(inSpec.chairs == EChairs::Rigid);
    PileSettings pile;
    pile.count = inOptions.count;
    pile.layers = inOptions.layers;
    pile.seed = inOptions.seed;
    pile.body.mass = 4.0;
    pile.body.proxyLevel = inOptions.level;
    if (inSpec.chairs == EChairs::Bullet)
    {
        // The same placements, mass, inertia and material (`BodyMaterial`'s friction 0.6, no restitution).
        const btVector3 inertia = ToBtVector(pile.body.mass * inAsset->Mass().principalInertia);
        for (const btTransform& transform : PileTransforms(*inAsset, pile))
        {
            btRigidBody* body = world->AddRigid(MakeChairCompound(*inAsset, ioRun.boxes), transform,
                                                pile.body.mass, pile.body.material.friction);
            body->setMassProps(btScalar(pile.body.mass), inertia);
            body->updateInertiaTensor();
            ioRun.chairs.push_back(body);
        }
        return world;
    }
    for (btRigidBody* body : AddPile(*world, inAsset, pile))
    {
        DeformableShape& shape = *World::Shape(body);
        DeformableShapeSettings settings = shape.Settings();
        settings.frontTracking = inSpec.front;
        settings.pairCacheSkin = inSpec.skin;
        settings.boxCulling = inSpec.boxes;
        settings.contactModel = inSpec.contacts;
        shape.SetSettings(settings);
        ioRun.chairs.push_back(body);
    }
    return world;
}

// Each scene over each later one (deformable / rigid, deformable / bullet, rigid / bullet, front on / off), into
// `ioReport` and printed. Per-step ratios are taken over the steps where both piles have a body awake: once a
// pile sleeps, no narrowphase runs and a ratio there only measures the timer. The ratio of totals (the pile's
// whole run, asleep steps included) is what a user waits for.
void CompareScenes(const std::vector<Run>& inRuns, nlohmann::json& ioReport)
{
    for (std::size_t a = 0; a < inRuns.size(); ++a)
        for (std::size_t b = a + 1; b < inRuns.size(); ++b)
        {
            std::vector<double> ratios, collisionRatios;
            double totalA = 0.0, totalB = 0.0, collisionA = 0.0, collisionB = 0.0;
            for (std::size_t i = 0; i < inRuns[a].stepMs.size(); ++i)
            {
                totalA += inRuns[a].stepMs[i];
                totalB += inRuns[b].stepMs[i];
                collisionA += inRuns[a].collisionMs[i];
                collisionB += inRuns[b].collisionMs[i];
                if (inRuns[a].awake[i] == 0.0 || inRuns[b].awake[i] == 0.0)
                    continue;
                ratios.push_back(inRuns[a].stepMs[i] / inRuns[b].stepMs[i]);
                collisionRatios.push_back(inRuns[a].collisionMs[i] / inRuns[b].collisionMs[i]);
            }
            const std::string key = std::string(inRuns[a].name) + "_over_" + inRuns[b].name;
            const double ratio = Median(inRuns[a].stepMs) / Median(inRuns[b].stepMs);
            const double pairedStep = ratios.empty() ? 1.0 : Median(ratios);
            const double pairedCollision = collisionRatios.empty() ? 1.0 : Median(collisionRatios);
            ioReport[key + "_step_ratio"] = ratio;
            ioReport[key + "_step_ratio_of_totals"] = totalA / totalB;
            ioReport[key + "_collision_ratio_of_totals"] = collisionA / collisionB;
            ioReport[key + "_step_ratio_paired_median"] = pairedStep;
            ioReport[key + "_collision_ratio_paired_median"] = pairedCollision;
            ioReport[key + "_steps_awake"] = ratios.size();
            std::printf(
                "%s / %s: step %.3f (ratio of totals), %.3f (ratio of medians), %.3f (median of per-step "
                "ratios over the %zu steps with bodies awake); collision %.3f (ratio of totals), %.3f "
                "(median of per-step ratios)\n",
                inRuns[a].name, inRuns[b].name, totalA / totalB, ratio, pairedStep, ratios.size(),
                collisionA / collisionB, pairedCollision);
        }
}

// One pile (one seed): runs the scenes, prints their lines, returns the report.
nlohmann::json RunPile(const ChairsOptions& inOptions)
{
    const Clock::time_point bakeStart = Clock::now();
    ShapeMesh mesh = MakeShape(EShape::Chair, inOptions.triangles);
    auto tree = std::make_shared<const BDTree>(BDTree::Build(
        MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inOptions.modes)));
    const auto asset = DeformableAsset::Create(tree);
    asset->Proxies(inOptions.level);
    const double bakeMs = std::chrono::duration<double, std::milli>(Clock::now() - bakeStart).count();
    const std::vector<SceneSpec> specs = ChosenScenes(inOptions);
    std::printf("chair: %zu triangles, M = %u, %u nodes, level %u; baked in %.0f ms; %u chairs, %d steps; "
                "%u narrowphase threads; front tracking %s; pair cache skin %s\n",
                tree->GetModel().TriangleCount(), tree->ModeCount(), tree->NodeCount(), inOptions.level,
                bakeMs, inOptions.count, inOptions.steps, inOptions.threads,
                specs.size() == 2 && specs[0].front != specs[1].front ? "on and off"
                : specs[0].front                                      ? "on"
                                                                      : "off",
                inOptions.scenes == "skin" ? (std::to_string(inOptions.skin) + " and off").c_str()
                                           : std::to_string(inOptions.skin).c_str());

    std::vector<Run> runs;
    for (const SceneSpec& spec : specs)
    {
        Run run;
        run.name = spec.name;
        const double before = ResidentBytes();
        run.world = BuildScene(inOptions, asset, spec, run);
        run.memoryBytes = ResidentBytes() - before;
        runs.push_back(std::move(run));
    }
    // Alternate the scenes step by step: both see the same machine load.
    for (int step = 0; step < inOptions.steps; ++step)
        for (Run& run : runs)
            run.Step(inOptions.timeStep);

    nlohmann::json report = {{"scenario", "chairs"},
                             {"count", inOptions.count},
                             {"steps", inOptions.steps},
                             {"seed", inOptions.seed},
                             {"time_step_s", inOptions.timeStep},
                             {"triangles", tree->GetModel().TriangleCount()},
                             {"modes", tree->ModeCount()},
                             {"level", inOptions.level},
                             {"narrowphase_threads", inOptions.threads},
                             {"front_tracking", inOptions.scenes == "front" ? "on and off"
                                                : inOptions.front           ? "on"
                                                                            : "off"},
                             {"pair_cache_skin", inOptions.skin},
                             {"box_culling", inOptions.scenes == "boxes" ? "on and off"
                                             : inOptions.boxes          ? "on"
                                                                        : "off"},
                             {"pair_cache", inOptions.scenes == "skin" ? "on and off"
                                            : inOptions.skin > 0.0     ? "on"
                                                                       : "off"},
                             {"asset_mb", double(asset->MemoryBytes()) / 1e6},
                             {"peak_resident_mb", PeakResidentBytes() / 1e6}};
    nlohmann::json scenes = nlohmann::json::array();
    for (Run& run : runs)
    {
        double lowest = 1e30;
        for (btRigidBody* body : run.chairs)
            lowest = std::min(lowest, double(body->getWorldTransform().getOrigin().y()));
        run.lowestHeight = lowest;
        run.finalClamped = run.world->Deformables().Stats().clamped;
        scenes.push_back(run.Report());
        std::printf(
            "%-10s step %.2f ms median (p95 %.2f), collision %.2f ms, solver %.2f ms, pre-tick %.3f ms, "
            "post-solve %.3f ms, %.0f contacts, %.0f spheres updated, %.0f tests, %.1f MB\n",
            run.name, Median(run.stepMs), Percentile(run.stepMs, 95.0), Median(run.collisionMs),
            Median(run.solverMs), Median(run.preTickMs), Median(run.postSolveMs), Median(run.contacts),
            Median(run.spheres), Median(run.tests), run.memoryBytes / 1e6);
        const nlohmann::json& stage = scenes.back()["stages"];
        if (stage["pairs"].get<double>() > 0.0)
            std::printf("%-10s narrowphase %.2f ms: descent %.2f, place %.2f, features %.2f, regions %.2f, commit "
                        "%.2f ms; %.0f pairs (%.0f apart), %.0f proxy contacts (%.0f speculative), %.0f patch "
                        "pairs, %.0f patches made, %.0f reused, %.0f feature tests, %.0f surface contacts, %.0f "
                        "piece pairs, %.0f piece contacts, %.0f found, %.0f filtered, %.0f kept\n",
                        "", Median(run.narrowphaseMs), stage["descent_ms"].get<double>(),
                        stage["place_ms"].get<double>(), stage["features_ms"].get<double>(),
                        stage["regions_ms"].get<double>(), stage["commit_ms"].get<double>(),
                        stage["pairs"].get<double>(), stage["pairs_apart"].get<double>(),
                        stage["proxy_contacts"].get<double>(), stage["speculative_pairs"].get<double>(),
                        stage["patch_pairs"].get<double>(), stage["patches_made"].get<double>(),
                        stage["patches_reused"].get<double>(), stage["feature_tests"].get<double>(),
                        stage["surface_contacts"].get<double>(), stage["piece_pairs"].get<double>(),
                        stage["piece_contacts"].get<double>(), stage["contacts_found"].get<double>(),
                        stage["contacts_filtered"].get<double>(), stage["points_kept"].get<double>());
    }
    report["scenes"] = scenes;
    CompareScenes(runs, report);
    std::printf("peak resident %.0f MB\n", PeakResidentBytes() / 1e6);
    return report;
}

// The piles of seeds seed .. seed + seeds - 1. A pile is chaotic: the same drop with other orientations
// settles into another pile with other contacts, so one seed's ratio carries that chance; with several seeds
// the ratios' median, min and max over the seeds are printed and written.
int RunChairs(const ChairsOptions& inOptions)
{
    std::vector<nlohmann::json> reports;
    for (std::uint32_t k = 0; k < inOptions.seeds; ++k)
    {
        ChairsOptions options = inOptions;
        options.seed = inOptions.seed + k;
        if (inOptions.seeds > 1)
            std::printf("-- seed %u\n", options.seed);
        reports.push_back(RunPile(options));
    }
    nlohmann::json report = reports.front();
    if (inOptions.seeds > 1)
    {
        report = {{"scenario", "chairs"}, {"seeds", inOptions.seeds}, {"piles", reports}};
        for (const auto& [key, value] : reports.front().items())
        {
            if (key.find("_ratio") == std::string::npos)
                continue;
            std::vector<double> ratios;
            for (const nlohmann::json& pile : reports)
                ratios.push_back(pile[key].get<double>());
            const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
            report[key + "_median_over_seeds"] = Median(ratios);
            report[key + "_min_over_seeds"] = *low;
            report[key + "_max_over_seeds"] = *high;
            std::printf("%s over %u seeds: median %.3f, min %.3f, max %.3f\n", key.c_str(), inOptions.seeds,
                        Median(ratios), *low, *high);
        }
    }
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return 0;
}

const bool sRegistered = RegisterScenario(
    "chairs", "the paper's Figure 1 pile: N deformable chairs vs the same rigid, ms per step and ratio",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<ChairsOptions>();
        AddJsonOption(ioCommand, options->json);
        AddRangeOption(ioCommand, "--count", options->count, "Number of chairs", 1u, 100000u);
        AddRangeOption(ioCommand, "--steps", options->steps, "Steps to run", 1, 1000000);
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Chair triangle count", 100u, 5000000u);
        AddRangeOption(ioCommand, "--modes", options->modes, "Modes per chair", 0u, 200u);
        AddRangeOption(ioCommand, "--level", options->level, "Contact proxy level L", 0u, 60u);
        AddRangeOption(ioCommand, "--layers", options->layers, "Layers of the dropped block", 1u, 1000u);
        ioCommand.add_option("--seed", options->seed, "Seed of the pile's random orientations");
        AddRangeOption(ioCommand, "--seeds", options->seeds,
                       "Piles to run, seeds --seed onwards; prints each ratio's median, min and max", 1u,
                       1000u);
        AddRangeOption(ioCommand, "--dt", options->timeStep, "Time step, s", 1e-5, 1.0);
        ioCommand
            .add_option("--scenes", options->scenes,
                        "both (deformable and rigid), deformable, rigid, bullet (Bullet's own compound "
                        "chairs), all (the three), front (deformable with front tracking and without), skin "
                        "(deformable with the pair cache and without), boxes (deformable with BD-AABB box "
                        "culling and without) or contacts (deformable in the surface contact model and in the "
                        "proxies model)")
            ->check(CLI::IsMember(
                {"both", "deformable", "rigid", "bullet", "all", "front", "skin", "boxes", "contacts"}));
        ioCommand
            .add_option("--contacts", options->contacts,
                        "Contact model of the deformable and rigid scenes: surface (the default) or proxies")
            ->check(CLI::IsMember({"surface", "proxies"}));
        AddRangeOption(ioCommand, "--threads", options->threads,
                       "Narrowphase threads (bdt::ParallelDispatcher) in every scene; 0: the machine's", 0u,
                       256u);
        ioCommand.add_flag("--boxes", options->boxes,
                           "BD-AABB box culling of deformable pairs on every body (--scenes boxes runs both)");
        ioCommand.add_flag("--front", options->front,
                           "Front tracking on: each deformable pair's proxy descent starts from last step's "
                           "front (off by default; --scenes front runs both)");
        AddRangeOption(ioCommand, "--skin", options->skin,
                       "Pair cache skin, a fraction of each chair's rest bounding radius (0: off; "
                       "--scenes skin runs with it and without)",
                       0.0, 1.0);
        return [options] { return RunChairs(*options); };
    });

} // namespace
} // namespace bdt::bench
