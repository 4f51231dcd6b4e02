// `bdt-bench pile`: a heap of curved closed meshes (a sphere, a torus, a pawn, or any mesh file), against what a
// Bullet user would build for the same bodies: a convex hull of the mesh (`btConvexHullShape`, its points reduced
// by Bullet's own `btShapeHull`, as Bullet's documentation recommends for a high-polygon mesh). Three scenes
// stepped alternately in one run, so that all see the same machine load: the deformable bodies (smooth basis),
// the same shape rigid (q forced to 0, `World::SetRigid`), and Bullet's hulls, same placements, mass, inertia and
// friction. Reports the step's median and p95, collision, contacts, the narrowphase's stages, the lowest vertex of
// any body at the end (nothing may sink below the floor), and each scene's ratio to the others.
#include "Scenario.h"

#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btShapeHull.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/adapter/World.h>
#include <bdt/bake/MeshImport.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/samples/Scenes.h>
#include <chrono>
#include <cstdio>
#include <limits>

namespace bdt::bench
{
namespace
{

struct PileOptions
{
    std::string json;
    std::string shape = "sphere"; // a built-in curved shape, unless `model` is given
    std::string model;            // a mesh file (any format Assimp reads), scaled to a 1 m bounding diagonal
    std::uint32_t triangles = 3000;
    std::uint32_t count = 100;
    int steps = 300;
    std::uint32_t modes = 10;
    std::uint32_t level = 8;
    std::uint32_t layers = 4;
    std::uint32_t seed = 1;
    std::string contacts = "surface";
    double pieceTolerance = DeformableShapeSettings{}.pieceTolerance;
    unsigned threads = 1;
};

using Clock = std::chrono::steady_clock;

enum class EBodies : std::uint8_t
{
    Deformable, ///< This plugin's deformable shape.
    Rigid,      ///< The same shape, q forced to 0.
    Hull,       ///< Bullet's convex hull of the mesh.
};

// One scene being measured.
struct PileRun
{
    const char* name = "";
    EBodies bodies = EBodies::Deformable;
    std::unique_ptr<btConvexHullShape> hull; // the hull scene's: each of its bodies owns a copy
    std::unique_ptr<SampleWorld> world;
    std::vector<btRigidBody*> members;
    std::vector<double> stepMs, collisionMs, contacts;
    std::vector<NarrowphaseStats> stages;

    void Step()
    {
        const Clock::time_point start = Clock::now();
        world->Step(1, 1.0 / 60.0);
        stepMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        collisionMs.push_back(world->Deformables().Stats().collisionMs);
        stages.push_back(world->Deformables().Stats().narrowphase);
        btDispatcher& dispatcher = *world->Dynamics().getDispatcher();
        std::size_t points = 0;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
            points += std::size_t(dispatcher.getManifoldByIndexInternal(m)->getNumContacts());
        contacts.push_back(double(points));
    }

    // The lowest point of any body (m, world): its deformed vertices, or its hull's points.
    double LowestPoint() const
    {
        double lowest = std::numeric_limits<double>::infinity();
        std::vector<float> xyz;
        for (btRigidBody* body : members)
            if (hull)
                for (int i = 0; i < hull->getNumPoints(); ++i)
                    lowest = std::min(lowest, double((body->getWorldTransform() * hull->getScaledPoint(i)).y()));
            else
            {
                xyz.resize(3 * World::Shape(body)->State().Tree().GetModel().VertexCount());
                world->Deformables().DeformedVertices(body, xyz);
                for (std::size_t i = 1; i < xyz.size(); i += 3)
                    lowest = std::min(lowest, double(xyz[i]));
            }
        return lowest;
    }
};

// The mesh of the bodies: the built-in shape, or the file's mesh scaled to a 1 m bounding-box diagonal.
ShapeMesh PileMesh(const PileOptions& inOptions)
{
    if (inOptions.model.empty())
        return MakeShape(*ShapeFromName(inOptions.shape), inOptions.triangles);
    ImportedMesh imported = ImportMesh(inOptions.model);
    Eigen::AlignedBox3f box;
    for (const Vec3f& p : imported.positions)
        box.extend(p);
    const float scale = 1.0f / box.diagonal().norm();
    ShapeMesh mesh;
    for (const Vec3f& p : imported.positions)
        mesh.positions.push_back(scale * (p - box.center()));
    mesh.triangles = std::move(imported.triangles);
    return mesh;
}

// Bullet's hull of the mesh in the body's principal frame (the frame `PileTransforms` places), reduced by
// `btShapeHull` to its few dozen points, with a 4 mm margin.
std::unique_ptr<btConvexHullShape> MakeHull(const DeformableAsset& inAsset)
{
    const Pose principal = inAsset.Mass().ToPrincipal();
    btConvexHullShape all;
    for (const Vec3f& p : inAsset.GetModel().Positions())
        all.addPoint(ToBtVector(principal.Apply(p.cast<double>())), false);
    all.recalcLocalAabb();
    btShapeHull reduced(&all);
    reduced.buildHull(all.getMargin());
    auto hull = std::make_unique<btConvexHullShape>(&reduced.getVertexPointer()->getX(), reduced.numVertices());
    hull->setMargin(btScalar(0.004));
    return hull;
}

void BuildPile(const PileOptions& inOptions, const std::shared_ptr<const DeformableAsset>& inAsset, PileRun& ioRun)
{
    SampleWorldSettings settings;
    settings.narrowphaseThreads = inOptions.threads;
    ioRun.world = std::make_unique<SampleWorld>(settings);
    ioRun.world->AddGroundPlane();
    ioRun.world->Deformables().SetRigid(ioRun.bodies == EBodies::Rigid);
    PileSettings pile;
    pile.count = inOptions.count;
    pile.layers = inOptions.layers;
    pile.seed = inOptions.seed;
    pile.body.proxyLevel = inOptions.level;
    pile.body.contactModel = inOptions.contacts == "proxies" ? EContactModel::Proxies : EContactModel::Surface;
    pile.body.pieceTolerance = inOptions.pieceTolerance;
    if (ioRun.bodies == EBodies::Hull)
    {
        ioRun.hull = MakeHull(*inAsset);
        const btVector3 inertia = ToBtVector(pile.body.mass * inAsset->Mass().principalInertia);
        for (const btTransform& transform : PileTransforms(*inAsset, pile))
        {
            auto shape = std::make_unique<btConvexHullShape>(*ioRun.hull);
            btRigidBody* body = ioRun.world->AddRigid(std::move(shape), transform, pile.body.mass,
                                                      pile.body.material.friction);
            body->setMassProps(btScalar(pile.body.mass), inertia);
            body->updateInertiaTensor();
            ioRun.members.push_back(body);
        }
        return;
    }
    ioRun.members = AddPile(*ioRun.world, inAsset, pile);
}

nlohmann::json SceneReport(const PileRun& inRun, double inLowest)
{
    std::vector<double> features, descent, pieces, found, kept;
    for (const NarrowphaseStats& s : inRun.stages)
    {
        features.push_back(s.featuresMs);
        descent.push_back(s.descentMs);
        pieces.push_back(double(s.work.piecePairs));
        found.push_back(double(s.contactsFound));
        kept.push_back(double(s.pointsKept));
    }
    double total = 0.0;
    for (const double ms : inRun.stepMs)
        total += ms;
    return {{"scene", inRun.name},
            {"step_ms_median", Median(inRun.stepMs)},
            {"step_ms_p95", Percentile(inRun.stepMs, 95.0)},
            {"step_ms_total", total},
            {"collision_ms_median", Median(inRun.collisionMs)},
            {"contacts_per_step_median", Median(inRun.contacts)},
            {"lowest_point_m", inLowest},
            {"stages",
             {{"descent_ms", Median(descent)},
              {"features_ms", Median(features)},
              {"piece_pairs", Median(pieces)},
              {"contacts_found", Median(found)},
              {"points_kept", Median(kept)}}},
            {"series", {{"step_ms", inRun.stepMs}}}};
}

int RunPileBench(const PileOptions& inOptions)
{
    if (inOptions.model.empty() && !ShapeFromName(inOptions.shape))
    {
        std::fprintf(stderr, "error: --shape %s: not a built-in shape\n", inOptions.shape.c_str());
        return 1;
    }
    ShapeMesh mesh;
    try
    {
        mesh = PileMesh(inOptions);
    }
    catch (const Error& error)
    {
        std::fprintf(stderr, "error: %s: %s\n", inOptions.model.c_str(), error.what());
        return 1;
    }
    const std::size_t triangleCount = mesh.triangles.size();
    const auto tree = std::make_shared<const BDTree>(BDTree::Build(
        MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inOptions.modes)));
    const auto asset = DeformableAsset::Create(tree);
    std::vector<PileRun> runs(3);
    runs[0].name = "deformable";
    runs[1].name = "rigid";
    runs[1].bodies = EBodies::Rigid;
    runs[2].name = "hull";
    runs[2].bodies = EBodies::Hull;
    for (PileRun& run : runs)
        BuildPile(inOptions, asset, run);
    std::printf("pile: %u bodies of %s (%zu triangles, M = %u, L = %u, %s contacts), hull of %d points; %d steps\n",
                inOptions.count, inOptions.model.empty() ? inOptions.shape.c_str() : inOptions.model.c_str(),
                triangleCount, inOptions.modes, inOptions.level, inOptions.contacts.c_str(),
                runs[2].hull->getNumPoints(), inOptions.steps);
    for (int step = 0; step < inOptions.steps; ++step)
        for (PileRun& run : runs)
            run.Step();

    nlohmann::json report = {{"scenario", "pile"},
                             {"shape", inOptions.model.empty() ? inOptions.shape : inOptions.model},
                             {"triangles", triangleCount},
                             {"count", inOptions.count},
                             {"steps", inOptions.steps},
                             {"contact_model", inOptions.contacts}};
    nlohmann::json scenes = nlohmann::json::array();
    bool sank = false;
    for (const PileRun& run : runs)
    {
        const double lowest = run.LowestPoint();
        sank = sank || !(lowest > -0.01);
        scenes.push_back(SceneReport(run, lowest));
        const nlohmann::json& stages = scenes.back()["stages"];
        std::printf("%-10s step %.2f ms median (p95 %.2f), collision %.2f ms, %.0f contacts, lowest point %.4f m",
                    run.name, Median(run.stepMs), Percentile(run.stepMs, 95.0), Median(run.collisionMs),
                    Median(run.contacts), lowest);
        if (run.bodies != EBodies::Hull)
            std::printf("; descent %.2f, features %.2f ms, %.0f piece pairs, %.0f found, %.0f kept",
                        stages["descent_ms"].get<double>(), stages["features_ms"].get<double>(),
                        stages["piece_pairs"].get<double>(), stages["contacts_found"].get<double>(),
                        stages["points_kept"].get<double>());
        std::printf("\n");
    }
    report["scenes"] = scenes;
    for (std::size_t a = 0; a < runs.size(); ++a)
        for (std::size_t b = a + 1; b < runs.size(); ++b)
        {
            const double totals =
                scenes[a]["step_ms_total"].get<double>() / scenes[b]["step_ms_total"].get<double>();
            const double medians = Median(runs[a].stepMs) / Median(runs[b].stepMs);
            std::printf("%s / %s: step %.3f (ratio of totals), %.3f (ratio of medians)\n", runs[a].name,
                        runs[b].name, totals, medians);
            report["ratios"][std::string(runs[a].name) + "_over_" + runs[b].name] = {{"step_totals", totals},
                                                                                    {"step_medians", medians}};
        }
    if (sank)
        std::printf("a body's lowest point ended more than 1 cm below the floor\n");
    if (!inOptions.json.empty() && !WriteReport(report, inOptions.json))
        return 1;
    return sank ? 2 : 0;
}

const bool cRegistered = RegisterScenario(
    "pile",
    "a heap of curved closed meshes: deformable, rigid, and Bullet's convex hulls of the same meshes, ms per step",
    [](CLI::App& ioCommand) -> ScenarioRun
    {
        auto options = std::make_shared<PileOptions>();
        AddJsonOption(ioCommand, options->json);
        ioCommand.add_option("--shape", options->shape, "Built-in shape of the bodies")
            ->check(CLI::IsMember({"sphere", "torus", "pawn"}));
        ioCommand.add_option("--model", options->model,
                             "Mesh file of the bodies instead (any Assimp format), scaled to a 1 m diagonal");
        AddRangeOption(ioCommand, "--triangles", options->triangles, "Triangles of the built-in shape", 100u,
                       5000000u);
        AddRangeOption(ioCommand, "--count", options->count, "Number of bodies", 1u, 100000u);
        AddRangeOption(ioCommand, "--steps", options->steps, "Steps to run (1/60 s)", 1, 1000000);
        AddRangeOption(ioCommand, "--modes", options->modes, "Smooth modes per body", 0u, 200u);
        AddRangeOption(ioCommand, "--level", options->level, "Contact proxy level L", 0u, 60u);
        AddRangeOption(ioCommand, "--layers", options->layers, "Layers of the dropped block", 1u, 1000u);
        ioCommand.add_option("--seed", options->seed, "Seed of the pile's random orientations");
        ioCommand.add_option("--contacts", options->contacts, "Contact model of the deformable and rigid scenes")
            ->check(CLI::IsMember({"surface", "proxies"}));
        AddRangeOption(ioCommand, "--piece-tolerance", options->pieceTolerance,
                       "Contact pieces' tolerance, m (DeformableShapeSettings::pieceTolerance; 0: no pieces)", 0.0, 1.0);
        AddRangeOption(ioCommand, "--threads", options->threads, "Narrowphase threads; 0: the machine's", 0u, 256u);
        return [options] { return RunPileBench(*options); };
    });

} // namespace
} // namespace bdt::bench
